"""SOQL as Salesforce users write it: date literals, lookups through parents, aggregates, child subqueries.

The small world's today is Monday 2026-03-16 in New York (weeks start on Sunday, as in Salesforce's en_US).
Opportunities close on 2026-01-20 (won, 20000), 2026-02-02 (lost, 9000), 2026-03-27 (Proposal, 184000) and
2026-04-15 (Negotiation, 50000); Ravi owns the Globex ones, Mei the Initech ones.
"""

import pytest
from crm_factories import CASES, error, make_crm_world, ok, start
from surfaces import call


def q(api, ep, soql: str):
    return call(api, ep, "crm", "query", soql=soql)


def names(api, ep, soql: str, key: str = "name") -> list:
    return [r[key] for r in ok(q(api, ep, soql))["records"]]


@pytest.mark.parametrize("literal, expected", [
    ("THIS_MONTH", ["Globex - Renewal 2026"]),
    ("THIS_QUARTER", ["Globex Europe - Pilot", "Initech - Seats", "Globex - Renewal 2026"]),
    ("NEXT_QUARTER", ["Initech - Expansion"]),
    ("LAST_MONTH", ["Initech - Seats"]),
    ("NEXT_N_DAYS:11", ["Globex - Renewal 2026"]),       # from tomorrow, 3/17, to 3/27
    ("NEXT_N_DAYS:10", []),
    ("LAST_N_DAYS:42", ["Initech - Seats"]),             # today and the 42 days before: from 2/2
    ("LAST_N_DAYS:41", []),
    ("THIS_YEAR", ["Globex Europe - Pilot", "Initech - Seats", "Globex - Renewal 2026", "Initech - Expansion"]),
    ("THIS_FISCAL_QUARTER", ["Globex Europe - Pilot", "Initech - Seats", "Globex - Renewal 2026"]),
    ("N_MONTHS_AGO:2", ["Globex Europe - Pilot"]),
])
def test_date_literals_name_ranges_of_days_counted_from_the_virtual_today(api, world_dir, literal, expected):
    ep = start(api, world_dir)
    assert names(api, ep, f"SELECT name FROM Opportunity WHERE CloseDate = {literal} ORDER BY CloseDate") == expected


def test_comparisons_with_a_range_literal_fall_before_inside_or_after_it(api, world_dir):
    ep = start(api, world_dir)
    soql = "SELECT subject FROM Task WHERE ActivityDate {} ORDER BY ActivityDate"
    assert names(api, ep, soql.format("= THIS_WEEK"), "subject") == ["Call Sam about pricing", "Follow up with Jane"]
    assert names(api, ep, soql.format("= NEXT_WEEK"), "subject") == []
    assert names(api, ep, soql.format("> YESTERDAY"), "subject") == ["Call Sam about pricing", "Follow up with Jane"]
    assert names(api, ep, soql.format("< THIS_WEEK"), "subject") == []
    assert names(api, ep, soql.format("<= THIS_WEEK"), "subject") == ["Call Sam about pricing", "Follow up with Jane"]
    assert names(api, ep, soql.format("!= THIS_WEEK"), "subject") == []
    opportunities = "SELECT name FROM Opportunity WHERE CloseDate > THIS_MONTH AND CloseDate <= NEXT_MONTH"
    assert names(api, ep, opportunities) == ["Initech - Expansion"]


def test_a_day_of_a_time_field_is_the_day_in_the_company_zone_and_moves_with_the_clock(api, tmp_path):
    # 22:30 on Sunday the 15th in New York is already Monday the 16th in UTC: Salesforce counts the user's day.
    late = {"subject": "Late report", "account": "globex", "owner": "mei@small.test", "created": "2026-03-15T22:30:00"}
    ep = start(api, make_crm_world(tmp_path / "worlds", cases={**CASES, "late": late}))
    soql = "SELECT subject FROM Case WHERE CreatedDate = {} ORDER BY CreatedDate"
    assert names(api, ep, soql.format("YESTERDAY"), "subject") == ["Late report"]
    assert names(api, ep, soql.format("TODAY"), "subject") == []
    assert names(api, ep, soql.format("LAST_WEEK"), "subject") == ["Dashboard outage", "Cannot log in"]
    assert api.post(f"/v1/episodes/{ep['id']}/clock", json={"seconds": 86400}).status_code == 200
    assert names(api, ep, soql.format("YESTERDAY"), "subject") == []
    assert names(api, ep, soql.format("N_DAYS_AGO:2"), "subject") == ["Late report"]


