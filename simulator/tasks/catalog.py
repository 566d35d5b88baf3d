"""The task catalog of a server: the shipped suites (or ``OFFICEWORLD_TASKS_DIR``) over its episode store."""

from __future__ import annotations

from pathlib import Path

from apps.kit.settings import settings
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations
from tasks.catalog import Catalog
from tasks.loader import SUITES_DIR


def task_catalog(store: EpisodeStore, root: Path | None = None) -> Catalog:
    """A catalog of the suites under ``root`` (default: ``OFFICEWORLD_TASKS_DIR`` or the shipped ones)."""
    root = root or settings().tasks_dir or SUITES_DIR
    operations = {f"{op.app}.{op.name}": op for op in all_operations(store.apps)}
    # Episodes the engine makes itself (probes that learn what the oracle changes) keep no file; the
    # control API hands the catalog a recording episode for the episodes agents work in.
    return Catalog(operations, lambda task: store.create(task.world, task.actor, task=task, record=False), root,
                   release=lambda episode: store.delete(episode.id))
