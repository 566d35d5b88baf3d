"""What the scripted agents know about one task: its oracle with every reference resolved, the
answer it expects, and the records of its initial state (``Targets``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tasks.comparators import matches
from tasks.model import AnswerCheck, Call, Task
from tasks.qa.attempt import escape
from tasks.qa.targets import Targets
from tasks.refs import resolve
from tasks.session import Operations


@dataclass
class Expected:
    """One answer criterion, resolved: its type, the right value and the candidates around it."""

    type: str
    value: Any
    candidates: list[str]
    tolerance: float = 0
    tokens: list[str] | None = None


@dataclass
class Context:
    task: Task
    scope: dict[str, Any]
    operations: Operations
    targets: Targets
    tz: str
    oracle: list[Call] = field(default_factory=list)
    alternatives: list[list[Call]] = field(default_factory=list)
    expected: list[Expected] = field(default_factory=list)

    @classmethod
    def build(cls, task: Task, scope: dict, operations: Operations, targets: Targets, tz: str) -> "Context":
        ctx = cls(task, scope, operations, targets, tz)
        ctx.oracle = ctx.concrete(task.oracle)
        ctx.alternatives = [ctx.concrete(alt) for alt in task.alternatives]
        ctx.expected = [ctx._expected(c.answer) for c in task.criteria if c.answer is not None and c.role == "goal"]
        return ctx

    def concrete(self, calls: list[Call]) -> list[Call]:
        return [Call(op=c.op, args=escape(resolve(c.args, self.scope))) for c in calls]

    def mutates(self, call: Call) -> bool:
        return call.app != "task" and self.operations[call.op].mutates

    def writes(self, calls: list[Call]) -> list[int]:
        return [i for i, c in enumerate(calls) if self.mutates(c)]

    def reads(self, calls: list[Call]) -> list[Call]:
        return [c for c in calls if c.app != "task" and not self.operations[c.op].mutates]

    def answer_index(self, calls: list[Call]) -> int | None:
        found = [i for i, c in enumerate(calls) if c.op == "task.submit_answer"]
        return found[-1] if found else None

    @property
    def graded_answer(self) -> bool:
        """Whether the final answer is graded (an answer criterion, or an outcome of refuse or ask)."""
        return bool(self.expected) or self.task.outcome in ("refuse", "ask") or any(
            c.judge is not None and c.judge.target == "answer" for c in self.task.criteria)

    @property
    def trajectory_bound(self) -> bool:
        """Whether criteria limit the steps (then extra reads are not harmless)."""
        return any(c.trajectory is not None and (c.trajectory.max_steps or c.trajectory.read_before_write)
                   for c in self.task.criteria)

    @property
    def banned(self) -> set[str]:
        return {op for c in self.task.criteria if c.trajectory is not None for op in c.trajectory.not_called}

    def _expected(self, spec: AnswerCheck) -> Expected:
        candidates = resolve(spec.candidates, self.scope)
        if isinstance(candidates, dict):
            rows = [r for r in self.targets.records(candidates["from"])
                    if matches(r, candidates.get("where", {}), self.tz)]
            candidates = [str(r[candidates["field"]]) for r in rows if r.get(candidates["field"])]
        return Expected(spec.type, resolve(spec.expect, self.scope), [str(c) for c in candidates or []],
                        spec.tolerance, resolve(spec.tokens, self.scope))
