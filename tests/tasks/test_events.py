"""Time that moves and co-workers who answer: events, waits and rule-based NPCs through the task engine."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from people_factories import DANA, MEI, SAM, approval_task, po_task
from task_factories import write_task

from apps.kit.errors import Invalid
from apps.kit.invoker import invoke
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from tasks.model import Call


@pytest.fixture
def people_catalog(task_store: EpisodeStore, small_world: Path, tmp_path: Path):
    root = tmp_path / "people-suites"
    for task in (approval_task(small_world, 12), approval_task(small_world, 20), po_task(small_world)):
        write_task(root, "people", task)
    return task_catalog(task_store, root)


def _run(catalog, task_id: str, calls: list[dict] | None = None):
    run = catalog.start(task_id)
    task = catalog.get(task_id)
    steps = catalog.engine.run_calls(run, [Call.model_validate(c) for c in calls] if calls else task.oracle)
    return run, steps


def _reactions(run, surface: str):
    return [s for s in run.episode.trajectory if s.surface == surface]


def test_the_npc_answers_after_a_seeded_delay_and_decides_by_the_limit(people_catalog):
    run, steps = _run(people_catalog, "approval-12")
    sent, waited = steps[0], steps[1]
    replies = [s for s in _reactions(run, "npc") if s.operation == "reply"]
    assert len(replies) == 1 and replies[0].error is None
    reply = replies[0]
    assert reply.actor == DANA and reply.cause == f"step {sent.index}: rule discount"
    assert "Approved: 12% is fine" in reply.arguments["body"]
    delay = reply.virtual_time - sent.virtual_time
    assert timedelta(seconds=600) <= delay <= timedelta(seconds=3600)
    # The wait stopped at the reply, and the agent's next step comes after it.
    assert datetime.fromisoformat(waited.result["now"]) == reply.virtual_time
    assert waited.result["events_due"] == 1 and steps[2].virtual_time >= reply.virtual_time
    assert steps[2].result["total"] == 1   # the search for Dana's approval finds it
    assert people_catalog.finish(run.episode).passed
    refused, _ = _run(people_catalog, "approval-20")
    body = [s for s in _reactions(refused, "npc") if s.operation == "reply"][0].arguments["body"]
    assert body.startswith("No, 20% is over my 15% limit.")


def test_nothing_is_answered_before_its_time_and_nothing_all_at_once(people_catalog):
    run = people_catalog.start("approval-12")
    send = people_catalog.engine.operations["mail.send"]
    for n in range(3):
        invoke(run.episode, send, {"to": [DANA], "subject": f"q{n}", "body": f"Is {n + 10}% fine?"}, "python")
    assert not _reactions(run, "npc")   # a few ticks later: no reply yet
    times = sorted(at for at, _ in run.episode.events.pending())
    assert len(times) == 3 and len(set(times)) == 3
    wait = people_catalog.engine.operations["task.wait"]
    invoke(run.episode, wait, {"seconds": 4000}, "python")
    replies = [s for s in _reactions(run, "npc") if s.operation == "reply"]
    assert [s.virtual_time for s in replies] == times and not run.episode.events.pending()


def test_a_timed_event_arrives_when_waited_for_and_a_condition_fires_once(people_catalog):
    run, steps = _run(people_catalog, "po-arrives")
    events = _reactions(run, "event")
    arrived = [s for s in events if s.cause == "event sam-sends-po"]
    assert len(arrived) == 1 and arrived[0].actor == SAM and arrived[0].error is None
    start = run.episode.trajectory[run.agent_from].virtual_time
    assert arrived[0].virtual_time == start + timedelta(seconds=3600)
    assert datetime.fromisoformat(steps[0].result["now"]) == arrived[0].virtual_time
    # Forwarding to Mei made the condition true: her thanks came right after, once.
    thanks = [s for s in events if s.cause == "event mei-thanks"]
    assert len(thanks) == 1 and thanks[0].actor == MEI and thanks[0].virtual_time == steps[1].virtual_time
    # The nudge at two hours is guarded by "nobody forwarded it": it does not happen.
    wait = people_catalog.engine.operations["task.wait"]
    invoke(run.episode, wait, {"seconds": 7200}, "python")
    assert not [s for s in _reactions(run, "event") if s.cause == "event nudge"]
    assert people_catalog.finish(run.episode).passed


def test_the_guarded_event_happens_when_its_guard_holds(people_catalog):
    run, _ = _run(people_catalog, "po-arrives", [{"op": "task.wait", "args": {"seconds": 8000}}])
    nudges = [s for s in _reactions(run, "event") if s.cause == "event nudge"]
    assert len(nudges) == 1 and nudges[0].actor == DANA
    assert not people_catalog.finish(run.episode).passed


def test_two_runs_of_the_same_actions_give_the_same_world_and_trajectory(people_catalog):
    def once():
        run, _ = _run(people_catalog, "approval-12")
        steps = [s.model_dump(exclude={"wall_time", "duration_ms"}) for s in run.episode.trajectory]
        return run.episode.digest(), steps
    assert once() == once()


def test_fork_and_snapshot_carry_what_is_due(people_catalog):
    run, _ = _run(people_catalog, "approval-12", [{"op": "mail.send", "args": {
        "to": [DANA], "subject": "Globex discount", "body": "Is 12% fine?"}}])
    episode = run.episode
    assert len(episode.events.pending()) == 1
    snapshot = episode.snapshot()
    child = episode.fork("child")
    wait = people_catalog.engine.operations["task.wait"]
    invoke(child, wait, {"for_event": True}, "python")
    assert len(_reactions_of(child)) == 2 and not child.events.pending()   # search and reply
    assert not _reactions_of(episode) and len(episode.events.pending()) == 1
    invoke(episode, wait, {"for_event": True}, "python")
    assert child.digest() == episode.digest()
    episode.restore(snapshot)
    assert len(episode.events.pending()) == 1
    invoke(episode, wait, {"for_event": True}, "python")
    assert episode.digest() == child.digest()


def _reactions_of(episode):
    return [s for s in episode.trajectory if s.surface == "npc"]


def test_an_npc_that_cannot_answer_records_why(people_catalog):
    run = people_catalog.start("approval-12")
    ops = people_catalog.engine.operations
    sent = invoke(run.episode, ops["mail.send"], {"to": [DANA], "subject": "x", "body": "Is 12% fine?"}, "python")
    found = invoke(run.episode, ops["mail.search"], {"query": "rfc822msgid:" + sent.result["message_id"]}, "python",
                   actor=DANA)
    # Dana's mail is deleted under her (as her: no agent operation acts as someone else)
    for op in ("mail.trash", "mail.delete_forever"):
        invoke(run.episode, ops[op], {"message_ids": [found.result["messages"][0]["id"]]}, "python", actor=DANA)
    invoke(run.episode, ops["task.wait"], {"for_event": True}, "python")
    failed = [s for s in _reactions_of(run.episode) if s.error is not None]
    assert len(failed) == 1 and "no longer in their mailbox" in failed[0].error["message"]
    assert failed[0].actor == DANA and failed[0].cause.startswith(f"step {sent.index}")


def test_a_task_whose_npc_is_not_a_person_of_the_world_does_not_start(task_store, small_world, tmp_path):
    task = approval_task(small_world)
    task["npcs"] = [{**task["npcs"][0], "email": "ghost@small.test"}]
    write_task(tmp_path / "bad", "people", task)
    catalog = task_catalog(task_store, tmp_path / "bad")
    with pytest.raises(Invalid, match="NPCs must be people of the world"):
        catalog.start(task["id"])


def test_acting_before_the_answer_came_fails_the_after_check(people_catalog):
    oracle = [c.model_dump(by_alias=True, exclude_none=True) for c in people_catalog.get("approval-12").oracle]
    hasty, _ = _run(people_catalog, "approval-12", [oracle[0], oracle[3]])
    reward = people_catalog.finish(hasty.episode)
    guard = next(c for c in reward.criteria if c.id == "after_approval")
    assert guard.status == "fail" and "never" in guard.message and not reward.passed
    early, _ = _run(people_catalog, "po-arrives", [{"op": "mail.send", "args": {
        "to": [MEI], "subject": "PO", "body": "Sam's PO number: 4471."}}, {"op": "task.wait", "args": {"seconds": 7000}}])
    assert not people_catalog.finish(early.episode).passed
