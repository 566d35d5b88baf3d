"""A small world and a suite of tasks written per test, with a catalog over them."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import make_world
from task_factories import outage_task, refuse_task, reply_task, write_task

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog


@pytest.fixture
def small_world(tmp_path: Path) -> Path:
    return make_world(tmp_path / "worlds")


@pytest.fixture
def suites(tmp_path: Path, small_world: Path) -> Path:
    root = tmp_path / "suites"
    for task in (reply_task(small_world), outage_task(small_world), refuse_task(small_world)):
        write_task(root, "small", task)
    return root


@pytest.fixture
def task_store(tmp_path: Path) -> EpisodeStore:
    return EpisodeStore(cache_dir=tmp_path / "cache")


@pytest.fixture
def catalog(task_store: EpisodeStore, suites: Path):
    return task_catalog(task_store, suites)
