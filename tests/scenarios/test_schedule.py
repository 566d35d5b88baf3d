"""Schedule families: the wrong ways to do the work the families are about earn no pass (on acme)."""

from __future__ import annotations

import family_runs as runs
import pytest

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog


@pytest.mark.parametrize("scope", ["all", "this"])
def test_a_series_changed_for_all_weeks_or_one_fails(catalog, scope):
    task = runs.first_task(catalog, "sched-series-from-date")
    calls = [c.model_copy(update={"args": {**c.args, "scope": scope}}) if c.op == "calendar.move_event" else c
             for c in task.oracle]
    assert not runs.reward(catalog, task, calls).passed


def test_accepting_every_invitation_fails(catalog):
    task = runs.first_task(catalog, "sched-answer-invitations")
    calls = [c.model_copy(update={"args": {"event_id": c.args["event_id"], "response": "accepted"}})
             if c.op == "calendar.respond" else c for c in task.oracle]
    reward = runs.reward(catalog, task, calls)
    assert not reward.passed


def test_booking_instead_of_answering_breaks_the_guard(catalog):
    task = runs.first_task(catalog, "sched-next-free-hour")
    booking = {"op": "calendar.create_event", "args": {"title": "Sync", "start": "2026-03-30T10:00:00",
                                                       "end": "2026-03-30T11:00:00"}}
    # booked before the answer: after it, the world refuses the agent's writes (the final-answer rule)
    reward = runs.reward(catalog, task, [*task.oracle[:-1], type(task.oracle[0]).model_validate(booking), task.oracle[-1]])
    assert reward.total == 0.0


def test_an_older_mail_giving_the_same_reason_does_not_tell_the_team():
    # acme's eighth cancellation: Dana once mailed a colleague about a demo; the word of this cancellation names
    # the vendor (a cancel notice does, in its title)
    catalog = task_catalog(EpisodeStore(), corpus="acme:8")
    tasks = catalog.select(family="sched-cancel-with-reason")
    assert len(tasks) == 8
    for task in tasks:
        assert runs.already_done(catalog, task) == [], task.id
    assert runs.reward(catalog, tasks[-1], tasks[-1].oracle).passed
