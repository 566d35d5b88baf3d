"""Mail's world section on its own: generated at a size, written, read back equal; what it declares."""

from __future__ import annotations

import random
import shutil

from factories import make_world

from apps.mail import APP
from apps.mail.world import MailSection
from simulator.store.registry import world_sections
from worlds import load_world


def test_generated_mail_writes_and_reads_back_equal(tmp_path):
    info = load_world(make_world(tmp_path), world_sections()).info
    section = MailSection()
    data = section.generate(random.Random(3), info, "s")
    assert len(data.messages) == 200 and any(m.in_reply_to for m in data.messages)
    out = tmp_path / "out"
    section.write(data, out)
    problems: list[str] = []
    again = section.load(out, info, problems)
    assert problems == [] and again.model_dump() == data.model_dump()
    known = {p.email for p in info.people} | {o.email for o in info.outsiders}
    assert {address for _, address in section.addresses(again)} <= known


def test_the_section_declares_addresses_and_writings_with_their_files(tmp_path, world_dir):
    world = load_world(world_dir, world_sections())
    data, section = world.sections["mail"], APP.world
    assert isinstance(section, MailSection)
    found = section.addresses(data)
    assert ("mail/globex/2.eml:6", "ravi@small.test") in found  # the Cc line
    writings = {w["source"]: w for w in section.writings(data)}
    assert writings["mail/globex/2.eml"]["people"] == {"dana@small.test", "sam@globex.example", "ravi@small.test"}


def test_a_world_without_mail_loads_empty_and_seeds_an_empty_mailbox(tmp_path, world_dir):
    copy = tmp_path / "w"
    shutil.copytree(world_dir, copy)
    shutil.rmtree(copy / "mail")
    world = load_world(copy, world_sections())
    assert world.sections["mail"].messages == []
    assert APP.build(world).conn.execute("select count(*) from mail_entry").fetchone()[0] == 0
