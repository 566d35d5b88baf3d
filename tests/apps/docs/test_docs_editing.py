"""Editing documents and spreadsheets over REST, and the revision history every edit leaves."""

from docs_factories import PLAN, PLAN_V1, error, file_id, ok, start
from surfaces import call


def test_read_file_gives_a_document_as_markdown_with_its_revision(api, world_dir):
    ep = start(api, world_dir)
    read = ok(call(api, ep, "docs", "read_file", file_id=file_id(api, ep, "Globex renewal plan")))
    assert (read["encoding"], read["content"], read["revision"]) == ("text", PLAN, 2)


def test_replace_append_and_write_each_make_a_revision_with_author_and_virtual_time(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    plan = file_id(api, ep, "Globex renewal plan")
    edited = ok(call(api, ep, "docs", "replace_in_document", file_id=plan, find="184,000 USD",
                     replace_with="172,000 USD"))
    assert "172,000 USD" in edited["content"] and "184,000" not in edited["content"]
    appended = ok(call(api, ep, "docs", "append_to_document", file_id=plan, text="## Next steps\n\nSend the quote."))
    assert appended["content"].endswith("Budget freeze at Globex.\n\n## Next steps\n\nSend the quote.")
    written = ok(call(api, ep, "docs", "write_document", file_id=plan, text="# Short plan\n"))
    assert written["revision"] == 5 and written["file"]["modified_by"] == "ravi@small.test"
    history = ok(call(api, ep, "docs", "list_revisions", file_id=plan))
    assert [(r["number"], r["author"], r["current"]) for r in history][:3] == [
        (5, "ravi@small.test", True), (4, "ravi@small.test", False), (3, "ravi@small.test", False)]
    assert history[0]["created_at"] > history[1]["created_at"] > history[2]["created_at"]
    assert history[0]["created_at"] == written["file"]["modified_at"]
    assert history[0]["created_at"].startswith("2026-03-16T13:00")


def test_replace_fails_clearly_when_the_passage_is_absent_or_ambiguous(api, world_dir):
    ep = start(api, world_dir)
    plan = file_id(api, ep, "Globex renewal plan")
    absent = error(call(api, ep, "docs", "replace_in_document", file_id=plan, find="Initech", replace_with="x"), 422)
    assert absent["field"] == "find" and "does not appear" in absent["message"]
    twice = error(call(api, ep, "docs", "replace_in_document", file_id=plan, find="Globex", replace_with="G"), 422)
    assert twice["field"] == "find" and "appears 2 times" in twice["message"]
    every = ok(call(api, ep, "docs", "replace_in_document", file_id=plan, find="Globex", replace_with="Globex Corp",
                    replace_all=True))
    assert every["content"].count("Globex Corp") == 2
    assert len(ok(call(api, ep, "docs", "list_revisions", file_id=plan))) == 3


def test_an_old_revision_can_be_read_and_restored_as_a_new_one(api, world_dir):
    ep = start(api, world_dir)
    plan = file_id(api, ep, "Globex renewal plan")
    first = ok(call(api, ep, "docs", "get_revision", file_id=plan, revision_number=1))
    assert (first["content"], first["author"], first["current"]) == (PLAN_V1, "dana@small.test", False)
    restored = ok(call(api, ep, "docs", "restore_revision", file_id=plan, revision_number=1))
    assert (restored["content"], restored["revision"]) == (PLAN_V1, 3)
    assert ok(call(api, ep, "docs", "get_revision", file_id=plan, revision_number=2))["content"] == PLAN
    missing = error(call(api, ep, "docs", "get_revision", file_id=plan, revision_number=9), 404)
    assert missing["field"] == "revision_number" and "1 to 3" in missing["message"]


def test_editing_the_wrong_kind_of_file_says_which_operation_to_use(api, world_dir):
    ep = start(api, world_dir)
    sheet = file_id(api, ep, "Pipeline forecast")
    wrong = error(call(api, ep, "docs", "write_document", file_id=sheet, text="x"), 422)
    assert wrong["field"] == "file_id" and "update_cells" in wrong["message"]


def test_spreadsheet_formulas_are_evaluated_on_read(api, world_dir):
    ep = start(api, world_dir)
    sheet = ok(call(api, ep, "docs", "get_spreadsheet", file_id=file_id(api, ep, "Pipeline forecast")))
    assert sheet["range"] == "A1:D4"
    assert sheet["rows"][3] == ["Total", 234000, None, 130400]
    weighted = next(c for c in sheet["cells"] if c["ref"] == "D2")
    assert (weighted["input"], weighted["value"]) == ("=B2*C2", 110400)
    part = ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet["file"]["id"], range="B2:B3"))
    assert part["rows"] == [[184000], [50000]]
    assert error(call(api, ep, "docs", "get_spreadsheet", file_id=sheet["file"]["id"], range="B2:"), 422)["field"] == "range"


