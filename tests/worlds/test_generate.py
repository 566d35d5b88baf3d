"""The generator: same seed, same bytes; a world that loads clean and agrees with itself across apps."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from faker import Faker

from simulator.store.registry import world_sections
from worlds import load_world
from worlds.digest import content_hash
from worlds.generate import generate, text


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    return generate(11, "s", tmp_path_factory.mktemp("gen") / "s", sections=world_sections())


def test_same_seed_same_bytes_other_seed_other_world(small, tmp_path):
    again = generate(11, "s", tmp_path / "again", sections=world_sections())
    assert content_hash(again) == content_hash(small)
    assert sorted(p.relative_to(again) for p in again.rglob("*")) == sorted(p.relative_to(small) for p in small.rglob("*"))
    assert content_hash(generate(12, "s", tmp_path / "other", sections=world_sections())) != content_hash(small)


def test_the_world_loads_clean_at_its_size(small):
    world = load_world(small, world_sections())
    assert len(world.sections["mail"].messages) == 200 and len(world.sections["docs"].items) == 40
    assert len(world.sections["crm"].accounts) == 18 and len(world.sections["crm"].contacts) == 54
    assert any(m.in_reply_to for m in world.sections["mail"].messages) and world.sections["mail"].mailboxes


def test_the_same_people_and_accounts_appear_across_apps(small):
    world = load_world(small, world_sections())
    contacts = {c.email: c.account for c in world.sections["crm"].contacts.values()}
    outsiders = {o.email for o in world.info.outsiders}
    assert set(contacts) <= outsiders
    deal_mail = [m for m in world.sections["mail"].messages if m.source.startswith("mail/deal-") and m.in_reply_to is None]
    for m in deal_mail:
        account = contacts[m.to[0]] if m.to[0] in contacts else contacts[m.sender]
        assert world.sections["crm"].accounts[account].owner in {m.sender, *m.to}
    assert deal_mail


def test_threads_reply_in_order(small):
    world = load_world(small, world_sections())
    by_id = {m.message_id: m for m in world.sections["mail"].messages}
    replies = [m for m in world.sections["mail"].messages if m.in_reply_to]
    assert replies and all(by_id[m.in_reply_to].date < m.date for m in replies)
    assert all(m.references[-1] == m.in_reply_to and m.subject.startswith("Re: ") for m in replies)


def test_the_pipeline_sheet_agrees_with_the_crm(small):
    world = load_world(small, world_sections())
    sheet = next(i for i in world.sections["docs"].items if i.name == "Pipeline (from CRM)")
    rows = list(csv.reader((small / "docs" / sheet.source).read_text().splitlines()))
    assert rows == sheet.rows
    crm = {k: (o.stage, f"{o.amount:.0f}") for k, o in world.sections["crm"].opportunities.items()}
    assert {r[0]: (r[3], r[4]) for r in rows[1:]} == crm


def test_a_generated_world_by_name_is_written_once_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("OFFICEWORLD_CACHE_DIR", str(tmp_path))
    first = load_world("generated-s-4", world_sections())
    assert first.info.name == "generated-s-4" and first.root.parent == tmp_path / "worlds"
    stamp = (first.root / "world.yaml").stat().st_mtime_ns
    assert load_world("generated-s-4", world_sections()).root == first.root
    assert (first.root / "world.yaml").stat().st_mtime_ns == stamp


@pytest.mark.parametrize("seed", [0, 5, 77])
def test_the_quick_paragraph_is_fakers_own(seed):
    ours, theirs = Faker("en_US"), Faker("en_US")
    ours.seed_instance(seed)
    theirs.seed_instance(seed)
    for n in (0, 1, 2, 3, 4, 5, 9):
        for _ in range(30):
            assert text.paragraph(ours, n) == theirs.paragraph(nb_sentences=n)
    assert ours.random.random() == theirs.random.random()  # the same draws, so what follows is the same
