"""The shipped people suites: written by ``scenarios.people.suites`` (the files are what it writes), and a
rule-based world is deterministic: two runs of the same oracle give equal digests and trajectories."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.people.suites import FAMILIES, write
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from tasks.loader import SUITES_DIR


def test_the_committed_files_are_what_the_generator_writes(tmp_path: Path):
    written = write(tmp_path)
    assert len(written) == sum(count for _, count in FAMILIES.values()) == 60
    for path in written:
        shipped = SUITES_DIR / path.relative_to(tmp_path)
        assert shipped.read_text() == path.read_text(), f"{shipped} differs: run python -m scenarios.people.suites"


@pytest.fixture(scope="module")
def catalog():
    return task_catalog(EpisodeStore(trajectory_dir=None, idle_timeout=None))


@pytest.mark.parametrize("task_id", ["people-approval-01", "people-approval-02", "people-time-01", "people-ask-00"])
def test_two_runs_of_the_oracle_give_the_same_world_and_trajectory(catalog, task_id):
    def once():
        run = catalog.start(task_id)
        catalog.engine.run_calls(run, catalog.get(task_id).oracle)
        reward = catalog.finish(run.episode)
        steps = [s.model_dump(mode="json", exclude={"wall_time", "duration_ms"}) for s in run.episode.trajectory]
        return run.episode.digest(), steps, reward.total
    first, second = once(), once()
    assert first == second and first[2] == 1.0
    assert any(s["surface"] in ("npc", "event") or s["operation"] == "ask_user" for s in first[1])