@pytest.mark.parametrize("soql, hint", [
    ("SELECT name FROM Opportunity WHERE amount = THIS_MONTH", "amount is a number field and cannot be compared "
                                                               "with the date literal THIS_MONTH"),
    ("SELECT name FROM Opportunity WHERE CloseDate = LAST_N_DAYS", "LAST_N_DAYS needs :n"),
    ("SELECT name FROM Opportunity WHERE CloseDate = THIS_WEEK:2", "THIS_WEEK takes no :n"),
    ("SELECT name FROM Opportunity WHERE CloseDate = LAST_N_DAYS:0", "from 1 to 10000"),
    ("SELECT name FROM Opportunity WHERE CloseDate = LAST_N_YEARS:9999", "out of range"),
    ("SELECT name FROM Opportunity WHERE CloseDate = LAST_FORTNIGHT", "LAST_FORTNIGHT is not a date literal"),
    ("SELECT name FROM Opportunity WHERE CloseDate IN (TODAY)", "not inside IN"),
])
def test_bad_date_literals_are_refused_naming_the_problem(api, world_dir, soql, hint):
    problem = error(q(api, start(api, world_dir), soql), 422)
    assert problem["field"] == "soql" and hint in problem["message"]


def test_parent_fields_through_any_lookup(api, world_dir):
    ep = start(api, world_dir)
    rows = ok(q(api, ep, "SELECT Name, Account.Owner.Name, Account.Parent.Name, Owner.Email FROM Opportunity "
                         "WHERE Account.Owner.Name = 'Ravi Patel' ORDER BY Name"))["records"]
    assert [(r["name"], r["account_owner_name"], r["account_parent_name"], r["owner_email"]) for r in rows] == [
        ("Globex - Renewal 2026", "Ravi Patel", None, "ravi@small.test"),
        ("Globex Europe - Pilot", "Ravi Patel", "Globex", "ravi@small.test")]
    cases = ok(q(api, ep, "SELECT Subject, Contact.Account.Industry, Owner.Manager.Name FROM Case "
                          "WHERE Contact.Account.Industry = 'Logistics'"))["records"]
    assert [(c["subject"], c["contact_account_industry"], c["owner_manager_name"]) for c in cases] == [
        ("Dashboard outage", "Logistics", "Dana Whitfield")]
    contacts = names(api, ep, "SELECT Name FROM Contact WHERE ReportsTo.Account.Name LIKE 'glob%' "
                              "ORDER BY Account.Owner.Name, Name")
    assert contacts == ["Lin Park"]


@pytest.mark.parametrize("soql, hint", [
    ("SELECT Account.Boss.Name FROM Opportunity", "Account has no lookup 'Boss' to follow; its lookups: "),
    ("SELECT Account.Owner.Salary FROM Opportunity", "User has no field 'Salary'"),
    ("SELECT What.Name FROM Task", "Task has no lookup 'What'"),
    ("SELECT Name FROM Contact WHERE ReportsTo.ReportsTo.ReportsTo.ReportsTo.ReportsTo.ReportsTo.Name = 'x'",
     "follows more than 5 lookups"),
])
def test_unknown_lookups_are_refused_by_name(api, world_dir, soql, hint):
    problem = error(q(api, start(api, world_dir), soql), 422)
    assert problem["field"] == "soql" and hint in problem["message"]


