"""The docs workspace of a world folder: loading, and a problem named for every broken reference."""

import copy
import random
import shutil
from datetime import datetime, timezone

import pytest
from docs_factories import DRIVE, make_docs_world

from apps.docs import APP as DOCS
from apps.docs.models import Item
from apps.docs.seed import row
from apps.docs.world import DocsSection
from simulator.store.registry import world_sections
from worlds import WorldError, load_world

NOW = datetime(2026, 3, 1, tzinfo=timezone.utc)


def test_the_workspace_loads_with_content_and_history(tmp_path):
    world = load_world(make_docs_world(tmp_path), world_sections())
    items = {i.name: i for i in world.sections["docs"].items}
    assert items["Globex renewal plan"].type == "document" and "184,000" in items["Globex renewal plan"].text
    assert items["Pipeline forecast"].rows[3] == ["Total", "=SUM(B2:B3)", "", "=SUM(D2:D3)"]
    assert items["logo.png"].mime_type == "image/png" and items["logo.png"].content.startswith(b"\x89PNG")
    assert items["Globex renewal plan"].revisions[0].text.startswith("# Globex renewal plan\n\nDraft")
    assert items["Globex renewal plan"].created.tzinfo is not None


def broken(**changes) -> dict:
    drive = copy.deepcopy(DRIVE)
    plan = drive["items"][1]
    plan.update(changes.pop("plan", {}))
    drive["shared_drives"][0]["members"].update(changes.pop("members", {}))
    return drive


@pytest.mark.parametrize("drive, problem", [
    (broken(plan={"owner": "zed@small.test"}), "owner zed@small.test is not a person"),
    (broken(plan={"shared": {"mei@small.test": "admin"}}), "role 'admin' for mei@small.test"),
    (broken(plan={"shared": {"sam@globex.example": "viewer"}}), "shared with sam@globex.example is not a person"),
    (broken(members={"ravi@small.test": "boss"}), "role 'boss' is not one of"),
    (broken(plan={"drive": "Marketing"}), "give exactly one of owner and drive"),
    (broken(plan={"source": "files/missing.md"}), "source files/missing.md not found"),
    (broken(plan={"comments": [{"by": "mei@small.test", "at": "2026-03-11T10:00:00", "text": "ask @zed"}]}),
     "mentions @zed"),
    (broken(plan={"comments": [{"by": "mei@small.test", "at": "2026-03-11T10:00:00", "text": "x",
                                "quote": "no such passage"}]}), "which is not in the text"),
    (broken(plan={"modified": "2026-04-01T10:00:00"}), "is after the world's now"),
    (broken(plan={"revisions": [{"by": "dana@small.test", "at": "2026-01-01T10:00:00", "text": "x"}]}),
     "out of order"),
])
def test_each_broken_reference_is_a_problem_naming_the_file(tmp_path, drive, problem):
    with pytest.raises(WorldError) as raised:
        load_world(make_docs_world(tmp_path, drive), world_sections())
    assert any(p.startswith("docs/drive.yaml") and problem in p for p in raised.value.problems), raised.value.problems


def test_the_section_names_every_colleague_with_its_line(tmp_path):
    root = make_docs_world(tmp_path)
    world = load_world(root, world_sections())
    found = DocsSection().addresses(world.sections["docs"])
    lines = (root / "docs" / "drive.yaml").read_text().splitlines()
    logo = next(n for n, line in enumerate(lines, 1) if "logo.png" in line and "name" in line)
    assert (f"docs/drive.yaml:{logo}", "dana@small.test") in found  # shared with Dana
    assert {address for _, address in found} == {"dana@small.test", "ravi@small.test", "mei@small.test"}


def test_a_workspace_generated_without_a_crm_loads_clean_and_seeds(tmp_path):
    root = make_docs_world(tmp_path)
    world = load_world(root, world_sections())
    data = DocsSection().generate(random.Random(3), world.info, "s")
    assert len(data.items) == 40 and {d.name for d in data.drives} == {p.team for p in world.info.people}
    shutil.rmtree(root / "docs")
    DocsSection().write(data, root)
    again = load_world(root, world_sections())
    assert sorted(i.name for i in again.sections["docs"].items) == sorted(i.name for i in data.items)
    db = DOCS.build(again)
    assert db.conn.execute("select count(*) from docs_item where kind = 'document'").fetchone()[0] == 40


def test_seed_rows_come_from_the_declarations():
    made = row(Item, kind="document", name="x", mime_type="text/markdown", created_at=NOW, created_by="a@b.test",
               modified_at=NOW, modified_by="a@b.test")
    assert made["size"] == 0 and made["body"] == "" and made["trashed_at"] is None and set(made) == set(Item.model_fields)
    with pytest.raises(TypeError, match="no field 'colour'"):
        row(Item, colour="red")
    with pytest.raises(TypeError, match="Item.kind is required"):
        row(Item, name="x")
