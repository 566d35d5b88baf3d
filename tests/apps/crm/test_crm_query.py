"""Search, the SOQL-like query, and the list views, over REST."""

import pytest
from crm_factories import error, ok, start
from surfaces import call


def q(api, ep, soql: str):
    return call(api, ep, "crm", "query", soql=soql)


def test_query_filters_orders_and_limits(api, world_dir):
    ep = start(api, world_dir)
    result = ok(q(api, ep, "SELECT Name, Amount, StageName, Account.Name FROM Opportunity "
                           "WHERE amount >= 20000 AND (stage = 'Proposal' OR stage IN ('Negotiation', 'Closed Won')) "
                           "ORDER BY amount DESC LIMIT 2"))
    # Salesforce's totalSize counts the rows returned under LIMIT; matching counts every match.
    assert (result["total_size"], result["matching"]) == (2, 3)
    assert [(r["name"], r["amount"], r["account_name"]) for r in result["records"]] == [
        ("Globex - Renewal 2026", 184000, "Globex"), ("Initech - Expansion", 50000, "Initech")]
    assert set(result["records"][0]) == {"id", "name", "amount", "stage", "account_name"}


def test_query_like_not_null_booleans_dates_and_offset(api, world_dir):
    ep = start(api, world_dir)
    like = ok(q(api, ep, "SELECT name FROM Contact WHERE email LIKE '%globex%' ORDER BY last_name"))
    assert [r["name"] for r in like["records"]] == ["Sam Ortiz", "Lin Park"]
    open_ = ok(q(api, ep, "SELECT name FROM Opportunity WHERE is_closed = false AND NOT close_date < 2026-04-01"))
    assert [r["name"] for r in open_["records"]] == ["Initech - Expansion"]
    nulls = ok(q(api, ep, "SELECT id FROM Account WHERE parent_id != NULL"))
    assert nulls["total_size"] == 1
    page = ok(q(api, ep, "SELECT subject FROM Case ORDER BY CreatedDate ASC LIMIT 1 OFFSET 1"))
    assert ([r["subject"] for r in page["records"]], page["total_size"], page["matching"]) == (
        ["Dashboard outage"], 1, 3)
    today = ok(q(api, ep, "SELECT subject FROM Task WHERE due_date > TODAY ORDER BY due_date"))
    assert [r["subject"] for r in today["records"]] == ["Call Sam about pricing", "Follow up with Jane"]
    count = ok(q(api, ep, "SELECT COUNT() FROM Case WHERE status != 'Closed'"))
    assert (count["total_size"], count["records"]) == (2, [])


@pytest.mark.parametrize("soql, hint", [
    ("SELECT name FROM Opportunity WHERE password = 'x'", "no field 'password'"),
    ("SELECT name FROM Users", "unknown object"),
    ("SELECT name FROM Account; DROP TABLE crm_account", "cannot read"),
    ("SELECT name FROM Account WHERE name = 'x' OR 1=1", "expected a field name"),
    ("SELECT name FROM Account WHERE name = Globex", "quote text values"),
    ("SELECT name FROM Account LIMIT 99999", "LIMIT"),
    ("SELECT name FROM Account WHERE (name = 'x'", "expected )"),
    ("", "write a query"),
    ("SELECT name FROM Opportunity WHERE amount > 'lots'", "amount is a number field and cannot be compared with text"),
    ("SELECT name FROM Opportunity WHERE close_date = 2026-13-45", "2026-13-45 is not a date for close_date"),
    ("SELECT name FROM Opportunity WHERE close_date = 2026-02-30", "2026-02-30 is not a date"),
    ("SELECT name FROM Opportunity WHERE created_at > 2026-02-30T10:00:00Z", "is not a date and time"),
    ("SELECT name FROM Opportunity WHERE is_closed = 'yes'", "is_closed is a bool field"),
    ("SELECT name FROM Opportunity WHERE amount LIKE '%1%'", "LIKE needs a text field"),
    ("SELECT name FROM Opportunity WHERE amount > " + "9" * 5000, "out of range"),
    ("SELECT name FROM Account LIMIT " + "9" * 5000, "LIMIT takes a whole number"),
    ("SELECT name FROM Account OFFSET 99999999999999999999999", "OFFSET takes a whole number"),
    ("SELECT name FROM Account WHERE " + "(" * 5000 + "name = 'x'" + ")" * 5000, "nested more than"),
])
def test_bad_queries_are_refused_with_a_hint_and_nothing_runs(api, world_dir, soql, hint):
    ep = start(api, world_dir)
    problem = error(q(api, ep, soql), 422)
    assert problem["field"] == "soql"
    assert hint in problem["message"]
    assert ok(q(api, ep, "SELECT COUNT() FROM Account"))["total_size"] == 3


def test_deep_not_chains_are_evaluated_without_recursion(api, world_dir):
    ep = start(api, world_dir)
    even = ok(q(api, ep, "SELECT name FROM Account WHERE " + "NOT " * 10000 + "name = 'Globex'"))
    odd = ok(q(api, ep, "SELECT name FROM Account WHERE " + "NOT " * 10001 + "name = 'Globex'"))
    assert [r["name"] for r in even["records"]] == ["Globex"] and odd["total_size"] == 2


