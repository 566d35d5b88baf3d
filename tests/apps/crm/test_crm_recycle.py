"""Delete, the recycle bin and restore, with Salesforce's rules for an account, over REST."""

from crm_factories import error, find, ok, start
from surfaces import call


def count(api, ep, soql):
    return ok(call(api, ep, "crm", "query", soql=soql))["matching"]


def test_deleting_an_account_takes_its_records_and_restore_brings_them_back(api, world_dir):
    ep = start(api, world_dir)  # Dana, above every owner
    globex, europe = find(api, ep, "Account", name="Globex"), find(api, ep, "Account", name="Globex Europe")
    sam = find(api, ep, "Contact", email="sam@globex.example")
    deleted = ok(call(api, ep, "crm", "delete_record", object="Account", record_id=globex))
    kinds = sorted({r["object"] for r in deleted["deleted_with_it"]})
    assert kinds == ["Case", "Contact", "Event", "Note", "Opportunity", "Task"]
    assert count(api, ep, "SELECT COUNT() FROM Contact WHERE account_id = %d" % globex) == 0
    assert count(api, ep, "SELECT COUNT() FROM Case") == 1
    assert ok(call(api, ep, "crm", "get_account", account_id=europe))["parent_id"] is None
    error(call(api, ep, "crm", "get_contact", contact_id=sam), 404)
    bin_ = ok(call(api, ep, "crm", "list_recycle_bin"))
    assert [(r["object"], r["id"]) for r in bin_] == [("Account", globex)]

    alone = error(call(api, ep, "crm", "restore_record", object="Contact", record_id=sam), 409)
    assert "deleted with account" in alone["message"]
    ok(call(api, ep, "crm", "restore_record", object="Account", record_id=globex))
    assert ok(call(api, ep, "crm", "get_contact", contact_id=sam))["last_name"] == "Ortiz"
    assert count(api, ep, "SELECT COUNT() FROM Case") == 3
    assert ok(call(api, ep, "crm", "get_account", account_id=europe))["parent_id"] == globex
    opp = find(api, ep, "Opportunity", name="Globex - Renewal 2026")
    assert [n["title"] for n in ok(call(api, ep, "crm", "list_activities", related_object="Opportunity",
                                         related_id=opp))["notes"]] == ["Pricing"]
    assert ok(call(api, ep, "crm", "list_recycle_bin")) == []


def test_an_account_with_someone_elses_case_cannot_be_deleted_by_its_owner(api, world_dir):
    ep = start(api, world_dir, actor="ravi@small.test")
    globex = find(api, ep, "Account", name="Globex")
    refused = error(call(api, ep, "crm", "delete_record", object="Account", record_id=globex), 403)
    assert "Dashboard outage" in refused["message"] and "mei@small.test" in refused["message"]
    assert count(api, ep, "SELECT COUNT() FROM Account") == 3


def test_a_child_waits_for_its_account_and_only_editors_delete(api, world_dir):
    ep = start(api, world_dir)
    initech = find(api, ep, "Account", name="Initech")
    peter = find(api, ep, "Contact", email="peter@initech.example")
    ok(call(api, ep, "crm", "delete_record", object="Contact", record_id=peter))
    ok(call(api, ep, "crm", "delete_record", object="Account", record_id=initech))
    waiting = error(call(api, ep, "crm", "restore_record", object="Contact", record_id=peter), 409)
    assert "restore the account first" in waiting["message"]
    ok(call(api, ep, "crm", "restore_record", object="Account", record_id=initech))
    ok(call(api, ep, "crm", "restore_record", object="Contact", record_id=peter))
    assert ok(call(api, ep, "crm", "get_contact", contact_id=peter))["account_id"] == initech
    ravi = start(api, world_dir, actor="ravi@small.test")
    error(call(api, ravi, "crm", "delete_record", object="Account", record_id=initech), 403)
    missing = error(call(api, ravi, "crm", "restore_record", object="Lead", record_id=999), 404)
    assert missing["field"] == "record_id"


def test_activities_on_contacts_and_opportunities_show_on_the_account(api, world_dir):
    ep = start(api, world_dir)
    globex = find(api, ep, "Account", name="Globex")
    sam = find(api, ep, "Contact", email="sam@globex.example")
    ok(call(api, ep, "crm", "create_task", subject="Send Sam the deck", related_object="Contact", related_id=sam))
    listed = ok(call(api, ep, "crm", "list_activities", related_object="Account", related_id=globex))
    assert {t["subject"] for t in listed["tasks"]} == {"Call Sam about pricing", "Send Sam the deck"}
    assert [e["subject"] for e in listed["events"]] == ["Globex QBR"]
    assert [n["title"] for n in listed["notes"]] == ["Pricing"]
    initech = find(api, ep, "Account", name="Initech")
    assert ok(call(api, ep, "crm", "list_activities", related_object="Account", related_id=initech))["tasks"] == []
