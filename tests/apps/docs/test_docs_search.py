"""Search over REST: full text over names and content (FTS5), filters, and only what you may open."""

from docs_factories import error, file_id, ok, start
from surfaces import call


def names(result: dict) -> list[str]:
    return [f["name"] for f in result["files"]]


def test_full_text_finds_words_in_content_and_names(api, world_dir):
    ep = start(api, world_dir)
    assert names(ok(call(api, ep, "docs", "search", query="budget freeze"))) == ["Globex renewal plan"]
    assert names(ok(call(api, ep, "docs", "search", query="forecast", type="spreadsheet"))) == ["Pipeline forecast"]
    assert set(names(ok(call(api, ep, "docs", "search", query="forecasts")))) == {"Pipeline forecast", "Forecasts"}
    assert names(ok(call(api, ep, "docs", "search", query="licence"))) == ["quote.csv"]
    assert names(ok(call(api, ep, "docs", "search", query='"three years"'))) == ["Globex renewal plan"]
    assert ok(call(api, ep, "docs", "search", query='"years three"'))["total"] == 0


def test_a_sheet_is_found_by_its_computed_values(api, world_dir):
    ep = start(api, world_dir)
    assert names(ok(call(api, ep, "docs", "search", query="130400"))) == ["Pipeline forecast"]


def test_filters_owner_type_dates_shared_and_starred(api, world_dir):
    ep = start(api, world_dir)
    assert set(names(ok(call(api, ep, "docs", "search", owner="me", type="document")))) == {"Globex renewal plan"}
    assert names(ok(call(api, ep, "docs", "search", owner="mei@small.test"))) == ["Support runbook"]
    assert names(ok(call(api, ep, "docs", "search", type="spreadsheet"))) == ["Pipeline forecast"]
    assert set(names(ok(call(api, ep, "docs", "search", modified_after="2026-03-06")))) == {
        "Globex renewal plan", "quote.csv", "logo.png"}
    assert names(ok(call(api, ep, "docs", "search", modified_before="2026-01-16"))) == ["Support runbook"]
    assert names(ok(call(api, ep, "docs", "search", shared_with_me=True))) == ["logo.png"]
    assert names(ok(call(api, ep, "docs", "search", starred=True))) == ["Globex renewal plan"]
    assert names(ok(call(api, ep, "docs", "search", name="RENEWAL"))) == ["Globex renewal plan"]


def test_new_edits_are_searchable_at_once(api, world_dir):
    ep = start(api, world_dir)
    plan = file_id(api, ep, "Globex renewal plan")
    ok(call(api, ep, "docs", "append_to_document", file_id=plan, text="Escalate to Zanzibar office."))
    assert names(ok(call(api, ep, "docs", "search", query="zanzibar"))) == ["Globex renewal plan"]
    ok(call(api, ep, "docs", "rename", file_id=plan, name="Globex deal room"))
    assert names(ok(call(api, ep, "docs", "search", query="deal room"))) == ["Globex deal room"]


def test_bad_search_arguments_name_the_field(api, world_dir):
    ep = start(api, world_dir)
    assert error(call(api, ep, "docs", "search", query="!!!"), 422)["field"] == "query"
    assert error(call(api, ep, "docs", "search", type="video"), 422)["field"] == "type"
    assert error(call(api, ep, "docs", "search", modified_after="last week"), 422)["field"] == "modified_after"
    assert error(call(api, ep, "docs", "search", limit=0), 422)["field"] == "limit"