def test_aggregates_group_by_and_having(api, world_dir):
    ep = start(api, world_dir)
    total = ok(q(api, ep, "SELECT COUNT(Id), SUM(Amount), AVG(Amount), MIN(CloseDate), MAX(Amount) FROM Opportunity"))
    assert (total["total_size"], total["records"]) == (1, [
        {"expr0": 4, "expr1": 263000.0, "expr2": 65750.0, "expr3": "2026-01-20", "expr4": 184000.0}])
    by_owner = ok(q(api, ep, "SELECT Owner.Name, COUNT(Id) deals, SUM(Amount) FROM Opportunity "
                             "GROUP BY Owner.Name ORDER BY SUM(Amount) DESC"))["records"]
    assert by_owner == [{"owner_name": "Ravi Patel", "deals": 2, "expr0": 204000.0},
                        {"owner_name": "Mei Chen", "deals": 2, "expr0": 59000.0}]
    big = ok(q(api, ep, "SELECT StageName, SUM(Amount) total FROM Opportunity WHERE IsClosed = false "
                        "GROUP BY StageName HAVING SUM(Amount) > 100000"))
    assert (big["total_size"], big["matching"], big["records"]) == (1, 1, [{"stage": "Proposal", "total": 184000.0}])
    accounts = ok(q(api, ep, "SELECT Account.Name, COUNT(Id) FROM Contact GROUP BY Account.Name "
                             "HAVING COUNT(Id) > 1"))["records"]
    assert accounts == [{"account_name": "Globex", "expr0": 2}]
    paged = ok(q(api, ep, "SELECT AccountId, COUNT_DISTINCT(OwnerId) FROM Opportunity GROUP BY AccountId LIMIT 1"))
    assert (paged["total_size"], paged["matching"]) == (1, 3)
    empty = ok(q(api, ep, "SELECT COUNT(Id), SUM(Amount) FROM Opportunity WHERE Amount > 1000000"))["records"]
    assert empty == [{"expr0": 0, "expr1": None}]


@pytest.mark.parametrize("soql, hint", [
    ("SELECT Name, COUNT(Id) FROM Opportunity GROUP BY StageName", "field must be grouped or aggregated: name"),
    ("SELECT SUM(Name) FROM Opportunity", "SUM does not work on name, a text field"),
    ("SELECT StageName FROM Opportunity HAVING COUNT(Id) > 1", "HAVING needs GROUP BY"),
    ("SELECT StageName, COUNT(Id) FROM Opportunity GROUP BY StageName HAVING Name = 'x'", "must be grouped"),
    ("SELECT Name FROM Opportunity WHERE COUNT(Id) > 1", "may stand only in the SELECT list"),
    ("SELECT COUNT(Id) FROM Opportunity GROUP BY CreatedDate", "cannot be grouped"),
    ("SELECT Name total FROM Opportunity", "an alias may be given only in an aggregate query"),
    ("SELECT CALENDAR_YEAR(CloseDate), COUNT(Id) FROM Opportunity", "CALENDAR_YEAR() is not supported"),
    ("SELECT Name FROM Account WITH SECURITY_ENFORCED", "WITH is not supported"),
    ("SELECT Name FROM Account GROUP BY ROLLUP(Name)", "ROLLUP"),
    ("SELECT Name FROM Account WHERE Id IN (SELECT AccountId FROM Contact)", "a semi-join"),
    ("SELECT Name FROM Account FOR UPDATE", "FOR is not supported"),
])
def test_unsupported_or_wrong_aggregates_are_refused_by_name(api, world_dir, soql, hint):
    problem = error(q(api, start(api, world_dir), soql), 422)
    assert problem["field"] == "soql" and hint in problem["message"], problem["message"]


