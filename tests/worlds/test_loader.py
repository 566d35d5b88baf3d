"""The loader names every broken reference with its file and line, and reports them all at once."""

from __future__ import annotations

import pytest
import yaml
from factories import make_world, message

from simulator.store.registry import world_sections
from worlds import WorldError, load_world


def problems_of(world) -> list[str]:
    with pytest.raises(WorldError) as caught:
        load_world(world, world_sections())
    return caught.value.problems


def edit_yaml(path, change) -> None:
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def reply(mid, parent, date, **headers):
    return message(mid, "Ravi Patel <ravi@small.test>", "dana@small.test", "Re: x", date, "ok",
                   In_Reply_To=f"<{parent}>", **headers)


MAIL_CASES = {
    "unknown sender": ({"x/1.eml": message("x1@small.test", "ghost@nowhere.test", "dana@small.test", "Hi",
                                           "Tue, 10 Mar 2026 09:00:00 -0400", "x")},
                       "mail/x/1.eml:1: ghost@nowhere.test is neither a person nor an outsider"),
    "unknown cc": ({"x/1.eml": message("x1@small.test", "dana@small.test", "ravi@small.test", "Hi",
                                       "Tue, 10 Mar 2026 09:00:00 -0400", "x", Cc="eve@elsewhere.test")},
                   "mail/x/1.eml:6: eve@elsewhere.test is neither"),
    "missing parent": ({"x/1.eml": reply("x1@small.test", "gone@small.test", "Tue, 10 Mar 2026 09:00:00 -0400")},
                       "mail/x/1.eml:6: In-Reply-To <gone@small.test> is not a message of the world"),
    "reply before parent": ({"x/1.eml": reply("x1@small.test", "g1@globex.example", "Mon, 09 Mar 2026 09:00:00 -0400")},
                            "mail/x/1.eml:4: a reply dated"),
    "after now": ({"x/1.eml": message("x1@small.test", "dana@small.test", "ravi@small.test", "Later",
                                      "Fri, 20 Mar 2026 09:00:00 -0400", "x")},
                  "mail/x/1.eml:4: dated 2026-03-20"),
    "date without zone": ({"x/1.eml": message("x1@small.test", "dana@small.test", "ravi@small.test", "Hi",
                                              "yesterday", "x")}, "mail/x/1.eml:4: Date 'yesterday'"),
    "duplicate id": ({"x/1.eml": message("g1@globex.example", "dana@small.test", "ravi@small.test", "Hi",
                                         "Tue, 10 Mar 2026 09:00:00 -0400", "x")}, "also used by"),
    "missing attachment": ({"x/1.eml": message("x1@small.test", "dana@small.test", "ravi@small.test", "Hi",
                                               "Tue, 10 Mar 2026 09:00:00 -0400", "x", X_Attachment="nope.pdf")},
                           "mail/x/1.eml:6: attachment nope.pdf not found"),
}


@pytest.mark.parametrize("case", MAIL_CASES)
def test_each_broken_mail_reference_is_named_with_file_and_line(tmp_path, case):
    mail, expected = MAIL_CASES[case]
    found = problems_of(make_world(tmp_path, extra_mail=mail))
    assert any(expected in p for p in found), found


BOX_CASES = {
    "unknown owner": ({"zed@small.test": {}}, "mail/mailboxes.yaml:1: zed@small.test is not a person"),
    "unknown message": ({"dana@small.test": {"messages": {"<nope@x>": ["STARRED"]}}},
                        "mail/mailboxes.yaml:3: dana@small.test: message <nope@x> is not a message"),
    "not in their mailbox": ({"dana@small.test": {"messages": {"<h1@small.test>": ["STARRED"]}}},
                             "is not in their mailbox"),
    "undeclared label": ({"dana@small.test": {"messages": {"<g1@globex.example>": ["Deals"]}}},
                         "label 'Deals' is neither a system label nor in their labels"),
}


@pytest.mark.parametrize("case", BOX_CASES)
def test_mailbox_problems(tmp_path, case):
    boxes, expected = BOX_CASES[case]
    found = problems_of(make_world(tmp_path, mailboxes=boxes))
    assert any(expected in p for p in found), found


