"""CRM families: what the world's own mail holds is no part of the work done."""

from __future__ import annotations

import re

import family_runs as runs
import pytest

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog


@pytest.fixture(scope="module")
def legal():
    return task_catalog(EpisodeStore(), corpus="generated-legal-s-3:2")


def test_an_older_mail_naming_the_rate_is_not_the_ask_for_approval(legal):
    # generated-legal-s-3's second discount desk: the acting person once mailed the approver another customer's
    # request at the same rate; the ask must name this customer
    tasks = legal.select(family="crm-discount-desk")
    assert len(tasks) == 2
    for task in tasks:
        assert runs.already_done(legal, task) == [], task.id
        assert runs.reward(legal, task, task.oracle).passed


def test_an_ask_whose_subject_names_another_rate_is_not_the_ask(legal):
    task = next(t for t in legal.select(family="crm-discount-desk") if any(c.id == "asked_approver" for c in t.criteria))
    rate = int(re.search(r"(\d+)%", task.title).group(1))
    calls = [c.model_copy(update={"args": {**c.args, "subject": c.args["subject"].replace(f"{rate}%", f"{rate + 1}%")}})
             if c.op == "mail.send" else c for c in task.oracle]
    assert calls != task.oracle
    reward = runs.reward(legal, task, calls)
    assert {c.id: c.status for c in reward.criteria}["asked_approver"] == "fail"
