"""What the per-module family tests share: run calls in a fresh episode of a generated task and grade it."""

from __future__ import annotations

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
