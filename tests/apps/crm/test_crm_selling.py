"""Opportunities and leads over REST: stage rules, validation, field history, ownership, conversion."""

from crm_factories import error, find, ok, start
from surfaces import call


def test_a_new_stage_sets_its_default_probability_and_is_tracked_with_who_and_when(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    opp = find(api, ep, "Opportunity", name="Globex - Renewal 2026")
    moved = ok(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, stage="Negotiation", amount=190000))
    assert (moved["stage"], moved["probability"], moved["amount"]) == ("Negotiation", 80, 190000)
    changes = [(h["field"], h["old_value"], h["new_value"], h["changed_by"]) for h in moved["history"]]
    assert changes[-2:] == [("stage", "Proposal", "Negotiation", "ravi@small.test"),
                            ("amount", "184000.0", "190000.0", "ravi@small.test")]
    step = api.get(f"/v1/episodes/{ep['id']}/trajectory").json()["steps"][-1]
    assert moved["history"][-1]["changed_at"] == step["virtual_time"].replace("+00:00", "Z") != ep["now"]
    assert changes[1] == ("stage", "Qualification", "Proposal", "ravi@small.test")  # from the world's data


def test_an_explicit_probability_wins_over_the_stage_default(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    opp = find(api, ep, "Opportunity", name="Globex - Renewal 2026")
    moved = ok(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, stage="Value Proposition",
                    probability=42))
    assert moved["probability"] == 42


def test_every_opportunity_has_a_close_date_from_its_creation_on(api, world_dir):
    # Salesforce's CloseDate is a required field: no opportunity is saved without one, open or closed.
    ep = start(api, world_dir, "ravi@small.test")
    account = find(api, ep, "Account", name="Globex")
    missing = error(call(api, ep, "crm", "create_opportunity", account_id=account, name="X", stage="Prospecting"), 422)
    assert missing["field"] == "close_date"
    assert ok(call(api, ep, "crm", "query", soql="SELECT COUNT() FROM Opportunity WHERE name = 'X'"))["total_size"] == 0
    opp = find(api, ep, "Opportunity", name="Globex - Renewal 2026")
    cleared = error(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, close_date=""), 422)
    assert cleared["field"] == "close_date"
    assert ok(call(api, ep, "crm", "get_opportunity", opportunity_id=opp))["close_date"] == "2026-03-27"
    moved = ok(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, close_date="2026-04-30"))
    assert moved["close_date"] == "2026-04-30"
    assert ok(call(api, ep, "crm", "get_opportunity", opportunity_id=opp))["close_date"] == "2026-04-30"


def test_closing_rules_need_a_close_date_and_a_loss_reason(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    account = find(api, ep, "Account", name="Globex")
    no_date = error(call(api, ep, "crm", "create_opportunity", account_id=account, name="X", stage="Closed Won"), 422)
    assert no_date["field"] == "close_date"
    opp = find(api, ep, "Opportunity", name="Globex - Renewal 2026")
    no_reason = error(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, stage="Closed Lost"), 422)
    assert no_reason["field"] == "loss_reason"
    lost = ok(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, stage="Closed Lost",
                   loss_reason="Went with a competitor"))
    assert (lost["is_closed"], lost["is_won"], lost["probability"]) == (True, False, 0)


def test_bad_amounts_stages_and_probabilities_are_refused_naming_the_field(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    opp = find(api, ep, "Opportunity", name="Globex - Renewal 2026")
    assert error(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, amount=-1), 422)["field"] == "amount"
    assert error(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, stage="Won"), 422)["field"] == "stage"
    assert error(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, probability=120),
                 422)["field"] == "probability"
    assert error(call(api, ep, "crm", "update_opportunity", opportunity_id=9999, amount=1), 404)["field"] \
        == "opportunity_id"
    after = ok(call(api, ep, "crm", "get_opportunity", opportunity_id=opp))
    assert (after["amount"], after["stage"], after["probability"]) == (184000, "Proposal", 65)


