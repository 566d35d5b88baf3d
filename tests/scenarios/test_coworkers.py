"""Co-worker families on acme: the shortcuts around the co-worker (booking without asking, on a day they are
away; passing a draft on before the review; chasing too soon) earn no pass, and the co-worker answers what
was actually sent (a view-only draft gets its changes by mail, an unshared one a request for access); a discount
above the manager's limit needs both the head's and the manager's word."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import family_runs as runs
import pytest

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from tasks.model import Call


@pytest.fixture(scope="module")
def catalog():
    """Four tasks a family on acme: the discount sign-off writes its two-person chain on odd numbers."""
    return task_catalog(EpisodeStore(), corpus="acme:4")


def _run(catalog, task, calls):
    run = catalog.start(task.id)
    catalog.engine.run_calls(run, calls)
    return run.episode, catalog.finish(run.episode)


def _status(reward) -> dict[str, str]:
    return {c.id: c.status for c in reward.criteria}


def _npc_replies(episode, who: str) -> list[str]:
    return [s.arguments.get("body", "") for s in episode.trajectory
            if s.surface == "npc" and s.actor == who and s.operation == "reply" and s.error is None]


def test_booking_the_right_hour_without_asking_breaks_the_guard(catalog):
    task = runs.first_task(catalog, "cw-meeting-by-mail")
    calls = [c for c in task.oracle if c.op not in ("mail.send", "mail.search")]
    calls = calls[1:]   # the wait for an answer that was never asked for
    episode, reward = _run(catalog, task, calls)
    assert reward.total == 0.0 and _status(reward)["asked_first"] == "fail"
    assert _status(reward)["booked"] == "pass"   # the hour was right: only the order is wrong


def test_booking_on_a_day_they_said_they_are_away_fails(catalog):
    task = runs.first_task(catalog, "cw-meeting-by-mail")
    reply = task.npcs[0].mail[0].reply or ""
    away = re.search(r"on \w+ (\w+ \d+) and", reply)
    assert away, reply
    booking = next(c for c in task.oracle if c.op == "calendar.create_event")
    start = datetime.fromisoformat(booking.args["start"])
    day = datetime.strptime(f"{away.group(1)} {start.year}", "%B %d %Y").replace(hour=start.hour)
    moved = booking.model_copy(update={"args": {**booking.args, "start": day.isoformat(),
                                                "end": (day + timedelta(hours=1)).isoformat()}})
    episode, reward = _run(catalog, task, [moved if c is booking else c for c in task.oracle])
    assert not reward.passed and _status(reward)["booked"] == "fail"
    assert _status(reward)["accepted"] == "pass"   # their calendar was free: only what they said rules it out


def test_the_oracle_waits_for_the_answer_and_the_acceptance(catalog):
    task = runs.first_task(catalog, "cw-meeting-by-mail")
    other = task.npcs[0].email
    episode, reward = _run(catalog, task, task.oracle)
    assert reward.total == 1.0
    assert _npc_replies(episode, other)
    assert any(s.surface == "npc" and s.actor == other and s.operation == "respond" for s in episode.trajectory)


def _review(catalog):
    task = runs.first_task(catalog, "cw-review-returned")
    return task, task.npcs[0].email


def test_passing_the_draft_on_before_the_review_breaks_the_guard(catalog):
    task, boss = _review(catalog)
    onward = [c for c in task.oracle if c.op in ("docs.share", "mail.send") and boss not in str(c.args)]
    rest = [c for c in task.oracle if c not in onward]
    episode, reward = _run(catalog, task, [*onward, *rest])
    assert reward.total == 0.0 and _status(reward)["after_review"] == "fail"


def test_a_reviewer_who_can_only_view_sends_the_changes_by_mail(catalog):
    task, boss = _review(catalog)
    calls = [c.model_copy(update={"args": {**c.args, "role": "viewer"}})
             if c.op == "docs.share" and c.args.get("email") == boss else c for c in task.oracle]
    episode, reward = _run(catalog, task, calls)
    replies = _npc_replies(episode, boss)
    changes = [c.comment for c in task.npcs[0].mail[0].review.changes]
    assert replies and all(change in replies[0] for change in changes)
    assert _status(reward)["revised"] == "pass" and _status(reward)["reviewer_comments"] == "fail"


def test_an_unshared_draft_gets_a_request_for_access_and_no_review(catalog):
    task, boss = _review(catalog)
    calls = [c for c in task.oracle if not (c.op == "docs.share" and c.args.get("email") == boss)]
    episode, reward = _run(catalog, task, calls)
    assert "can't open" in _npc_replies(episode, boss)[0]
    assert reward.total == 0.0 and _status(reward)["after_review"] == "fail"


def test_the_reviewer_comments_on_each_passage_once_and_is_done_when_fixed(catalog):
    task, boss = _review(catalog)
    episode, reward = _run(catalog, task, [*task.oracle, Call.model_validate(
        {"op": "mail.send", "args": {"to": [boss], "subject": "Proposal", "body": "Could you look over it again?"}}),
        Call.model_validate({"op": "task.wait", "args": {"for_event": True}})])
    comments = [s for s in episode.trajectory if s.actor == boss and s.operation == "add_comment"]
    assert len(comments) == len(task.npcs[0].mail[0].review.changes)
    assert _npc_replies(episode, boss)[-1].startswith("Looks good now")


def test_a_reminder_sent_too_soon_goes_unanswered(catalog):
    task = runs.first_task(catalog, "cw-chase-silence")
    lead = task.npcs[0].email
    calls = [c for c in task.oracle if not (c.op == "task.wait" and "seconds" in c.args)]
    episode, reward = _run(catalog, task, calls)
    assert not _npc_replies(episode, lead)
    assert not reward.passed and _status(reward)["answered"] == "fail"


def test_a_chased_lead_answers_once_with_the_number(catalog):
    task = runs.first_task(catalog, "cw-chase-silence")
    lead = task.npcs[0].email
    episode, reward = _run(catalog, task, task.oracle)
    replies = _npc_replies(episode, lead)
    assert reward.total == 1.0 and len(replies) == 1
    cell = next(c for c in task.oracle if c.op == "docs.update_cells").args["cells"]
    assert str(next(iter(cell.values()))) in replies[0]


def _signoffs(catalog) -> list:
    return catalog.select(family="cw-discount-signoff")


def test_answering_the_customer_before_the_sign_off_breaks_the_guard(catalog):
    task = _signoffs(catalog)[0]
    reply = next(c for c in task.oracle if c.op == "mail.reply")
    early = [reply, *[c for c in task.oracle if c is not reply]]
    episode, reward = _run(catalog, task, early)
    assert reward.total == 0.0 and _status(reward)["answered_first_0"] == "fail"


def test_above_the_managers_limit_the_head_and_the_manager_both_sign(catalog):
    chains = [t for t in _signoffs(catalog) if len(t.npcs) == 2 and "repriced" in {c.id for c in t.criteria}]
    assert chains, "acme:4 writes an approved chain (numbers 1 and 3 are chains)"
    task = chains[0]
    manager = task.npcs[1].email
    only_head = [c for c in task.oracle if not (c.op == "mail.send" and manager in c.args["to"])]
    episode, reward = _run(catalog, task, only_head)
    assert not reward.passed and _status(reward)["asked_1"] == "fail"
    assert _status(reward)["answered_first_1"] == "fail"


@pytest.mark.parametrize("family", ["cw-meeting-by-mail", "cw-chase-silence", "cw-review-returned",
                                    "cw-discount-signoff"])
def test_the_world_does_not_already_hold_the_ask_or_the_answer(catalog, family):
    # acme's own mail has Dana writing to colleagues about plans, times and drafts, and leads mailing her: none is
    # the ask for an hour (what the colleague answers), the lead's figure, nor the ask to review or the word that
    # this customer's proposal is ready
    for task in catalog.select(family=family):
        assert runs.already_done(catalog, task) == [], task.id
