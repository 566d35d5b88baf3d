"""A small world with CRM data, and the fixtures CRM tests share.

(Named ``crm_factories`` because ``factories`` is already the shared world factory on the path.)
Dana is VP Sales and manages Ravi (account executive) and Mei (support lead).
"""

from __future__ import annotations

from pathlib import Path

import yaml
from factories import make_world
from surfaces import call

ACCOUNTS = {
    "globex": {"name": "Globex", "owner": "ravi@small.test", "industry": "Logistics", "type": "Customer",
               "annual_revenue": 52000000, "employees": 410, "billing": {"city": "Boston", "country": "USA"}},
    "globex-europe": {"name": "Globex Europe", "owner": "ravi@small.test", "parent": "globex", "type": "Customer"},
    "initech": {"name": "Initech", "owner": "mei@small.test", "industry": "Software", "type": "Prospect"},
}
CONTACTS = {
    "sam-ortiz": {"account": "globex", "first_name": "Sam", "last_name": "Ortiz", "title": "CTO",
                  "email": "sam@globex.example"},
    "lin-park": {"account": "globex", "first_name": "Lin", "last_name": "Park", "title": "IT Manager",
                 "email": "lin@globex.example", "reports_to": "sam-ortiz"},
    "peter-gibbons": {"account": "initech", "first_name": "Peter", "last_name": "Gibbons",
                      "email": "peter@initech.example"},
}
LEADS = {
    "jane-hooli": {"first_name": "Jane", "last_name": "Doe", "company": "Hooli", "owner": "ravi@small.test",
                   "status": "Working", "source": "Web", "email": "jane@hooli.example", "industry": "Media"},
    "bob-umbrella": {"first_name": "Bob", "last_name": "Stone", "company": "Umbrella", "owner": "ravi@small.test",
                     "status": "Unqualified"},
}
OPPORTUNITIES = {
    "globex-renewal": {"account": "globex", "name": "Globex - Renewal 2026", "owner": "ravi@small.test",
                       "stage": "Proposal", "amount": 184000, "close_date": "2026-03-27",
                       "created": "2026-02-01T10:00:00",
                       "history": [{"field": "stage", "old": "Qualification", "new": "Proposal",
                                    "by": "ravi@small.test", "at": "2026-03-10T12:00:00"}]},
    "initech-expansion": {"account": "initech", "name": "Initech - Expansion", "owner": "mei@small.test",
                          "stage": "Negotiation", "amount": 50000, "close_date": "2026-04-15"},
    "globex-europe-pilot": {"account": "globex-europe", "name": "Globex Europe - Pilot", "owner": "ravi@small.test",
                            "stage": "Closed Won", "amount": 20000, "close_date": "2026-01-20"},
    "initech-seats": {"account": "initech", "name": "Initech - Seats", "owner": "mei@small.test",
                      "stage": "Closed Lost", "amount": 9000, "close_date": "2026-02-02", "loss_reason": "Price"},
}
CASES = {
    "globex-outage": {"subject": "Dashboard outage", "account": "globex", "contact": "sam-ortiz",
                      "owner": "mei@small.test", "priority": "High", "status": "Working", "origin": "Email",
                      "created": "2026-03-11T15:30:00"},
    "initech-login": {"subject": "Cannot log in", "account": "initech", "owner": "mei@small.test",
                      "priority": "Low", "created": "2026-03-12T09:00:00"},
    "globex-invoice": {"subject": "Wrong invoice", "account": "globex", "owner": "ravi@small.test",
                       "priority": "High", "status": "Closed", "closed": "2026-03-01T10:00:00",
                       "created": "2026-02-25T10:00:00"},
}
ACTIVITIES = {
    "tasks": {"call-sam": {"subject": "Call Sam about pricing", "owner": "ravi@small.test",
                           "related": "opportunity/globex-renewal", "due": "2026-03-18", "priority": "High"},
              "jane-follow-up": {"subject": "Follow up with Jane", "owner": "ravi@small.test",
                                 "related": "lead/jane-hooli", "due": "2026-03-20"}},
    "events": {"qbr": {"subject": "Globex QBR", "owner": "ravi@small.test", "related": "account/globex",
                       "start": "2026-03-19T14:00:00", "end": "2026-03-19T15:00:00"}},
}
NOTES = {"pricing-note": {"related": "opportunity/globex-renewal", "owner": "ravi@small.test",
                          "title": "Pricing", "body": "Sam wants a 3-year term."}}

FILES = {"accounts": ACCOUNTS, "contacts": CONTACTS, "leads": LEADS, "opportunities": OPPORTUNITIES,
         "cases": CASES, "activities": ACTIVITIES, "notes": NOTES}


def make_crm_world(root: Path, name: str = "small", **overrides: dict) -> Path:
    """The shared small world plus ``crm/``; ``overrides`` replace whole files, e.g. ``accounts={...}``."""
    world = make_world(root, name)
    (world / "crm").mkdir()
    for file, records in {**FILES, **overrides}.items():
        (world / "crm" / f"{file}.yaml").write_text(yaml.safe_dump(records, sort_keys=False))
    return world



def start(api, world_dir: Path, actor: str = "dana@small.test") -> dict:
    response = api.post("/v1/episodes", json={"world": str(world_dir), "as": actor})
    assert response.status_code == 201, response.text
    return response.json()


def ok(response) -> dict | list:
    assert response.status_code == 200, response.text
    return response.json()


def find(api, episode: dict, obj: str, **where: str) -> int:
    """The id of the one ``obj`` record matching ``where`` (via the query operation)."""
    clauses = " AND ".join(f"{k} = '{v}'" for k, v in where.items())
    result = ok(call(api, episode, "crm", "query", soql=f"SELECT id FROM {obj} WHERE {clauses}"))
    assert result["total_size"] == 1, result
    return result["records"][0]["id"]


def error(response, status: int) -> dict:
    assert response.status_code == status, response.text
    return response.json()["error"]