def test_child_subqueries_give_each_parent_its_children(api, world_dir):
    ep = start(api, world_dir)
    accounts = ok(q(api, ep, "SELECT Name, (SELECT LastName FROM Contacts ORDER BY LastName), "
                             "(SELECT Name, Amount FROM Opportunities WHERE IsClosed = false), "
                             "(SELECT Subject FROM Events) FROM Account ORDER BY Name"))["records"]
    by_name = {a["name"]: a for a in accounts}
    assert [c["last_name"] for c in by_name["Globex"]["contacts"]["records"]] == ["Ortiz", "Park"]
    assert by_name["Globex"]["contacts"]["total_size"] == 2
    assert by_name["Globex Europe"]["contacts"] is None          # Salesforce gives null, not an empty list
    assert [o["name"] for o in by_name["Initech"]["opportunities"]["records"]] == ["Initech - Expansion"]
    assert by_name["Globex Europe"]["opportunities"] is None     # its one deal is closed
    assert [e["subject"] for e in by_name["Globex"]["events"]["records"]] == ["Globex QBR"]
    limited = ok(q(api, ep, "SELECT Name, (SELECT Name FROM Opportunities ORDER BY Amount DESC LIMIT 1) "
                            "FROM Account WHERE Name LIKE 'Initech'"))["records"]
    assert limited[0]["opportunities"] == {"total_size": 1, "records": [
        {"id": limited[0]["opportunities"]["records"][0]["id"], "name": "Initech - Expansion"}]}


@pytest.mark.parametrize("soql, hint", [
    ("SELECT Name, (SELECT Name FROM Widgets) FROM Account", "Account has no child relationship 'Widgets'"),
    ("SELECT Name, (SELECT COUNT(Id) FROM Contacts) FROM Account", "inside a child subquery"),
    ("SELECT Name, (SELECT Name, (SELECT Subject FROM Cases) FROM Contacts) FROM Account", "inside a subquery"),
    ("SELECT Name, (SELECT LastName FROM Contacts OFFSET 1) FROM Account", "OFFSET is not supported"),
    ("SELECT Name, (SELECT LastName FROM Contacts FROM Account", "ends too early"),
])
def test_bad_child_subqueries_are_refused_by_name(api, world_dir, soql, hint):
    problem = error(q(api, start(api, world_dir), soql), 422)
    assert problem["field"] == "soql" and hint in problem["message"], problem["message"]


def test_grouping_by_a_lookup_not_selected_and_all_fields_beside_a_lookup(api, world_dir):
    ep = start(api, world_dir)
    sums = ok(q(api, ep, "SELECT SUM(Amount) FROM Opportunity GROUP BY Owner.Name ORDER BY SUM(Amount)"))["records"]
    assert sums == [{"expr0": 59000.0}, {"expr0": 204000.0}]
    rows = ok(q(api, ep, "SELECT FIELDS(ALL), Account.Owner.Name FROM Opportunity WHERE Name LIKE 'Initech%'"))
    assert {r["account_owner_name"] for r in rows["records"]} == {"Mei Chen"} and "amount" in rows["records"][0]


def test_any_mix_of_the_new_clauses_answers_or_is_refused_never_a_server_error(api, world_dir):
    import random

    ep = start(api, world_dir)
    rng = random.Random(31)
    parts = [["Name", "Amount", "COUNT(Id)", "SUM(Amount)", "MAX(CloseDate)", "Account.Owner.Name", "StageName",
              "(SELECT LastName FROM Contacts)", "AVG(Amount) a", "CreatedDate", "Owner.Manager.Name", "FIELDS(ALL)"],
             ["Opportunity", "Account", "Contact", "Case"],
             ["", "WHERE CloseDate = THIS_QUARTER", "WHERE Account.Industry = 'Logistics'",
              "WHERE CreatedDate = LAST_N_DAYS:30 OR NOT Owner.Name = 'x'"],
             ["", "GROUP BY StageName", "GROUP BY Owner.Name", "GROUP BY Account.Name HAVING SUM(Amount) > 10"],
             ["", "ORDER BY Name", "ORDER BY SUM(Amount) DESC", "ORDER BY Account.Owner.Name NULLS LAST"]]
    answered = 0
    for _ in range(150):
        fields = ", ".join(rng.sample(parts[0], rng.randint(1, 3)))
        soql = " ".join(p for p in [f"SELECT {fields} FROM {rng.choice(parts[1])}",
                                    *(rng.choice(options) for options in parts[2:])] if p)
        response = q(api, ep, soql)
        assert response.status_code in (200, 422), (soql, response.text)
        answered += response.status_code == 200
    assert answered > 5
