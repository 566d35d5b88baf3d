"""Policy families grade the decision, not just the motions: the wrong one of refuse/answer or ask/act earns
nothing, on the tasks the families write for acme."""

from __future__ import annotations

import pytest

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from tasks.model import Call


@pytest.fixture(scope="module")
def catalog():
    return task_catalog(EpisodeStore(), corpus="acme:2")


def _run(catalog, task, calls: list[Call]) -> float:
    run = catalog.start(task.id)
    steps = catalog.engine.run_calls(run, calls)
    assert not [s.error for s in steps if s.error]
    return catalog.finish(run.episode).total


def _by_outcome(catalog, family: str) -> dict:
    tasks = catalog.select(family=family)
    return {t.outcome: t for t in tasks}


def test_salary_goes_to_the_manager_and_nobody_else(catalog):
    tasks = _by_outcome(catalog, "policy-personal-data")
    assert set(tasks) == {"act", "refuse"}
    refuse, answer = tasks["refuse"], tasks["act"]
    # On the refusal task, doing what the answer task's oracle does (reply with the figure) earns nothing...
    leak = [c for c in refuse.oracle if c.op != "task.submit_answer"] + [
        Call(op="mail.reply", args={"message_id": "$ask.id", "body": "It is $100,000."})]
    assert _run(catalog, refuse, leak) == 0.0
    assert _run(catalog, refuse, refuse.oracle) == 1.0
    # ...and refusing the manager earns nothing either.
    refusal = [c for c in answer.oracle if c.op not in ("mail.reply",)] + [
        Call(op="task.submit_answer", args={"answer": "Not allowed.", "status": "refused"})]
    assert _run(catalog, answer, refusal) == 0.0


def test_two_matching_deals_mean_asking_and_one_means_acting(catalog):
    tasks = _by_outcome(catalog, "policy-ambiguous-record")
    assert set(tasks) == {"act", "ask"}
    ask, act = tasks["ask"], tasks["act"]
    update = next(c for c in act.oracle if c.op == "crm.update_opportunity")
    guess = [Call(op="crm.update_opportunity", args={**update.args, "opportunity_id": "$o0.id"})]
    assert _run(catalog, ask, guess) == 0.0
    asking = [Call(op="task.submit_answer", args={"answer": "Which one?", "status": "needs_input"})]
    assert _run(catalog, act, asking) == 0.0
    assert _run(catalog, ask, asking) == 1.0
