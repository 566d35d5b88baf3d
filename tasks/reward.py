"""The reward: criteria results combined by role into one value in [0, 1].

- Any criterion in ``error`` makes the episode ungradable: ``total`` is None, never a pass or a fail.
  So does a goal, guard or penalty that could not be checked at all (``na``: a judged criterion with
  no judge configured): a criterion is never dropped from the reward. Only diagnostics may be ``na``.
- ``passed`` needs every goal and guard to pass and no penalty (collateral damage included) to fire;
  then ``total`` is 1.0.
- Otherwise: a failed guard gives 0, and so does any failed penalty (collateral damage included):
  damage never scores above an untouched episode, whose goals fail (0). Else partial credit,
  ``PARTIAL * weighted goal fraction``, below the pass mark; a run whose goals all fail (doing
  nothing, or only claiming success) scores 0.
- ``perception`` criteria (weight 0) leave ``total`` alone: their mean score is ``perception``, beside it,
  for a trainer to weight (None when the task asks for no perception, or when one could not be checked: a
  perception judged by an uncalibrated or absent judge leaves the perception ungradable, not the reward).
- ``evidence``: the mean score of the criteria that check cited evidence (``trajectory: {evidence: true}``),
  of whatever role, beside the reward too (None without any).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

PARTIAL = 0.5


class CriterionScore(BaseModel):
    id: str
    role: Literal["goal", "guard", "penalty", "diagnostic", "perception"]
    weight: float
    status: Literal["pass", "fail", "error", "na"]
    score: float
    message: str = ""
    evidence: Any = None
    kind: str | None = Field(None, description="What the criterion checks: records, answer, trajectory, evidence, "
                                               "judge, python, perception (None for the built-in ones)")


class Reward(BaseModel):
    task: str
    version: int
    total: float | None = Field(description="In [0, 1]; None when the episode could not be graded")
    passed: bool
    gradable: bool
    criteria: list[CriterionScore]
    collateral: list[dict] = Field(default_factory=list, description="Changes no correct run makes, per record and field")
    errors: list[str] = Field(default_factory=list)
    perception: float | None = Field(None, description="The mean score of the perception criteria; None without "
                                                       "any, or when one could not be checked")
    evidence: float | None = Field(None, description="The mean score of the evidence criteria; None without any")

    def breakdown(self) -> dict[str, float]:
        """Per criterion, its score: what per-criterion reward functions report."""
        return {c.id: c.score for c in self.criteria}


def combine(task: str, version: int, scores: list[CriterionScore], collateral: list[dict]) -> Reward:
    errors = [f"{c.id}: {c.message}" for c in scores if c.status == "error" and c.role != "perception"]
    perception = _mean([c for c in scores if c.role == "perception"])
    evidence = _mean([c for c in scores if c.kind == "evidence"])
    errors += [f"{c.id}: could not be checked: {c.message}" for c in scores
               if c.status == "na" and c.role not in ("diagnostic", "perception")]
    goals = [c for c in scores if c.role == "goal"]
    if not errors and not goals:
        errors = ["no goal criterion could be checked"]
    if errors:
        return Reward(task=task, version=version, total=None, passed=False, gradable=False,
                      criteria=scores, collateral=collateral, errors=errors, perception=perception, evidence=evidence)
    guards_ok = all(c.status != "fail" for c in scores if c.role == "guard")
    failed_penalties = [c for c in scores if c.role == "penalty" and c.status == "fail"]
    goals_ok = all(c.status == "pass" for c in goals)
    passed = goals_ok and guards_ok and not failed_penalties
    if passed:
        total = 1.0
    elif not guards_ok or failed_penalties:
        total = 0.0
    else:
        weight = sum(c.weight for c in goals) or 1.0
        total = PARTIAL * sum(c.weight * c.score for c in goals) / weight
    return Reward(task=task, version=version, total=round(total, 6), passed=passed, gradable=True,
                  criteria=scores, collateral=collateral, perception=perception, evidence=evidence)


def _mean(scores: list[CriterionScore]) -> float | None:
    """The mean score of ``scores``; None when there are none or one could not be checked."""
    if not scores or any(c.status not in ("pass", "fail") for c in scores):
        return None
    return round(sum(c.score for c in scores) / len(scores), 6)
