"""A catalog of the corpus on acme, one task per family, shared by each module that asks for it."""

from __future__ import annotations

import pytest

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog


@pytest.fixture(scope="module")
def catalog():
    return task_catalog(EpisodeStore(), corpus="acme:1")
