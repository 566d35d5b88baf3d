"""The user who holds back: ``task.ask_user`` answered by rule from the task's ``user:`` facts."""

from __future__ import annotations

from pathlib import Path

import pytest
from people_factories import SAM, approval_task, ask_task
from task_factories import write_task

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from tasks.model import Call


@pytest.fixture
def catalog(task_store: EpisodeStore, small_world: Path, tmp_path: Path):
    root = tmp_path / "ask-suites"
    write_task(root, "people", ask_task(small_world))
    write_task(root, "people", approval_task(small_world))
    return task_catalog(task_store, root)


def _attempt(catalog, task_id: str, calls: list):
    run = catalog.start(task_id)
    steps = catalog.engine.run_calls(run, [c if isinstance(c, Call) else Call.model_validate(c) for c in calls])
    return steps, catalog.finish(run.episode)


ASK = {"op": "task.ask_user", "args": {"question": "Which discount was agreed?"}}


def _send(body: str) -> dict:
    return {"op": "mail.send", "args": {"to": [SAM], "subject": "Globex", "body": body}}


def test_the_user_answers_from_the_facts_and_the_oracle_passes(catalog):
    steps, reward = _attempt(catalog, "ask-discount", catalog.get("ask-discount").oracle)
    assert steps[0].result == {"question": "What discount did we agree for Globex?", "answer": "We agreed 15% with Sam."}
    assert reward.passed and reward.total == 1.0


def test_guessing_without_asking_and_asking_without_using_the_answer_both_fail(catalog):
    _, guessed = _attempt(catalog, "ask-discount", [_send("Sam, the agreed discount is 15%.")])
    assert not guessed.passed and any(c.id == "asked_first" and c.status == "fail" for c in guessed.criteria)
    _, ignored = _attempt(catalog, "ask-discount", [ASK, _send("Sam, the agreed discount is 10%.")])
    assert not ignored.passed and ignored.total < 1.0


def test_questions_the_user_cannot_answer_and_too_many_questions(catalog):
    calls = [{"op": "task.ask_user", "args": {"question": "What is your favourite colour?"}},
             *[{"op": "task.ask_user", "args": {"question": "When is it due?"}}] * 5]
    steps, _ = _attempt(catalog, "ask-discount", calls)
    answers = [s.result["answer"] for s in steps]
    assert answers[0] == "I don't know more than what I told you."
    assert answers[1:5] == ["By Friday."] * 4 and answers[5] == "Please go ahead with what you have."


def test_in_a_task_without_a_user_nobody_answers(catalog):
    steps, _ = _attempt(catalog, "approval-12", [ASK])
    assert steps[0].error is None and steps[0].result == {"question": ASK["args"]["question"], "answer": None}
    empty, _ = _attempt(catalog, "ask-discount", [{"op": "task.ask_user", "args": {"question": "  "}}])
    assert empty[0].error["field"] == "question"


HOLD_ON = {"op": "task.submit_answer", "args": {"answer": "Which discount did we agree?", "status": "needs_input"}}


def test_an_answer_that_asks_gets_the_users_reply_and_the_episode_goes_on(catalog):
    steps, reward = _attempt(catalog, "ask-discount", [HOLD_ON, _send("Sam, the agreed discount is 15%."),
                                                       {"op": "task.submit_answer", "args": {"answer": "Told Sam."}}])
    assert steps[0].result == {"received": True, "status": "needs_input", "reply": "We agreed 15% with Sam."}
    assert [s.error for s in steps[1:]] == [None, None]
    assert reward.passed and reward.total == 1.0   # asked_first counts the question the answer asked


def test_an_answer_that_asks_and_then_nothing_fails_and_without_a_user_it_ends_the_episode(catalog):
    _, held = _attempt(catalog, "ask-discount", [HOLD_ON])
    assert not held.passed and any(c.id == "outcome" and c.status == "fail" for c in held.criteria)
    steps, _ = _attempt(catalog, "approval-12", [HOLD_ON, _send("Sam, 12% it is.")])
    assert steps[0].result == {"received": True, "status": "needs_input", "reply": None}
    assert steps[1].error is not None and steps[1].error["type"] == "conflict"   # over: no more writes


def test_questions_by_answer_and_by_ask_user_count_together(catalog):
    steps, _ = _attempt(catalog, "ask-discount", [*[HOLD_ON] * 5, ASK])
    assert [s.result["reply"] for s in steps[:5]] == ["We agreed 15% with Sam."] * 5
    assert steps[5].result["answer"] == "Please go ahead with what you have."
