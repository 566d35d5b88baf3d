"""The shipped acme workspace: big enough, consistent with mail and the CRM."""

from collections import Counter

import pytest

from apps.docs import sheets
from apps.docs.formulas import FormulaError, Sheet
from simulator.store.registry import world_sections
from worlds import load_world


@pytest.fixture(scope="module")
def acme():
    return load_world("acme", world_sections())


def test_the_workspace_has_the_promised_size(acme):
    items = acme.sections["docs"].items
    kinds = Counter(i.type for i in items)
    assert kinds["document"] >= 80 and kinds["spreadsheet"] >= 10 and kinds["file"] >= 20
    assert sum(bool(i.comments) for i in items) >= 5 and sum(bool(i.revisions) for i in items) >= 3


def test_mail_attachments_kept_in_drive_have_the_same_bytes(acme):
    uploads = {i.name: i.content for i in acme.sections["docs"].items if i.type == "file"}
    mailed = {a.filename: a.content for m in acme.sections["mail"].messages for a in m.attachments}
    shared = set(uploads) & set(mailed)
    assert len(shared) >= 20
    assert all(uploads[name] == mailed[name] for name in shared)


def test_the_pipeline_forecast_totals_match_the_q1_numbers_in_mail(acme):
    forecast = next(i for i in acme.sections["docs"].items if i.name == "Q1 2026 pipeline forecast")
    grid = Sheet(sheets.from_rows(forecast.rows))
    totals = {row[1]: grid.value(r, 7) for r, row in enumerate(forecast.rows, start=1) if row and row[1].startswith("Total")}
    assert totals == {"Total Closed": 877200, "Total Commit": 402800, "Total Best Case": 240000}
    assert not any(isinstance(grid.value(r, 9), FormulaError) for r in range(2, len(forecast.rows)))