def test_values_are_bound_not_spliced(api, world_dir):
    ep = start(api, world_dir)
    result = ok(q(api, ep, r"SELECT name FROM Account WHERE name = 'x\' OR \'1\'=\'1'"))
    assert result["total_size"] == 0


def test_global_search_by_name_email_and_company(api, world_dir):
    ep = start(api, world_dir)
    by_email = ok(call(api, ep, "crm", "search", query="sam@globex"))
    assert [(h["object"], h["name"]) for h in by_email] == [("Contact", "Sam Ortiz")]
    by_company = ok(call(api, ep, "crm", "search", query="hooli"))
    assert [(h["object"], h["name"]) for h in by_company] == [("Lead", "Jane Doe")]
    both_words = ok(call(api, ep, "crm", "search", query="globex renewal", objects=["Opportunity"]))
    assert [h["name"] for h in both_words] == ["Globex - Renewal 2026"]
    assert error(call(api, ep, "crm", "search", query="  "), 422)["field"] == "query"
    # ``text``, the argument's old name (as mail, docs and calendar call it ``query``), is still taken.
    assert ok(call(api, ep, "crm", "search", text="sam@globex")) == by_email
    assert error(call(api, ep, "crm", "search", text="  "), 422)["field"] == "text"
    assert error(call(api, ep, "crm", "search", text="a", query="b"), 422)["field"] == "text"


def test_a_converted_lead_leaves_search_but_stays_readable_by_id(api, world_dir):
    # Salesforce: converted leads drop out of search and list views; the lead record keeps IsConverted and the
    # ids of the account, contact and opportunity it became.
    ep = start(api, world_dir, "ravi@small.test")
    lead = ok(call(api, ep, "crm", "search", query="hooli", objects=["Lead"]))[0]["id"]
    done = ok(call(api, ep, "crm", "convert_lead", lead_id=lead))
    hits = ok(call(api, ep, "crm", "search", query="hooli"))
    assert sorted((h["object"], h["name"]) for h in hits) == [
        ("Account", "Hooli"), ("Contact", "Jane Doe"), ("Opportunity", "Hooli-")]
    read = ok(call(api, ep, "crm", "get_lead", lead_id=lead))
    assert read["is_converted"] and (read["converted_account_id"], read["converted_contact_id"],
                                     read["converted_opportunity_id"]) == (
        done["account"]["id"], done["contact"]["id"], done["opportunity"]["id"])
    converted = ok(call(api, ep, "crm", "query", soql="SELECT name FROM Lead WHERE IsConverted = true"))
    assert [r["name"] for r in converted["records"]] == ["Jane Doe"]   # SOQL still reaches it, as in Salesforce


def test_my_open_opportunities_and_pipeline_totals(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    mine = ok(call(api, ep, "crm", "my_open_opportunities"))
    assert [o["name"] for o in mine] == ["Globex - Renewal 2026"]
    assert [o["name"] for o in ok(call(api, ep, "crm", "my_open_opportunities", owner="mei@small.test"))] == [
        "Initech - Expansion"]
    pipeline = ok(call(api, ep, "crm", "pipeline_by_stage"))
    stages = {s["stage"]: s for s in pipeline["stages"]}
    assert list(stages)[0] == "Prospecting" and list(stages)[-1] == "Closed Lost"
    assert (stages["Proposal"]["count"], stages["Proposal"]["amount"], stages["Proposal"]["weighted_amount"]) == (
        1, 184000, 119600)
    assert pipeline["open_amount"] == 234000 and pipeline["open_weighted_amount"] == 159600
    only_mine = ok(call(api, ep, "crm", "pipeline_by_stage", owner="me"))
    assert only_mine["owner"] == "ravi@small.test" and only_mine["open_amount"] == 184000


def test_open_cases_by_priority(api, world_dir):
    ep = start(api, world_dir, "mei@small.test")
    groups = ok(call(api, ep, "crm", "open_cases_by_priority"))
    assert [(g["priority"], g["count"]) for g in groups] == [("Critical", 0), ("High", 1), ("Medium", 0), ("Low", 1)]
    assert groups[1]["cases"][0]["subject"] == "Dashboard outage"
    assert error(call(api, ep, "crm", "open_cases_by_priority", owner="sam@globex.example"), 422)["field"] == "owner"


def test_my_open_tasks_leaves_out_completed_ones(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    tasks = ok(call(api, ep, "crm", "my_open_tasks"))
    assert [t["subject"] for t in tasks] == ["Call Sam about pricing", "Follow up with Jane"]
    ok(call(api, ep, "crm", "update_task", task_id=tasks[0]["id"], status="Completed"))
    assert [t["subject"] for t in ok(call(api, ep, "crm", "my_open_tasks"))] == ["Follow up with Jane"]
