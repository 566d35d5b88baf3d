"""Accounts, contacts, cases and activities over REST: creation, validation, links and sharing."""

from crm_factories import error, find, ok, start
from surfaces import call


def test_an_account_shows_its_contacts_opportunities_and_cases(api, world_dir):
    ep = start(api, world_dir)
    account = ok(call(api, ep, "crm", "get_account", account_id=find(api, ep, "Account", name="Globex")))
    assert {c["name"] for c in account["contacts"]} == {"Sam Ortiz", "Lin Park"}
    assert [o["name"] for o in account["opportunities"]] == ["Globex - Renewal 2026"]
    assert {c["subject"] for c in account["cases"]} == {"Dashboard outage", "Wrong invoice"}
    assert account["billing_address"]["city"] == "Boston" and account["owner"] == "ravi@small.test"


def test_creating_an_account_and_a_contact_defaults_owners_sensibly(api, world_dir):
    ep = start(api, world_dir, "mei@small.test")
    account = ok(call(api, ep, "crm", "create_account", name="Vandelay", type="Prospect", owner="ravi@small.test",
                      employees=12, billing_city="New York"))
    assert (account["owner"], account["created_by"]) == ("ravi@small.test", "mei@small.test")
    contact = ok(call(api, ep, "crm", "create_contact", last_name="Vandelay", first_name="Art",
                      account_id=account["id"], email="Art@Vandelay.example"))
    assert (contact["owner"], contact["email"], contact["account_name"]) == (
        "ravi@small.test", "art@vandelay.example", "Vandelay")


def test_account_validation_names_the_field(api, world_dir):
    ep = start(api, world_dir)
    assert error(call(api, ep, "crm", "create_account", name="  "), 422)["field"] == "name"
    assert error(call(api, ep, "crm", "create_account", name="X", annual_revenue=-5), 422)["field"] == "annual_revenue"
    assert error(call(api, ep, "crm", "create_account", name="X", type="Friend"), 422)["field"] == "type"
    assert error(call(api, ep, "crm", "create_account", name="X", owner="nobody@small.test"), 422)["field"] == "owner"
    assert error(call(api, ep, "crm", "create_account", name="X", parent_id=999), 404)["field"] == "parent_id"
    globex, europe = find(api, ep, "Account", name="Globex"), find(api, ep, "Account", name="Globex Europe")
    circle = error(call(api, ep, "crm", "update_account", account_id=globex, parent_id=europe), 422)
    assert circle["field"] == "parent_id" and "own parent" in circle["message"]


def test_contact_reporting_lines_cannot_loop(api, world_dir):
    ep = start(api, world_dir)
    sam = find(api, ep, "Contact", email="sam@globex.example")
    lin = find(api, ep, "Contact", email="lin@globex.example")
    assert ok(call(api, ep, "crm", "get_contact", contact_id=lin))["reports_to_name"] == "Sam Ortiz"
    assert error(call(api, ep, "crm", "update_contact", contact_id=sam, reports_to_id=lin), 422)["field"] \
        == "reports_to_id"
    assert error(call(api, ep, "crm", "update_contact", contact_id=sam, email="not-mail"), 422)["field"] == "email"


def test_a_peer_cannot_edit_but_the_manager_can(api, world_dir):
    as_mei = start(api, world_dir, "mei@small.test")
    globex = find(api, as_mei, "Account", name="Globex")
    refused = error(call(api, as_mei, "crm", "update_account", account_id=globex, industry="Retail"), 403)
    assert refused["type"] == "forbidden" and "ravi@small.test" in refused["message"]
    as_dana = start(api, world_dir)
    assert ok(call(api, as_dana, "crm", "update_account", account_id=globex, industry="Retail"))["industry"] == "Retail"
    assert ok(call(api, as_mei, "crm", "get_account", account_id=globex))["industry"] == "Logistics"


def test_cases_take_the_contacts_account_and_record_when_they_close(api, world_dir):
    ep = start(api, world_dir, "mei@small.test")
    peter = find(api, ep, "Contact", email="peter@initech.example")
    case = ok(call(api, ep, "crm", "create_case", subject="Export fails", contact_id=peter, priority="Critical",
                   origin="Phone"))
    assert (case["account_name"], case["status"], case["closed_at"]) == ("Initech", "New", None)
    globex = find(api, ep, "Account", name="Globex")
    wrong = error(call(api, ep, "crm", "create_case", subject="x", account_id=globex, contact_id=peter), 422)
    assert wrong["field"] == "contact_id"
    closed = ok(call(api, ep, "crm", "update_case", case_id=case["id"], status="Closed"))
    assert closed["is_closed"] and closed["closed_at"] is not None
    assert error(call(api, ep, "crm", "update_case", case_id=case["id"], priority="Urgent"), 422)["field"] == "priority"


def test_case_edits_follow_ownership(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    outage = find(api, ep, "Case", subject="Dashboard outage")
    error(call(api, ep, "crm", "update_case", case_id=outage, status="Escalated"), 403)
    as_mei = start(api, world_dir, "mei@small.test")
    assert ok(call(api, as_mei, "crm", "update_case", case_id=outage, status="Escalated"))["status"] == "Escalated"


def test_tasks_events_and_notes_attach_to_records(api, world_dir):
    ep = start(api, world_dir, "mei@small.test")
    opp = find(api, ep, "Opportunity", name="Globex - Renewal 2026")
    task = ok(call(api, ep, "crm", "create_task", subject="Send security questionnaire", related_object="Opportunity",
                   related_id=opp, due_date="2026-03-25"))
    ok(call(api, ep, "crm", "add_note", related_object="Opportunity", related_id=opp, title="Legal", body="MSA ok"))
    ok(call(api, ep, "crm", "create_event", subject="Security review", related_object="Opportunity",
            related_id=opp, start="2026-03-24T10:00:00-04:00", end="2026-03-24T11:00:00-04:00"))
    seen = ok(call(api, ep, "crm", "list_activities", related_object="Opportunity", related_id=opp))
    assert [t["subject"] for t in seen["tasks"]] == ["Call Sam about pricing", "Send security questionnaire"]
    assert [n["title"] for n in seen["notes"]] == ["Pricing", "Legal"]
    assert seen["events"][0]["start"] == "2026-03-24T14:00:00Z"
    done = ok(call(api, ep, "crm", "update_task", task_id=task["id"], status="Completed"))
    assert done["completed_at"] is not None
    assert error(call(api, ep, "crm", "update_task", task_id=seen["tasks"][0]["id"], status="Completed"), 403)


def test_activity_arguments_are_checked(api, world_dir):
    ep = start(api, world_dir)
    assert error(call(api, ep, "crm", "create_task", subject="x", related_object="Case", related_id=999), 404)[
        "field"] == "related_id"
    assert error(call(api, ep, "crm", "create_task", subject="x", related_object="Case"), 422)["field"] == "related_id"
    backwards = call(api, ep, "crm", "create_event", subject="x", start="2026-03-24T11:00:00Z",
                     end="2026-03-24T10:00:00Z")
    assert error(backwards, 422)["field"] == "end"
    naive = call(api, ep, "crm", "create_event", subject="x", start="2026-03-24T10:00:00", end="2026-03-24T11:00:00Z")
    assert error(naive, 422)["field"] == "start"
