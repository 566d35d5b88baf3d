"""Spreadsheet tabs, as in Google Sheets: several tabs per spreadsheet, formulas that read another tab
(``=Sheet2!A1``, ``='Q1 Plan'!B2:B9``) and recalculate when it changes, and tab operations (add, rename,
delete, move) that follow the product: a rename rewrites the formulas naming the tab, a deleted tab's
readers show #REF!, the last tab stays, names are unique whatever the case."""

import json

from docs_factories import error, file_id, ok, start
from surfaces import call, new_episode, run_ow


def _sheet(api, world_dir, actor="dana@small.test"):
    ep = start(api, world_dir, actor)
    return ep, file_id(api, ep, "Pipeline forecast")


def test_a_spreadsheet_has_one_tab_sheet1_and_reads_as_before(api, world_dir):
    ep, sheet = _sheet(api, world_dir)
    read = ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet))
    assert (read["tab"], read["tabs"], read["rows"][3]) == ("Sheet1", ["Sheet1"], ["Total", 234000, None, 130400])
    assert ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, tab="sheet1"))["range"] == "A1:D4"


def test_a_formula_reads_another_tab_and_recalculates_when_it_changes(api, world_dir):
    ep, sheet = _sheet(api, world_dir)
    added = ok(call(api, ep, "docs", "add_tab", file_id=sheet, name="Q1 Plan"))
    assert (added["tab"], added["tabs"], added["rows"]) == ("Q1 Plan", ["Sheet1", "Q1 Plan"], [[None]])
    ok(call(api, ep, "docs", "update_range", file_id=sheet, range="'Q1 Plan'!B2", values=[[10], [20], [30]]))
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, cells={"F1": "=SUM('Q1 Plan'!B2:B9)", "F2": "=Sheet1!B2*2",
                                                                   "F3": "=SUM('q1 plan'!B:B)"}))
    read = ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, range="F1:F3"))
    assert read["rows"] == [[60], [368000], [60]]
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, tab="Q1 Plan", cells={"B9": 40, "B2": 15}))
    assert ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, range="F1"))["rows"] == [[105]]
    # The other way round: a formula on Q1 Plan reads Sheet1's total, and follows an edit there.
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, tab="Q1 Plan", cells={"C1": "=Sheet1!B4"}))
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, cells={"B3": 60000}))
    assert ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, range="'Q1 Plan'!C1"))["rows"] == [[244000]]
    text = ok(call(api, ep, "docs", "read_file", file_id=sheet))["content"]
    assert text.startswith("# Sheet1\nDeal,Amount") and "# Q1 Plan\n,,244000\n,15,\n" in text


def test_missing_tabs_and_cycles_across_tabs_show_ref_errors(api, world_dir):
    ep, sheet = _sheet(api, world_dir)
    ok(call(api, ep, "docs", "add_tab", file_id=sheet, name="Other"))
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, tab="Other", cells={"A1": "=Sheet1!F1+1"}))
    read = ok(call(api, ep, "docs", "update_cells", file_id=sheet, cells={"F1": "=Other!A1", "F2": "=Nowhere!A1"}))
    cells = {c["ref"]: c for c in read["cells"]}
    assert cells["F1"]["value"] == "#REF!" and "circular" in cells["F1"]["error"]
    assert cells["F2"]["value"] == "#REF!" and "no tab named 'Nowhere'" in cells["F2"]["error"]


def test_renaming_a_tab_rewrites_the_formulas_that_name_it(api, world_dir):
    ep, sheet = _sheet(api, world_dir)
    ok(call(api, ep, "docs", "add_tab", file_id=sheet, name="Plan"))
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, tab="Plan", cells={"A1": 7}))
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, cells={"F1": '=Plan!A1&" Plan!A1"', "F2": "=plan!A1*2"}))
    renamed = ok(call(api, ep, "docs", "rename_tab", file_id=sheet, tab="Plan", new_name="Q1 Plan"))
    assert renamed["tabs"] == ["Sheet1", "Q1 Plan"]
    cells = {c["ref"]: c for c in ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, range="F1:F2"))["cells"]}
    assert cells["F1"]["input"] == "='Q1 Plan'!A1&\" Plan!A1\"" and cells["F1"]["value"] == "7 Plan!A1"
    assert (cells["F2"]["input"], cells["F2"]["value"]) == ("='Q1 Plan'!A1*2", 14)
    first = ok(call(api, ep, "docs", "rename_tab", file_id=sheet, tab="Sheet1", new_name="Forecast"))
    assert (first["tab"], first["tabs"]) == ("Forecast", ["Forecast", "Q1 Plan"])


def test_tab_names_are_unique_whatever_the_case_and_never_empty(api, world_dir):
    ep, sheet = _sheet(api, world_dir)
    ok(call(api, ep, "docs", "add_tab", file_id=sheet, name="Plan"))
    taken = error(call(api, ep, "docs", "add_tab", file_id=sheet, name="PLAN"), 409)
    assert taken["field"] == "name" and "already has a tab named 'Plan'" in taken["message"]
    assert error(call(api, ep, "docs", "rename_tab", file_id=sheet, tab="Plan", new_name="  "), 422)["field"] == "new_name"
    missing = error(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, tab="Budget"), 422)
    assert missing["field"] == "tab" and "Sheet1, Plan" in missing["message"]
    clash = error(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, tab="Plan", range="Sheet1!A1"), 422)
    assert clash["field"] == "range"


