"""Spreadsheet tabs in the world format: ``tab`` names the first tab, ``tabs`` adds more (from a source CSV or
inline rows); a seeded episode reads them, formulas read across them, and the writer gives the same world back."""

import copy

import pytest
import yaml
from docs_factories import DRIVE, file_id, make_docs_world, ok, start
from surfaces import call

from apps.docs.world import DocsSection
from simulator.store.registry import world_sections
from worlds import WorldError, load_world

TABBED = {"name": "Quarter plan", "owner": "dana@small.test", "created": "2026-03-02T09:00:00",
          "tab": "Summary", "rows": [["Total", "=SUM('Q1 Plan'!B2:B3)"], ["Deals", "=Deals!A1"]],
          "tabs": [{"name": "Q1 Plan", "source": "files/q1.csv"}, {"name": "Deals", "rows": [["Globex"]]}]}


def _world(tmp_path, item=TABBED):
    drive = copy.deepcopy(DRIVE)
    drive["items"].append(copy.deepcopy(item))
    world = make_docs_world(tmp_path / "worlds", drive)
    (world / "docs" / "files" / "q1.csv").write_text("Month,Amount\nJan,100\nFeb,=B2*2\n")
    return world


def test_a_world_spreadsheet_has_its_named_tabs_and_reads_across_them(api, tmp_path):
    ep = start(api, _world(tmp_path))
    sheet = file_id(api, ep, "Quarter plan")
    first = ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet))
    assert (first["tab"], first["tabs"], first["rows"]) == ("Summary", ["Summary", "Q1 Plan", "Deals"],
                                                          [["Total", 300], ["Deals", "Globex"]])
    assert ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, tab="Q1 Plan"))["rows"][2] == ["Feb", 200]
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, tab="Q1 Plan", cells={"B2": 50}))
    assert ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, range="B1"))["rows"] == [[150]]
    text = ok(call(api, ep, "docs", "read_file", file_id=sheet))["content"]
    assert text.startswith("# Summary\nTotal,150\n") and "# Deals\nGlobex\n" in text
    history = ok(call(api, ep, "docs", "get_revision", file_id=sheet, revision_number=1))["content"]
    assert "# Q1 Plan\nMonth,Amount\nJan,100\nFeb,=B2*2\n" in history


def test_the_writer_gives_the_tabs_back(tmp_path):
    world = load_world(_world(tmp_path), world_sections())
    docs = world.sections["docs"]
    out = tmp_path / "out"
    DocsSection().write(docs, out)
    assert (out / "docs" / "files" / "q1.csv").read_text() == "Month,Amount\nJan,100\nFeb,=B2*2\n"
    written = yaml.safe_load((out / "docs" / "drive.yaml").read_text())
    plan = next(i for i in written["items"] if i["name"] == "Quarter plan")
    assert plan["tab"] == "Summary" and plan["tabs"] == [{"name": "Q1 Plan", "source": "files/q1.csv"},
                                                         {"name": "Deals", "rows": [["Globex"]]}]


@pytest.mark.parametrize("change, problem", [
    ({"tabs": [{"name": "summary", "rows": [["x"]]}]}, "two tabs are named 'summary'"),
    ({"tabs": [{"name": "Q1"}]}, "tab 'Q1' has no source or rows"),
    ({"tabs": [{"name": "  ", "rows": []}]}, "a tab's name has 1 to 100 characters"),
    ({"type": "document", "text": "x", "rows": None}, "only a spreadsheet has tabs"),
])
def test_bad_tabs_are_problems_naming_the_file(tmp_path, change, problem):
    with pytest.raises(WorldError) as raised:
        load_world(_world(tmp_path, {**TABBED, **change}), world_sections())
    assert any(p.startswith("docs/drive.yaml") and problem in p for p in raised.value.problems), raised.value.problems
