"""Sales families: the wrong ways to do the work the families are about earn no pass (on acme)."""

from __future__ import annotations

import family_runs as runs


def test_deleting_a_duplicate_before_moving_its_contacts_fails(catalog):
    task = runs.first_task(catalog, "sales-dedupe-accounts")
    calls = [c for c in task.oracle if c.op != "crm.update_contact"]
    reward = runs.reward(catalog, task, calls)
    assert not reward.passed
    assert any(c["id"].startswith("contact_") and c["status"] == "fail" for c in reward.model_dump()["criteria"])


def test_a_handover_that_tells_no_customer_fails(catalog):
    task = runs.first_task(catalog, "sales-book-handover")
    reward = runs.reward(catalog, task, [c for c in task.oracle if c.op != "mail.send"])
    assert not reward.passed
    failed = {c["id"] for c in reward.model_dump()["criteria"] if c["status"] == "fail"}
    assert failed and all(i.startswith("told_") for i in failed)


def test_routing_leads_without_marking_them_worked_fails(catalog):
    task = runs.first_task(catalog, "sales-lead-routing")
    calls = [c.model_copy(update={"args": {k: v for k, v in c.args.items() if k != "status"}})
             if c.op == "crm.update_lead" else c for c in task.oracle]
    assert not runs.reward(catalog, task, calls).passed


def test_a_task_for_a_commitment_we_withdrew_is_caught(catalog):
    task = runs.first_task(catalog, "sales-meeting-followups")
    extra = next(c for c in task.oracle if c.op == "crm.create_task")
    extra = extra.model_copy(update={"args": {**extra.args, "subject": "Send the withdrawn item"}})
    reward = runs.reward(catalog, task, [*task.oracle, extra])
    assert not reward.passed
