"""A task with events and co-workers replays from its file to the same state, regrades the same, and
resumes; a recording the world would not make again is reported at its first different reaction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from factories import make_world
from people_factories import approval_task, ask_task, po_task
from task_factories import write_task

from apps.kit.invoker import invoke
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from simulator.trajectories.files import read
from simulator.trajectories.replay import regrade, replay
from simulator.trajectories.resume import resume


@pytest.fixture
def suites(tmp_path: Path) -> Path:
    world = make_world(tmp_path / "worlds")
    root = tmp_path / "suites"
    write_task(root, "people", approval_task(world))
    write_task(root, "people", po_task(world))
    write_task(root, "people", ask_task(world))
    return root


def _record(tmp_path: Path, suites: Path, task_id: str, finish: bool = True) -> Path:
    folder = tmp_path / "trajectories"
    store = EpisodeStore(trajectory_dir=folder, idle_timeout=None, cache_dir=tmp_path / "cache")
    catalog = task_catalog(store, suites)
    task = catalog.get(task_id)
    episode = store.create(task.world, task.actor, task=task)
    run = catalog.start(task.id, episode=episode)
    catalog.engine.run_calls(run, task.oracle)
    if finish:
        store.finished(episode, catalog.finish(episode))
        store.delete(episode.id)
    return folder / f"{episode.id}.jsonl"


@pytest.mark.parametrize("task_id", ["approval-12", "po-arrives", "ask-discount"])
def test_the_recording_replays_with_its_reactions_and_regrades_the_same(tmp_path, suites, task_id):
    path = _record(tmp_path, suites, task_id)
    file = read(path)
    assert any(s.surface in ("npc", "event") or s.operation == "ask_user" for s in file.steps)
    store = EpisodeStore(trajectory_dir=None, idle_timeout=None, cache_dir=tmp_path / "cache")
    catalog = task_catalog(store, suites)
    done = replay(file, store, catalog)
    assert done.ok, "\n".join(d.describe() for d in done.divergences)
    again = regrade(file, store, catalog)
    assert (again.before, again.after, again.error) == (1.0, 1.0, None)


def test_a_reaction_the_world_would_not_make_again_is_reported(tmp_path, suites):
    path = _record(tmp_path, suites, "approval-12")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    reply = next(r for r in lines if r.get("surface") == "npc" and r["operation"] == "reply")
    reply["arguments"]["body"] = "Approved: 50% is fine."
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    store = EpisodeStore(trajectory_dir=None, idle_timeout=None, cache_dir=tmp_path / "cache")
    done = replay(read(path), store, task_catalog(store, suites))
    assert [d.step for d in done.divergences] == [reply["index"]]
    assert "reaction differs" in done.divergences[0].reason


def test_an_unfinished_episode_resumes_with_its_queue(tmp_path, suites):
    path = _record(tmp_path, suites, "approval-12", finish=False)
    recorded = read(path)
    store = EpisodeStore(trajectory_dir=path.parent, idle_timeout=None, cache_dir=tmp_path / "cache")
    catalog = task_catalog(store, suites)
    [result] = resume(store, catalog)
    assert result.status == "resumed" and not result.divergences, result.describe()
    episode = store.get(recorded.header.episode)
    assert len(episode.trajectory) == len(recorded.steps) and episode.events.observed == len(recorded.steps)
    # Ask again: the co-worker answers the resumed episode as she would have the first.
    send, wait = catalog.engine.operations["mail.send"], catalog.engine.operations["task.wait"]
    invoke(episode, send, {"to": ["dana@small.test"], "subject": "again", "body": "And 14%?"}, "python")
    invoke(episode, wait, {"for_event": True}, "python")
    assert episode.trajectory[-1].surface == "npc" and "14%" in episode.trajectory[-1].arguments["body"]


def test_a_user_who_now_answers_otherwise_is_the_first_divergence(tmp_path, suites):
    path = _record(tmp_path, suites, "ask-discount")
    task = yaml.safe_load((suites / "people" / "ask-discount.yaml").read_text())
    task["user"]["facts"][0]["answer"] = "We agreed 12%."
    (suites / "people" / "ask-discount.yaml").write_text(yaml.safe_dump(task))
    store = EpisodeStore(trajectory_dir=None, idle_timeout=None, cache_dir=tmp_path / "cache")
    done = replay(read(path), store, task_catalog(store, suites))
    asked = next(s for s in read(path).steps if s.operation == "ask_user")
    assert done.divergences[0].step == asked.index and done.divergences[0].reason == "the result differs"


def test_an_answer_that_asked_and_went_on_replays_and_regrades_the_same(tmp_path, suites):
    store = EpisodeStore(trajectory_dir=tmp_path / "trajectories", idle_timeout=None, cache_dir=tmp_path / "cache")
    catalog = task_catalog(store, suites)
    task = catalog.get("ask-discount")
    episode = store.create(task.world, task.actor, task=task)
    catalog.start(task.id, episode=episode)
    ops = catalog.engine.operations
    invoke(episode, ops["task.submit_answer"], {"answer": "Which discount?", "status": "needs_input"}, "python")
    invoke(episode, ops["mail.send"], {"to": ["sam@globex.example"], "subject": "Globex", "body": "It is 15%."}, "python")
    invoke(episode, ops["task.submit_answer"], {"answer": "Done."}, "python")
    store.finished(episode, catalog.finish(episode))
    store.delete(episode.id)
    file = read(tmp_path / "trajectories" / f"{episode.id}.jsonl")
    assert file.steps[-3].result["reply"] == "We agreed 15% with Sam." and file.footer.passed
    replayed = EpisodeStore(trajectory_dir=None, idle_timeout=None, cache_dir=tmp_path / "cache")
    again = regrade(file, replayed, task_catalog(replayed, suites))
    assert (again.before, again.after, again.divergences, again.error) == (1.0, 1.0, 0, None)
