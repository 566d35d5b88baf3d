"""CRM families: what the world's own mail holds is no part of the work done."""

from __future__ import annotations

import family_runs as runs

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog


def test_an_older_mail_naming_the_rate_is_not_the_ask_for_approval():
    # generated-legal-s-3's second discount desk: the acting person once mailed the approver another customer's
    # request at the same rate; the ask must name this customer
    catalog = task_catalog(EpisodeStore(), corpus="generated-legal-s-3:2")
    tasks = catalog.select(family="crm-discount-desk")
    assert len(tasks) == 2
    for task in tasks:
        assert runs.already_done(catalog, task) == [], task.id
        assert runs.reward(catalog, task, task.oracle).passed
