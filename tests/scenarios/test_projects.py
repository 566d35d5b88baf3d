"""Project families: the wrong ways to do the work the families are about earn no pass (on acme)."""

from __future__ import annotations

import family_runs as runs

from scenarios.corpus import write
from scenarios.registry import FAMILIES
from scenarios.view import WorldView
from simulator.store.registry import world_sections
from worlds.loader import load_world


def test_mailing_the_confidential_figures_outside_breaks_the_guard(catalog):
    task = runs.first_task(catalog, "proj-board-pack")
    leak = type(task.oracle[0]).model_validate({"op": "mail.send", "args": {
        "to": [next(c for c in task.criteria if c.id == "nothing_outside").records.where["recipient"]["any_of"][0]],
        "subject": "Board pack", "body": "Pipeline figures attached."}})
    assert runs.reward(catalog, task, [*task.oracle, leak]).total == 0.0


def test_renewals_priced_without_reading_the_notices_fail(catalog):
    task = runs.first_task(catalog, "proj-renewal-decisions")
    calls = [c for c in task.oracle if c.args.get("stage") != "Closed Lost"]
    assert not runs.reward(catalog, task, calls).passed


def test_a_checklist_that_counts_drafts_as_received_fails(catalog):
    task = runs.first_task(catalog, "proj-due-diligence")
    calls = [c.model_copy(update={"args": {**c.args, "cells": {k: ("Received" if v == "Draft only" else v)
                                                               for k, v in c.args["cells"].items()}}})
             if c.op == "docs.update_cells" else c for c in task.oracle]
    assert any(v == "Draft only" for c in task.oracle if c.op == "docs.update_cells" for v in c.args["cells"].values())
    assert not runs.reward(catalog, task, calls).passed


def _pack_rows(task) -> tuple[list, list[list[str]]]:
    calls = list(task.oracle)
    at = next(i for i, c in enumerate(calls) if c.op == "docs.create_spreadsheet")
    return calls, calls[at].args["rows"]


def _with_rows(calls: list, rows: list[list[str]]) -> list:
    return [c.model_copy(update={"args": {**c.args, "rows": rows}}) if c.op == "docs.create_spreadsheet" else c
            for c in calls]


def test_the_quarter_close_sheet_is_a_new_one_showing_the_total(catalog):
    task = runs.first_task(catalog, "proj-quarter-close")
    assert runs.already_done(catalog, task) == []   # acme's forecast sheets hold several of these deals' amounts
    calls, rows = _pack_rows(task)
    summed = rows[:-1] + [["Total", f"=SUM(B2:B{len(rows) - 1})"]]   # a formula's total shows its value
    assert runs.reward(catalog, task, _with_rows(calls, summed)).passed
    sheet = {c.id: c.status for c in runs.reward(catalog, task, _with_rows(calls, rows[:-1])).criteria
             if c.id.startswith("sheet_")}
    assert sheet and set(sheet.values()) == {"fail"}   # the deals without the total are no pack


def test_every_quarter_close_pack_sums_at_least_two_deals():
    # harbor-legal's 14th draw won a single deal this quarter: its total was its own amount, so a sheet without
    # the total row passed as the pack; the family now adds won deals until there are two
    family = next(f for f in FAMILIES if f.id == "proj-quarter-close")
    written = write(WorldView(load_world("harbor-legal", world_sections())), [family], 20)
    assert len(written.tasks) == 20 and not written.problems
    for task in written.tasks:
        rows = next(c["args"]["rows"] for c in task["oracle"] if c["op"] == "docs.create_spreadsheet")
        deals = [r for r in rows[1:-1] if float(r[1])]
        assert len(deals) >= 2, task["id"]