def test_people_problems_point_at_their_lines(tmp_path):
    world = make_world(tmp_path)
    def change(data):
        data["people"][1]["manager"] = "nobody@small.test"
        data["people"][0]["manager"] = "mei@small.test"   # Dana -> Mei -> Dana
        data["people"][2]["manager"] = "dana@small.test"
        data["default_actor"] = "ghost@small.test"
        data["outsiders"].append({"name": "Dana again", "email": "dana@small.test", "organisation": "x"})
    edit_yaml(world / "world.yaml", change)
    text = "\n".join(problems_of(world))
    assert "manager nobody@small.test is not a person" in text
    assert "goes round in a circle" in text
    assert "default_actor ghost@small.test is not a person" in text
    assert "outsider dana@small.test is declared twice" in text
    lines = (world / "world.yaml").read_text().splitlines()
    manager_line = next(i for i, line in enumerate(lines, 1) if "nobody@small.test" in line)
    assert f"world.yaml:{manager_line}: ravi@small.test: manager nobody" in text


def test_a_bad_field_and_bad_yaml_name_their_line(tmp_path):
    world = make_world(tmp_path)
    edit_yaml(world / "world.yaml", lambda d: d["people"][2].update(colour="red"))
    lines = (world / "world.yaml").read_text().splitlines()
    colour = next(i for i, line in enumerate(lines, 1) if "colour" in line)
    assert f"world.yaml:{colour}: people.2.colour: Extra inputs are not permitted" in problems_of(world)
    (world / "world.yaml").write_text("name: small\npeople: [\n")
    assert problems_of(world)[0].startswith("world.yaml:3: not valid YAML")


def test_crm_and_docs_references_are_checked_with_lines(tmp_path):
    world = make_world(tmp_path)
    (world / "crm").mkdir()
    (world / "crm" / "accounts.yaml").write_text("globex:\n  name: Globex\n  owner: dana@small.test\n"
                                                 "initech:\n  name: Initech\n  owner: ghost@small.test\n")
    (world / "crm" / "contacts.yaml").write_text("sam:\n  account: globex\n  last_name: Ortiz\n"
                                                 "lin:\n  account: hooli\n  last_name: Lin\n")
    (world / "docs").mkdir()
    (world / "docs" / "items.yaml").write_text(yaml.safe_dump({"items": [
        {"name": "Plan", "owner": "dana@small.test", "text": "# Plan", "created": "2026-03-01T09:00:00",
         "shared": {"eve@small.test": "editor"}}]}))
    found = problems_of(world)
    assert "crm/accounts.yaml:4: initech: owner ghost@small.test is not a person of the world" in found
    assert "crm/contacts.yaml:4: lin: account 'hooli' is not a key in crm/accounts.yaml" in found
    assert any("shared with eve@small.test is not a person" in p for p in found), found


def test_every_problem_is_reported_in_one_run(tmp_path):
    cases = ("unknown sender", "missing parent", "after now")
    mail = {f"{n}/1.eml": MAIL_CASES[case][0]["x/1.eml"].replace("x1@", f"{n}@") for n, case in enumerate(cases)}
    assert len(problems_of(make_world(tmp_path, extra_mail=mail))) == 3


def test_a_clean_world_loads_and_keeps_header_lines(world_dir):
    world = load_world(world_dir, world_sections())
    first = next(m for m in world.sections["mail"].messages if m.message_id == "<g1@globex.example>")
    assert first.lines["x-attachment"] == 6 and first.attachments[0].filename == "quote.csv"


def test_an_address_with_a_control_character_or_a_space_is_refused_with_its_line(tmp_path):
    """Addresses hold no space or control character (the docs fast path joins them with control characters)."""
    world = make_world(tmp_path)
    edit_yaml(world / "world.yaml", lambda d: (d["people"][2].update(email="mei\x1f@small.test"),
                                               d["outsiders"].append({"name": "X", "email": "x y@out.test",
                                                                      "organisation": "x"})))
    text = "\n".join(problems_of(world))
    assert "people.2.email" in text and "'mei\\x1f@small.test' is not an email address" in text
    assert "'x y@out.test' is not an email address" in text
