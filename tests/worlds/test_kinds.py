"""Generated companies of other kinds: a law firm and a logistics firm, with their own teams, titles, zones,
customers and cases, playing the same roles, loading clean, and found by name (``generated-legal-s-3``)."""

from __future__ import annotations

import pytest

from simulator.store.registry import world_sections
from worlds import load_world
from worlds.generate import generate
from worlds.generate.kinds import KINDS, role_of
from worlds.loader import WorldError, find_world


@pytest.mark.parametrize("kind", ["legal", "logistics"])
def test_a_kind_names_its_teams_and_fills_its_crm_with_its_own_work(kind, tmp_path):
    spec = KINDS[kind]
    world = load_world(generate(5, "s", tmp_path / kind, sections=world_sections(), kind=kind), world_sections())
    info, crm = world.info, world.sections["crm"]
    assert info.sector == kind and info.timezone == spec.timezone and info.name == f"generated-{kind}-s-5"
    teams = {p.team for p in info.people} - {"Executive"}
    assert teams == {name for name, _, _ in spec.teams.values()}
    owners = {o.owner for o in crm.opportunities.values()}
    assert owners and all(role_of(world.person(o).team) == "Sales" for o in owners)
    assert {c.subject for c in crm.cases.values()} <= set(spec.cases)
    assert {a.industry for a in crm.accounts.values()} <= set(spec.industries)
    drives = {d.name for d in world.sections["docs"].drives}
    assert spec.teams["Sales"][0] in drives


def test_a_generated_kind_is_found_by_name_and_an_unknown_kind_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("OFFICEWORLD_CACHE_DIR", str(tmp_path / "cache"))
    root = find_world("generated-legal-s-3", world_sections())
    company = load_world(root, world_sections()).info.company
    assert any(company.endswith(suffix) for suffix in KINDS["legal"].suffixes)
    with pytest.raises(WorldError, match="generated-\\[legal-\\|logistics-\\]"):
        find_world("generated-bakery-s", world_sections())
    with pytest.raises(ValueError, match="kind 'bakery'"):
        generate(1, "s", tmp_path / "x", sections=world_sections(), kind="bakery")
