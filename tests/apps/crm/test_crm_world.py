"""The CRM's world data: the loader names every broken record, and the shipped acme world loads."""

import pytest
from crm_factories import ACCOUNTS, CASES, CONTACTS, OPPORTUNITIES, make_crm_world

from simulator.store.registry import world_sections
from worlds import WorldError, load_world


def _problems(tmp_path, **files) -> str:
    with pytest.raises(WorldError) as raised:
        load_world(make_crm_world(tmp_path, **files), world_sections())
    return "\n".join(raised.value.problems)


def test_the_small_crm_world_loads_with_its_keys(tmp_path):
    crm = load_world(make_crm_world(tmp_path), world_sections()).sections["crm"]
    assert crm.contacts["lin-park"].reports_to == "sam-ortiz"
    assert crm.opportunities["globex-renewal"].history[0].new == "Proposal"


def test_broken_references_and_rules_are_each_named_with_file_and_record(tmp_path):
    problems = _problems(
        tmp_path,
        accounts={**ACCOUNTS, "ghost": {"name": "Ghost", "owner": "nobody@small.test", "parent": "nowhere"}},
        contacts={**CONTACTS, "lost-soul": {"account": "atlantis", "last_name": "Soul", "reports_to": "lost-soul"}},
        opportunities={**OPPORTUNITIES,
                       "bad-won": {"account": "globex", "name": "X", "owner": "ravi@small.test", "stage": "Closed Won"},
                       "bad-lost": {"account": "globex", "name": "Y", "owner": "ravi@small.test",
                                    "stage": "Closed Lost", "close_date": "2026-01-01"},
                       "bad-amount": {"account": "globex", "name": "Z", "owner": "ravi@small.test",
                                      "stage": "Won", "amount": -5}},
        cases={**CASES, "wrong-contact": {"subject": "s", "owner": "mei@small.test", "account": "initech",
                                          "contact": "sam-ortiz"}},
    )
    for expected in [
        "crm/accounts.yaml", "ghost: owner nobody@small.test is not a person",
        "ghost: parent 'nowhere' is not a key in crm/accounts.yaml",
        "lost-soul: account 'atlantis' is not a key", "lost-soul: reports_to goes round in a circle",
        "bad-won: close_date: Field required",
        "bad-lost: a Closed Lost opportunity needs a loss_reason",
        "bad-amount: stage:", "bad-amount: amount:",
        "wrong-contact: contact sam-ortiz works at globex, not initech",
    ]:
        assert expected in problems, f"{expected!r} not in:\n{problems}"


def test_activity_links_and_bad_keys_are_reported(tmp_path):
    problems = _problems(tmp_path, activities={"tasks": {"t": {"subject": "x", "owner": "ravi@small.test",
                                                                "related": "deal/globex"}},
                                               "events": {"e": {"subject": "x", "owner": "ravi@small.test",
                                                                "related": "case/none", "start": "2026-03-02T10:00:00",
                                                                "end": "2026-03-02T09:00:00"}}},
                         notes={"Bad Key": {"related": "lead/jane-hooli", "owner": "ravi@small.test", "title": "t"}})
    assert "related 'deal/globex' must be" in problems
    assert "related 'none' is not a key in crm/cases.yaml" in problems
    assert "an event must end after it starts" in problems
    assert "Bad Key: keys are lower-case words" in problems


def test_acme_has_the_crm_the_issue_asks_for_with_mail_contacts_at_their_addresses():
    world = load_world("acme", world_sections())
    crm = world.sections["crm"]
    assert len(crm.accounts) >= 40 and len(crm.contacts) >= 120 and len(crm.opportunities) >= 60
    assert len(crm.leads) >= 30 and len(crm.cases) >= 40 and crm.tasks and crm.events and crm.notes
    stages = {o.stage for o in crm.opportunities.values()}
    assert stages == {"Prospecting", "Qualification", "Needs Analysis", "Value Proposition", "Proposal",
                      "Negotiation", "Closed Won", "Closed Lost"}
    by_name = {a.name: key for key, a in crm.accounts.items()}
    emails = {c.email: c for c in crm.contacts.values()}
    for outsider in world.info.outsiders:
        if outsider.organisation in by_name:
            assert emails[outsider.email].account == by_name[outsider.organisation], outsider.email


def test_an_acme_episode_serves_the_pipeline_the_mail_talks_about(api):
    episode = api.post("/v1/episodes", json={"world": "acme"}).json()
    soql = ("SELECT amount FROM Opportunity WHERE stage = 'Closed Won' AND close_date >= 2026-01-01 "
            "AND close_date <= 2026-03-31")
    closed = api.post(f"/episodes/{episode['id']}/api/crm/query", json={"soql": soql}).json()
    assert sum(r["amount"] for r in closed["records"]) == 877200  # "closed $877,200" in the pipeline review mail
    hits = api.post(f"/episodes/{episode['id']}/api/crm/search", json={"text": "tanya.albright"}).json()
    assert [(h["object"], h["name"]) for h in hits] == [("Contact", "Tanya Albright")]
