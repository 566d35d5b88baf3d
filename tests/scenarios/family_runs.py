"""What the per-module family tests share: run calls in a fresh episode of a generated task and grade it."""

from __future__ import annotations

from tasks.checks import Grading
from tasks.qa import fairness
from tasks.reward import Reward


def reward(catalog, task, calls) -> Reward:
    """The reward of ``calls`` (none refused) in a fresh episode of ``task``."""
    run = catalog.start(task.id)
    steps = catalog.engine.run_calls(run, calls)
    assert not [s.error for s in steps if s.error]
    return catalog.finish(run.episode)


def first_task(catalog, family: str):
    found = catalog.select(family=family)
    assert found, family
    return found[0]


def already_done(catalog, task) -> list[str]:
    """What the not-already-done gate (``tasks.qa.fairness.already_done``) finds in a fresh episode of ``task``
    before any call: goals over records the starting state already meets."""
    run = catalog.engine.begin(task)
    try:
        state = run.prepared.state
        grading = Grading(task, run.scope, state, state, [], run.episode.world.info.timezone)
        return [f"{f.run}: {f.evidence}" for f in fairness.already_done(run, None, grading)]
    finally:
        catalog.engine.release(run.episode)
