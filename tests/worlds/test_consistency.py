"""``worlds check`` finds a fact one app states about another's records once it no longer holds: each test
corrupts one fact of a generated world and sees the check name the files and lines on both sides."""

from __future__ import annotations

import re
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from simulator.cli.main import cli
from simulator.store.registry import world_sections
from worlds import load_world
from worlds.consistency import check, declared_offers, offers_named
from worlds.generate import generate


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return generate(21, "s", tmp_path_factory.mktemp("consistency") / "s", sections=world_sections())


@pytest.fixture
def world_copy(pristine, tmp_path) -> Path:
    return Path(shutil.copytree(pristine, tmp_path / "w"))


def problems(root: Path) -> list[str]:
    return check(load_world(root, world_sections()), world_sections())


def line_of(root: Path, where: str) -> str:
    """The text of the line a ``file:line`` names."""
    file, line = where.rsplit(":", 1)
    return (root / file).read_text().splitlines()[int(line) - 1]


def first_with(root: Path, pattern: str) -> tuple[Path, re.Match]:
    for path in sorted((root / "mail").rglob("*.eml")):
        own = "\n".join(x for x in path.read_text().splitlines() if not x.startswith(">"))
        if found := re.search(pattern, own):
            return path, found
    raise AssertionError(f"no message matches {pattern}")


def test_a_generated_world_and_the_shipped_ones_are_consistent(pristine):
    assert problems(pristine) == []
    assert problems(Path("worlds/acme")) == [] and problems(Path("worlds/harbor-legal")) == []


def test_a_crm_amount_that_no_longer_matches_the_mail_is_named_on_both_sides(world_copy):
    mail, found = first_with(world_copy, r"Closed (?P<name>.+) today at \$(?P<amount>[\d,]+)\.")
    opps = yaml.safe_load((world_copy / "crm" / "opportunities.yaml").read_text())
    key = next(k for k, o in opps.items() if o["name"] == found["name"])
    text = (world_copy / "crm" / "opportunities.yaml").read_text().splitlines()
    start = text.index(f"{key}:")
    at = next(i for i in range(start + 1, len(text)) if text[i].startswith("  amount:"))
    text[at] = "  amount: 1.0"
    (world_copy / "crm" / "opportunities.yaml").write_text("\n".join(text) + "\n")
    result = CliRunner().invoke(cli, ["worlds", "check", str(world_copy)])
    assert result.exit_code == 1 and "cross-app problem" in result.output
    rel = mail.relative_to(world_copy).as_posix()
    named = [p for p in result.output.splitlines() if f"{rel}:" in p and found["name"] in p]
    assert named, result.output
    mail_at, crm_at = re.search(rf"({re.escape(rel)}:\d+).*(crm/opportunities\.yaml:\d+)", named[0]).groups()
    assert f"${found['amount']}" in line_of(world_copy, mail_at)
    assert line_of(world_copy, crm_at) == f"{key}:"


def test_a_meeting_moved_to_another_day_is_named_by_the_mail_that_gives_its_day(world_copy):
    path = world_copy / "calendar" / "events.yaml"
    events = yaml.safe_load(path.read_text())
    key = next(k for k, e in events["events"].items() if e["title"].startswith("Discovery call: "))
    title = events["events"][key]["title"]
    for field in ("start", "end"):
        moment = datetime.fromisoformat(str(events["events"][key][field]))
        events["events"][key][field] = (moment + timedelta(days=1)).isoformat()
    path.write_text(yaml.safe_dump(events, sort_keys=False))
    found = [p for p in problems(world_copy) if f"names the meeting {title!r}" in p]
    assert found and "the calendar has no such event (it has one at" in found[0]
    assert f'"{title}" on' in line_of(world_copy, found[0].split(": ", 1)[0])


