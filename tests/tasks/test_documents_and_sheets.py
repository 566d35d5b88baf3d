"""Documents and sheets on acme: an append keeps what was there and adds at the end; every field a
logged row asks for is checked with its type."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_grading import oracle, run

from simulator.tasks.catalog import task_catalog

SHIPPED = Path(__file__).resolve().parents[2] / "tasks" / "suites" / "docs"
APPEND, LOG = "docs-append-1on1-agenda", "docs-log-cyberdyne-discount"


@pytest.fixture
def catalog(task_store, tmp_path):
    root = tmp_path / "suites" / "docs"
    root.mkdir(parents=True)
    for name in ("append-1on1.yaml", "discount-log-row.yaml"):
        shutil.copy(SHIPPED / name, root / name)
    return task_catalog(task_store, root.parent)


def test_an_append_passes_and_a_rewrite_with_the_new_line_fails(catalog):
    reward, _ = run(catalog, APPEND, oracle(catalog, APPEND))
    assert reward.passed
    calls = oracle(catalog, APPEND)
    append = calls[-1]
    rewrite = [{"op": "docs.write_document", "args": {"file_id": append["args"]["file_id"],
                                                      "text": "Development: one goal for Q2 agreed\n- Review Tyrell pipeline"}}]
    reward, _ = run(catalog, APPEND, calls[:-1] + rewrite)
    added = next(c for c in reward.criteria if c.id == "added")
    assert not reward.passed and added.status == "fail" and "rewritten" in added.message


@pytest.mark.parametrize("cell, value", [(0, "banana"), (5, ""), (5, "Someone Else")])
def test_a_logged_row_with_a_wrong_typed_or_missing_field_fails(catalog, cell, value):
    reward, _ = run(catalog, LOG, oracle(catalog, LOG))
    assert reward.passed
    calls = oracle(catalog, LOG)
    row = list(calls[-1]["args"]["rows"][0])
    row[cell] = value
    calls[-1] = {"op": "docs.append_rows", "args": {**calls[-1]["args"], "rows": [row]}}
    reward, _ = run(catalog, LOG, calls)
    assert not reward.passed, reward.criteria
