"""The perception families: the oracle describes what it read and earns perception 1 beside its reward; the same
work with the description that leaves out the asked value, or states a figure it never read, keeps the reward
and scores 0 on perception."""

from __future__ import annotations

import pytest
from family_runs import first_task, reward

from scenarios.families.perception import FAMILIES
from tasks.qa.attempt import call
from tasks.qa.perceiving import INVENTED


def described(task, text: str):
    return [call("task.describe_view", description=text) if c.op == "task.describe_view" else c for c in task.oracle]


@pytest.mark.parametrize("family", [f.id for f in FAMILIES])
def test_the_description_is_graded_beside_the_reward(catalog, family):
    task = first_task(catalog, family)
    assert "describe_view" in task.prompt and "perception" in task.tags
    assert any(c.role == "perception" for c in task.criteria)
    done = reward(catalog, task, task.oracle)
    assert (done.total, done.perception) == (1.0, 1.0)
    oracle_text = next(str(c.args["description"]) for c in task.oracle if c.op == "task.describe_view")
    vague = described(task, "I read the records the question is about; the answer is among them.")
    invented = described(task, oracle_text.replace("$$", "$") + INVENTED)
    for calls in (vague, invented):
        graded = reward(catalog, task, calls)
        assert (graded.total, graded.perception) == (1.0, 0.0), graded.criteria