def test_deleting_a_tab_leaves_its_readers_at_ref_and_keeps_the_last_tab(api, world_dir):
    ep, sheet = _sheet(api, world_dir)
    ok(call(api, ep, "docs", "add_tab", file_id=sheet, name="Plan"))
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, tab="Plan", cells={"A1": 7}))
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, cells={"F1": "=Plan!A1"}))
    left = ok(call(api, ep, "docs", "delete_tab", file_id=sheet, tab="plan"))
    assert left["tabs"] == ["Sheet1"] and {c["ref"]: c["value"] for c in left["cells"]}["F1"] == "#REF!"
    last = error(call(api, ep, "docs", "delete_tab", file_id=sheet, tab="Sheet1"), 409)
    assert last["field"] == "tab" and "only tab" in last["message"]
    again = ok(call(api, ep, "docs", "add_tab", file_id=sheet, name="Plan"))   # a new, empty tab of that name
    assert again["rows"] == [[None]]


def test_tabs_move_and_a_spreadsheet_whose_first_tab_moves_reads_the_new_first(api, world_dir):
    ep, sheet = _sheet(api, world_dir)
    ok(call(api, ep, "docs", "add_tab", file_id=sheet, name="B"))
    ok(call(api, ep, "docs", "add_tab", file_id=sheet, name="A", index=0))
    assert ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet))["tabs"] == ["A", "Sheet1", "B"]
    moved = ok(call(api, ep, "docs", "move_tab", file_id=sheet, tab="B", index=0))
    assert moved["tabs"] == ["B", "A", "Sheet1"]
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, cells={"A1": "first"}))   # no tab named: the first, B
    assert ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, tab="B"))["rows"] == [["first"]]
    assert error(call(api, ep, "docs", "move_tab", file_id=sheet, tab="B", index=-1), 422)["field"] == "index"


def test_revisions_keep_every_tab_and_restoring_brings_the_tabs_back(api, world_dir):
    ep, sheet = _sheet(api, world_dir)
    ok(call(api, ep, "docs", "add_tab", file_id=sheet, name="Plan"))
    saved = ok(call(api, ep, "docs", "update_cells", file_id=sheet, tab="Plan", cells={"A1": 7}))["revision"]
    ok(call(api, ep, "docs", "delete_tab", file_id=sheet, tab="Plan"))
    old = ok(call(api, ep, "docs", "get_revision", file_id=sheet, revision_number=saved))["content"]
    assert "# Plan\n7\n" in old and old.startswith("# Sheet1\nDeal,")
    restored = ok(call(api, ep, "docs", "restore_revision", file_id=sheet, revision_number=saved))
    assert "# Plan\n7\n" in restored["content"]
    assert ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet, tab="Plan"))["rows"] == [[7]]
    one_tab = ok(call(api, ep, "docs", "restore_revision", file_id=sheet, revision_number=1))
    assert one_tab["content"].startswith("Deal,Amount")
    assert ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet))["tabs"] == ["Sheet1"]


def test_a_copy_keeps_every_tab(api, world_dir):
    ep, sheet = _sheet(api, world_dir)
    ok(call(api, ep, "docs", "add_tab", file_id=sheet, name="Plan"))
    ok(call(api, ep, "docs", "update_cells", file_id=sheet, tab="Plan", cells={"A1": "=Sheet1!B2"}))
    copy = ok(call(api, ep, "docs", "copy", file_id=sheet))["id"]
    read = ok(call(api, ep, "docs", "get_spreadsheet", file_id=copy, tab="Plan"))
    assert (read["tabs"], read["rows"]) == (["Sheet1", "Plan"], [[184000]])


def test_a_commenter_cannot_change_tabs(api, world_dir):
    ep = start(api, world_dir, "mei@small.test")
    plan = file_id(api, ep, "Globex renewal plan")   # mei comments on it
    assert "you are a commenter" in error(call(api, ep, "docs", "add_tab", file_id=plan, name="X"), 403)["message"]


def test_tabs_over_the_cli(live_server, world_dir):
    episode = new_episode(live_server, world_dir, "dana@small.test")

    def run(*args):
        return run_ow(live_server, episode["id"], "docs", *args)
    sheet = json.loads(run("search", "pipeline", "--json").stdout)["files"][0]["id"]
    added = run("add-tab", "--file-id", str(sheet), "--name", "Q1 Plan", "--json")
    assert added.returncode == 0, added.stderr
    run("update-cells", "--file-id", str(sheet), "--tab", "Q1 Plan", "--cells", '{"A1": 5}')
    run("update-cells", "--file-id", str(sheet), "--cells", json.dumps({"F1": "='Q1 Plan'!A1*3"}))
    read = run("get-spreadsheet", "--file-id", str(sheet), "--range", "F1", "--json")
    assert read.returncode == 0 and json.loads(read.stdout)["rows"] == [[15]], read.stderr