def test_only_owners_and_their_managers_edit_but_everyone_reads(api, world_dir):
    as_ravi = start(api, world_dir, "ravi@small.test")
    theirs = find(api, as_ravi, "Opportunity", name="Initech - Expansion")
    assert ok(call(api, as_ravi, "crm", "get_opportunity", opportunity_id=theirs))["owner"] == "mei@small.test"
    refused = error(call(api, as_ravi, "crm", "update_opportunity", opportunity_id=theirs, amount=1), 403)
    assert "owned by mei@small.test" in refused["message"] and "dana@small.test" in refused["message"]
    as_dana = start(api, world_dir, "dana@small.test")
    assert ok(call(api, as_dana, "crm", "update_opportunity", opportunity_id=theirs, amount=1))["amount"] == 1


def test_reassigning_hands_over_the_right_to_edit(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    opp = find(api, ep, "Opportunity", name="Globex - Renewal 2026")
    bad = error(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, owner="sam@globex.example"), 422)
    assert bad["field"] == "owner"
    ok(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, owner="mei@small.test"))
    error(call(api, ep, "crm", "update_opportunity", opportunity_id=opp, amount=5), 403)


def test_converting_a_lead_creates_account_contact_and_opportunity_and_moves_activities(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    lead = find(api, ep, "Lead", company="Hooli")
    done = ok(call(api, ep, "crm", "convert_lead", lead_id=lead, opportunity_name="Hooli - Platform"))
    assert done["lead"]["is_converted"] and done["lead"]["status"] == "Qualified"
    assert done["account"]["name"] == "Hooli" and done["contact"]["email"] == "jane@hooli.example"
    assert done["contact"]["account_id"] == done["account"]["id"]
    opp = done["opportunity"]
    assert (opp["name"], opp["stage"], opp["close_date"], opp["lead_source"]) == (
        "Hooli - Platform", "Prospecting", "2026-03-31", "Web")
    moved = ok(call(api, ep, "crm", "list_activities", related_object="Contact", related_id=done["contact"]["id"]))
    assert [t["subject"] for t in moved["tasks"]] == ["Follow up with Jane"]
    again = error(call(api, ep, "crm", "convert_lead", lead_id=lead), 409)
    assert "converted" in again["message"]
    error(call(api, ep, "crm", "update_lead", lead_id=lead, status="Working"), 409)


def test_converting_into_an_existing_account_without_an_opportunity(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    lead, globex = find(api, ep, "Lead", company="Hooli"), find(api, ep, "Account", name="Globex")
    done = ok(call(api, ep, "crm", "convert_lead", lead_id=lead, account_id=globex, create_opportunity=False))
    assert done["account"]["id"] == globex and done["opportunity"] is None
    assert ok(call(api, ep, "crm", "query", soql="SELECT COUNT() FROM Account WHERE name = 'Hooli'"))[
        "total_size"] == 0


def test_lead_status_rules(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    unqualified = find(api, ep, "Lead", company="Umbrella")
    assert "Unqualified" in error(call(api, ep, "crm", "convert_lead", lead_id=unqualified), 409)["message"]
    assert error(call(api, ep, "crm", "update_lead", lead_id=unqualified, status="New"), 422)["field"] == "status"
    assert ok(call(api, ep, "crm", "update_lead", lead_id=unqualified, status="Working"))["status"] == "Working"
    created = ok(call(api, ep, "crm", "create_lead", last_name="Roe", company="Vandelay", source="Trade Show"))
    assert (created["status"], created["owner"]) == ("New", "ravi@small.test")
    assert error(call(api, ep, "crm", "create_lead", last_name="Roe", company=" "), 422)["field"] == "company"
    as_mei = start(api, world_dir, "mei@small.test")
    error(call(api, as_mei, "crm", "convert_lead", lead_id=unqualified), 403)