def test_a_person_dropped_from_a_meeting_the_mail_invited_them_to_is_named(world_copy):
    path = world_copy / "calendar" / "events.yaml"
    events = yaml.safe_load(path.read_text())
    key, event = next((k, e) for k, e in events["events"].items() if e["title"].startswith("Demo: "))
    dropped = event["attendees"].pop()
    path.write_text(yaml.safe_dump(events, sort_keys=False))
    found = [p for p in problems(world_copy) if f"{dropped} is not invited" in p]
    assert found and re.search(r"\(calendar/events\.yaml:\d+\)", found[0])
    assert line_of(world_copy, re.search(r"(calendar/events\.yaml:\d+)", found[0])[1]) == f"  {key}:"


def test_a_forecast_row_that_no_longer_matches_the_crm_is_named_with_its_row(world_copy):
    (sheet,) = (world_copy / "docs" / "files" / "forecasts").glob("*.csv")
    rows = sheet.read_text().splitlines()
    cells = rows[2].split(",")
    cells[5] = str(int(cells[5]) + 1000)
    rows[2] = ",".join(cells)
    sheet.write_text("\n".join(rows) + "\n")
    found = problems(world_copy)
    rel = sheet.relative_to(world_copy).as_posix()
    assert any(p.startswith(f"{rel}:3: ") and f"${int(cells[5]):,.2f}" in p and "crm/opportunities.yaml:" in p
               for p in found), found
    assert any("totals" in p and "CRM pipeline closing in Q1" in p for p in found)
    assert any("as the 'Forecast Q1" in p and "mail/forecast-" in p for p in found)  # the summary quotes the old total


def test_an_amount_edited_in_one_mail_is_named_at_its_line(world_copy):
    mail, found = first_with(world_copy, r"The proposal for (?P<name>.+) comes to \$(?P<amount>[\d,]+)")
    mail.write_text(mail.read_text().replace(f"comes to ${found['amount']}", "comes to $1,234,567", 1))
    rel = mail.relative_to(world_copy).as_posix()
    found = [p for p in problems(world_copy) if p.startswith(f"{rel}:")]
    assert len(found) == 1 and "$1,234,567.00" in found[0]
    assert "$1,234,567" in line_of(world_copy, found[0].split(": ", 1)[0])


def test_mail_calling_a_documented_offer_by_another_name_is_named(tmp_path):
    # The acme pricing file declares "Option A" ($184,000) and "Option B" ($174,800); mail accepting the $174,800
    # offer as "option 1" disagrees with it, while mail calling it Option B (or quoting no name) does not.
    world = Path(shutil.copytree("worlds/acme", tmp_path / "acme"))
    thread = world / "mail" / "globex-pricing-options" / "03.eml"
    original = thread.read_text()
    assert problems(world) == []
    thread.write_text(original.replace("I'll lead with 5% + 3-year", "I'll lead with option 1 at $174,800 per year"))
    found = [p for p in problems(world) if "offer" in p]
    assert len(found) == 1 and found[0].startswith("mail/globex-pricing-options/03.eml:")
    assert "'option 1'" in found[0] and "globex_renewal_pricing_2026.csv:7 names it Option B" in found[0]
    thread.write_text(original.replace("I'll lead with 5% + 3-year", "I'll lead with Option B at $174,800 per year"))
    assert problems(world) == []


def test_the_mail_task_setups_send_into_acme_agrees_with_its_documents():
    world = load_world(Path("worlds/acme"), world_sections())
    offers = declared_offers(world.sections["docs"].items)
    assert offers, "the acme pricing file declares its offers"
    found = []
    for path in sorted(Path("tasks/suites").rglob("*.yaml")):
        task = yaml.safe_load(path.read_text())
        if not isinstance(task, dict) or task.get("world") != "acme":
            continue
        for step in task.get("setup") or []:
            if step.get("op") == "mail.send":
                found += offers_named(offers, step["args"].get("body", ""), lambda *_, p=path: str(p))
    assert found == []
