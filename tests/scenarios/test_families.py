"""Every family, on both shipped worlds: its oracle earns 1.0 and doing nothing earns nothing. The whole proof
(mutants, hacks, random agents, the Wilson gates per family) is ``officeworld tasks check FAMILY``."""

from __future__ import annotations

import pytest

from scenarios.registry import FAMILIES
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog


@pytest.fixture(scope="module")
def catalog():
    store = EpisodeStore()
    return task_catalog(store, corpus="acme:2,harbor-legal:1")


@pytest.mark.parametrize("family", [f.id for f in FAMILIES])
def test_the_oracle_passes_and_doing_nothing_fails(catalog, family):
    tasks = catalog.select(family=family)
    assert tasks, f"{family} wrote no task on the shipped worlds ({catalog.corpus.skipped})"
    for task in tasks:
        run = catalog.start(task.id)
        steps = catalog.engine.run_calls(run, task.oracle)
        assert not [s.error for s in steps if s.error]
        reward = catalog.finish(run.episode)
        assert reward.total == 1.0, (task.id, [c for c in reward.model_dump()["criteria"] if c["status"] != "pass"])
        idle = catalog.start(task.id)
        assert catalog.finish(idle.episode).total == 0.0, task.id
