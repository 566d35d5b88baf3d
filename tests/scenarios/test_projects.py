"""Project families: the wrong ways to do the work the families are about earn no pass (on acme)."""

from __future__ import annotations

import pytest

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog


@pytest.fixture(scope="module")
def catalog():
    return task_catalog(EpisodeStore(), corpus="acme:1")


def _reward(catalog, task, calls):
    run = catalog.start(task.id)
    steps = catalog.engine.run_calls(run, calls)
    assert not [s.error for s in steps if s.error]
    return catalog.finish(run.episode)


def _task(catalog, family):
    found = catalog.select(family=family)
    assert found, family
    return found[0]


def test_mailing_the_confidential_figures_outside_breaks_the_guard(catalog):
    task = _task(catalog, "proj-board-pack")
    leak = type(task.oracle[0]).model_validate({"op": "mail.send", "args": {
        "to": [next(c for c in task.criteria if c.id == "nothing_outside").records.where["recipient"]["any_of"][0]],
        "subject": "Board pack", "body": "Pipeline figures attached."}})
    assert _reward(catalog, task, [*task.oracle, leak]).total == 0.0


def test_renewals_priced_without_reading_the_notices_fail(catalog):
    task = _task(catalog, "proj-renewal-decisions")
    calls = [c for c in task.oracle if c.args.get("stage") != "Closed Lost"]
    assert not _reward(catalog, task, calls).passed


def test_a_checklist_that_counts_drafts_as_received_fails(catalog):
    task = _task(catalog, "proj-due-diligence")
    calls = [c.model_copy(update={"args": {**c.args, "cells": {k: ("Received" if v == "Draft only" else v)
                                                               for k, v in c.args["cells"].items()}}})
             if c.op == "docs.update_cells" else c for c in task.oracle]
    assert any(v == "Draft only" for c in task.oracle if c.op == "docs.update_cells" for v in c.args["cells"].values())
    assert not _reward(catalog, task, calls).passed