def test_updating_cells_recomputes_dependants_and_saves_a_revision(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    sheet_id = file_id(api, ep, "Pipeline forecast")
    updated = ok(call(api, ep, "docs", "update_cells", file_id=sheet_id, cells={"B3": 60000, "C3": "0.5"}))
    assert updated["rows"][3] == ["Total", 244000, None, 140400] and updated["revision"] == 2
    errors = ok(call(api, ep, "docs", "update_cells", file_id=sheet_id, cells={
        "E1": "=B2/0", "E2": "=NOPE(B2)", "E3": "=E4", "E4": "=E3", "E5": "=AAAA1+1", "E6": "=A1*2", "E7": "=(1+"}))
    shown = {c["ref"]: (c["value"], c["error"]) for c in errors["cells"] if c["ref"].startswith("E")}
    assert shown["E1"][0] == "#DIV/0!" and shown["E2"][0] == "#NAME?" and shown["E7"][0] == "#ERROR!"
    assert shown["E3"][0] == "#REF!" and "circular" in shown["E3"][1] and shown["E4"][0] == "#REF!"
    assert shown["E6"][0] == "#VALUE!"
    assert error(call(api, ep, "docs", "update_cells", file_id=sheet_id, cells={"B0": 1}), 422)["field"] == "cells"


def test_ranges_and_appended_rows(api, world_dir):
    ep = start(api, world_dir)
    sheet_id = file_id(api, ep, "Pipeline forecast")
    block = ok(call(api, ep, "docs", "update_range", file_id=sheet_id, range="A5:C6",
                    values=[["Hooli", 20000, 0.1], ["Umbrella", 10000, 0.9]]))
    assert block["rows"][4][:3] == ["Hooli", 20000, 0.1]
    misfit = error(call(api, ep, "docs", "update_range", file_id=sheet_id, range="A5:C6", values=[["x"]]), 422)
    assert misfit["field"] == "values" and "do not fill" in misfit["message"]
    appended = ok(call(api, ep, "docs", "append_rows", file_id=sheet_id, rows=[["Sum", "=SUM(B5:B6)"]]))
    assert appended["rows"][-1][:2] == ["Sum", 30000] and appended["range"] == "A1:D7"
    old = ok(call(api, ep, "docs", "get_revision", file_id=sheet_id, revision_number=1))
    assert old["content"].splitlines()[1] == "Globex,184000,0.6,=B2*C2"
    back = ok(call(api, ep, "docs", "restore_revision", file_id=sheet_id, revision_number=1))
    assert back["content"].splitlines()[-1] == "Total,234000,,130400" and back["revision"] == 4


def test_whole_columns_and_rows_are_read_and_written_as_in_sheets(api, world_dir):
    ep = start(api, world_dir, "ravi@small.test")
    sheet_id = file_id(api, ep, "Pipeline forecast")
    column = ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet_id, range="B:B"))
    assert column["range"] == "B1:B4" and [r[0] for r in column["rows"]][1:] == [184000, 50000, 234000]
    row = ok(call(api, ep, "docs", "get_spreadsheet", file_id=sheet_id, range="4:4"))
    assert row["rows"] == [["Total", 234000, None, 130400]]
    counted = ok(call(api, ep, "docs", "update_cells", file_id=sheet_id, cells={"G1": "=COUNTA(A:A)"}))
    assert counted["rows"][0][6] == 4
    grown = ok(call(api, ep, "docs", "append_rows", file_id=sheet_id, rows=[["Hooli", 20000]]))
    assert grown["rows"][0][6] == 5   # the whole column reaches the new row
    written = ok(call(api, ep, "docs", "update_range", file_id=sheet_id, range="E:E", values=[["Note"], ["ok"]]))
    assert [r[4] for r in written["rows"][:2]] == ["Note", "ok"]
    assert error(call(api, ep, "docs", "get_spreadsheet", file_id=sheet_id, range="B:2"), 422)["field"] == "range"
