"""CRM entities declared once: operation arguments, results, world records and seeding all follow them."""

import yaml
from crm_factories import ok, start
from surfaces import call

from apps.crm import APP
from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm.world import SECTION
from apps.kit.entity import fields_for
from simulator.store.registry import world_sections
from worlds import load_world

# Arguments an operation takes besides the entity's create/update fields (ids, owner, probability).
OWN = {"account_id", "contact_id", "lead_id", "opportunity_id", "case_id", "task_id", "owner", "probability"}
SPREAD = {"create_account": (m.Account, "create"), "update_account": (m.Account, "update"),
          "create_contact": (m.Contact, "create"), "update_contact": (m.Contact, "update"),
          "create_lead": (m.Lead, "create"), "update_lead": (m.Lead, "update"),
          "create_opportunity": (m.Opportunity, "create"), "update_opportunity": (m.Opportunity, "update"),
          "create_case": (m.Case, "create"), "update_case": (m.Case, "update"),
          "create_task": (m.Task, "create"), "update_task": (m.Task, "update"),
          "create_event": (m.Event, "create"), "add_note": (m.Note, "create")}


def test_create_and_update_arguments_are_the_entities_fields_with_their_descriptions():
    for name, (entity, purpose) in SPREAD.items():
        params = {p.name: p for p in APP.operations[name].params}
        declared = fields_for(entity, purpose)
        assert set(params) - OWN == set(declared) - OWN, name
        for field in declared:
            assert params[field].description == entity.model_fields[field].description, (name, field)
            assert params[field].required == (purpose == "create" and entity.model_fields[field].is_required())
    assert "account_id" not in fields_for(m.Opportunity, "update")  # a deal does not move between accounts
    assert "lead_source" not in {p.name for p in APP.operations["create_contact"].params}  # readable, not settable


def test_billing_parts_are_flat_arguments_and_one_nested_address_in_results_and_world_files(api, world_dir):
    assert "billing_postal_code" in fields_for(m.Account, "create") and "billing_postal_code" not in s.Account.model_fields
    assert set(s.Account.model_fields["billing_address"].annotation.model_fields) == set(m.BILLING)
    ep = start(api, world_dir)
    account = ok(call(api, ep, "crm", "create_account", name="Vandelay", billing_postal_code="10001",
                      billing_city="New York"))
    assert account["billing_address"] == {"street": None, "city": "New York", "state": None,
                                          "postal_code": "10001", "country": None}
    changed = ok(call(api, ep, "crm", "update_account", account_id=account["id"], billing_city=""))
    assert changed["billing_address"]["city"] is None and changed["billing_address"]["postal_code"] == "10001"


def test_the_crm_section_writes_what_it_read_and_seeds_every_record(world_dir, tmp_path):
    world = load_world(world_dir, world_sections())
    crm = world.sections["crm"]
    SECTION.write(crm, tmp_path)
    written = yaml.safe_load((tmp_path / "crm" / "accounts.yaml").read_text())
    assert written["globex"]["billing"] == {"city": "Boston", "country": "USA"}
    assert list(written["globex"])[:2] == ["name", "owner"]  # the files' order of keys, not the table's
    db = APP.build(world)
    counts = {t: db.conn.execute(f"select count(*) from {t}").fetchone()[0]
              for t in ("crm_account", "crm_contact", "crm_opportunity", "crm_task", "crm_opportunity_history")}
    assert counts["crm_account"] == len(crm.accounts) and counts["crm_contact"] == len(crm.contacts)
    assert counts["crm_task"] == len(crm.tasks)
    assert counts["crm_opportunity_history"] == len(crm.opportunities) + sum(len(o.history)
                                                                             for o in crm.opportunities.values())
    parent = db.conn.execute("select p.key from crm_account a join crm_account p on p.id = a.parent_id"
                             " where a.key = 'globex-europe'").fetchone()
    assert parent == ("globex",)
    assert SECTION.addresses(crm) and all(where.startswith("crm/") for where, _ in SECTION.addresses(crm))
