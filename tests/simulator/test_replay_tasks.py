"""Every shipped task's oracle trajectory replays with no divergence and regrades to the same reward."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from surfaces import ROOT

from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations
from simulator.tasks.catalog import task_catalog
from simulator.trajectories.files import read
from simulator.trajectories.replay import regrade, replay
from tasks.catalog import Catalog
from tasks.loader import SUITES_DIR


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, dict[str, Path]]:
    """Each task's oracle run on a recording store, finished (reward in the footer) and deleted."""
    folder = tmp_path_factory.mktemp("trajectories")
    store = EpisodeStore(trajectory_dir=folder, idle_timeout=None)
    catalog = task_catalog(store)
    files = {}
    for task in catalog.tasks.values():
        episode = store.create(task.world, task.actor, task=task)
        run = catalog.start(task.id, include_quarantined=True, episode=episode)
        catalog.engine.run_calls(run, task.oracle)
        store.finished(episode, catalog.finish(episode))
        store.delete(episode.id)
        files[task.id] = folder / f"{episode.id}.jsonl"
    return folder, files


def test_every_oracle_trajectory_replays_with_no_divergence_and_regrades_the_same(recorded):
    folder, files = recorded
    assert files, "no shipped task found"
    store = EpisodeStore(trajectory_dir=None, idle_timeout=None)
    catalog = task_catalog(store)
    for task_id, path in files.items():
        file = read(path)
        assert file.header.task.id == task_id and file.finished and file.footer.reason == "finish"
        if any(c.judge is not None and c.role != "diagnostic" for c in catalog.tasks[task_id].criteria):
            # a graded judged criterion with no calibrated judge here: ungradable, never passed
            assert not file.footer.passed, f"{task_id}: passed without its judge"
            continue
        assert file.footer.passed, f"{task_id}: the oracle did not pass when recorded"
        done = replay(file, store, catalog)
        assert done.ok, f"{task_id}: " + "\n".join(d.describe() for d in done.divergences)
        # What the world did by itself (event, npc) and what a step requested (peer) is set off again, not re-run.
        assert done.replayed == len([s for s in file.steps if s.mutates and s.surface not in ("setup", "peer", "event", "npc")])
        again = regrade(file, store, catalog)
        assert (again.before, again.after, again.passed_after, again.error) == (1.0, 1.0, True, None), task_id


def test_replay_and_grade_commands_work_offline(recorded, tmp_path):
    _, recorded_files = recorded
    folder = tmp_path / "some"   # two files are enough for the commands; the test above replays them all
    folder.mkdir()
    files = {}
    for task_id in sorted(recorded_files)[:2]:
        files[task_id] = folder / recorded_files[task_id].name
        shutil.copy(recorded_files[task_id], files[task_id])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = next(iter(files.values()))
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "replay", str(first)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no divergence" in done.stdout
    graded = subprocess.run([sys.executable, "-m", "simulator.cli", "grade", str(folder), "--json", str(folder / "g.json")],
                            capture_output=True, text=True, env={**env, "COLUMNS": "200"}, cwd=ROOT, timeout=300)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    for task_id in files:
        assert task_id in graded.stdout
    rows = json.loads((folder / "g.json").read_text())
    assert len(rows) == len(files) and all(r["before"] == r["after"] == 1.0 for r in rows)
    exported = subprocess.run([sys.executable, "-m", "simulator.cli", "trajectories", "export", str(folder),
                               "--format", "jsonl", "--no-tools"], capture_output=True, text=True, env=env, cwd=ROOT,
                              timeout=300)
    assert exported.returncode == 0, exported.stderr
    conversations = [json.loads(line) for line in exported.stdout.splitlines()]
    assert sorted(c["metadata"]["task"] for c in conversations) == sorted(files)
    for c in conversations:   # one tool call per agent step of the recording, in order, with its result
        calls = [m["tool_calls"][0]["function"]["name"] for m in c["messages"] if m["role"] == "assistant"]
        recorded = [s.tool for s in read(files[c["metadata"]["task"]]).steps if s.surface != "setup"]
        assert calls == recorded and len(c["messages"]) == 2 + 2 * len(recorded) and c["metadata"]["reward"] == 1.0


def test_a_changed_rubric_regrades_a_recorded_episode(recorded, tmp_path):
    """The same trajectory, graded by a new version of its task whose goal now wants another stage."""
    _, files = recorded
    task_id = "crm-close-globex-renewal"
    source = next(SUITES_DIR.glob(f"*/{task_id.removeprefix('crm-')}.yaml"))
    (tmp_path / "crm").mkdir()
    text = source.read_text().replace("version: 1", "version: 2")
    text = text.replace("expect: {stage: Closed Won", "expect: {stage: Closed Lost")
    (tmp_path / "crm" / source.name).write_text(text)
    store = EpisodeStore(trajectory_dir=None, idle_timeout=None)
    operations = {f"{op.app}.{op.name}": op for op in all_operations(store.apps)}
    catalog = Catalog(operations, lambda t: store.create(t.world, t.actor, record=False), root=tmp_path)
    again = regrade(read(files[task_id]), store, catalog)
    assert (again.recorded_version, again.version, again.before, again.passed_after) == (1, 2, 1.0, False)
    assert again.after < 1.0 and again.divergences == 0
    assert next(c for c in again.reward.criteria if c.id == "closed_won").status == "fail"
