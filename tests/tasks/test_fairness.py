"""The fairness gates of ``tasks check`` (``tasks/qa/fairness.py``): a task whose answer only someone else can
read fails visibility; a task whose goal the world already meets fails not-already-done; a fair one fails neither."""

from __future__ import annotations

from task_factories import reply_task, write_task

from simulator.tasks.catalog import task_catalog
from tasks.qa.check import Checker


def hidden_task(world) -> dict:
    """Ravi asked Mei, not Dana, when the interview is: Dana cannot know."""
    return {"id": "hidden-day", "world": str(world), "outcome": "answer", "prompt": "When is the interview loop?",
            "bindings": {"ask": {"from": "mail.message", "where": {"owner": "mei@small.test", "rfc_id": "<h1@small.test>"}}},
            "criteria": [{"id": "day", "answer": {"type": "text", "expect": "Friday"}}],
            "oracle": [{"op": "mail.search", "args": {"query": "interview"}},
                       {"op": "task.submit_answer", "args": {"answer": "Friday"}}]}


def done_task(world) -> dict:
    """Reply to Sam's pricing mail: Dana already did, on March 10."""
    return {"id": "already-replied", "world": str(world), "prompt": "Reply to Sam's pricing question.",
            "criteria": [{"id": "replied", "records": {"from": "mail.message", "created": True,
                                                       "where": {"sender": "$actor", "in_reply_to": "<g1@globex.example>"}}}],
            "oracle": [{"op": "mail.search", "args": {"query": "from:sam"}},
                       {"op": "mail.reply", "args": {"message_id": 1, "body": "Sam, the quote is 184,000."}}]}


def _gates(catalog, task_id: str) -> list:
    checker = Checker(catalog.engine)
    result = checker.check_task(catalog.get(task_id))
    return [f for f in result.failures if f.gate in ("visibility", "not_already_done")]


def test_hidden_answers_and_work_already_done_are_found_and_fair_tasks_pass(tmp_path, small_world, task_store):
    suites = tmp_path / "fair"
    for task in (hidden_task(small_world), done_task(small_world), reply_task(small_world)):
        write_task(suites, "fair", task)
    catalog = task_catalog(task_store, suites)
    hidden = _gates(catalog, "hidden-day")
    assert {f.run for f in hidden} == {"binding ask", "answer day"}, hidden
    assert "cannot read mail.message" in next(f.evidence for f in hidden if f.run == "binding ask")
    done = _gates(catalog, "already-replied")
    assert [f.run for f in done] == ["goal replied"] and "already meets it" in done[0].evidence
    assert _gates(catalog, "reply-sam") == []
