"""One scripted run of a task, and what came of it.

An ``Attempt`` is right work (it must pass: the oracle, an alternative, a harmless reordering) or
wrong work (it must fail: doing nothing, claiming success, a mutant, a hack). ``strict`` wrong work
may never pass; the rest (most mutants) counts toward the 95% a task's mutants must reach.
``frozen`` attempts run with the clock stopped after setup, so that their final state can be
compared with the oracle's byte for byte (a mutant that leaves the same state is "equivalent").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tasks.model import Call

Gate = str  # oracle | alternative | reorder | variation | surface | nothing | read_only | claims | random | mutant | hack
#              | perception (judged on Reward.perception, which must be 0)


@dataclass
class Attempt:
    gate: Gate
    name: str
    calls: list[Call]
    right: bool
    kind: str = ""
    strict: bool = False
    frozen: bool = False
    surface: str = "python"
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Outcome:
    attempt: Attempt
    total: float | None
    passed: bool
    gradable: bool
    breakdown: dict[str, float]
    failed: list[str]
    step_errors: list[str]
    digest: str | None = None
    equivalent: bool = False
    seconds: float = 0.0
    note: str = ""
    perception: float | None = None   # Reward.perception: what the perception runs are judged on

    @property
    def counts(self) -> bool:
        """Whether it enters the false-positive or false-negative figures (equivalent mutants do not, nor do the
        perception runs, judged on perception alone)."""
        return not self.equivalent and not self.attempt.meta.get("guessable") and not self.attempt.meta.get("perception")

    @property
    def wrong_passed(self) -> bool:
        return not self.attempt.right and self.passed

    @property
    def right_failed(self) -> bool:
        return self.attempt.right and not self.passed

    def brief(self) -> dict:
        a = self.attempt
        out = {"gate": a.gate, "run": a.name, "right_work": a.right, "total": self.total, "passed": self.passed}
        if a.kind:
            out["kind"] = a.kind
        if self.failed:
            out["failed_criteria"] = self.failed
        if self.step_errors:
            out["step_errors"] = self.step_errors[:3]
        if self.perception is not None:
            out["perception"] = self.perception
        if self.equivalent:
            out["equivalent"] = True
        if self.note:
            out["note"] = self.note
        out["calls"] = [f"{c.op} {_short(c.args)}" for c in a.calls][:8]
        return out


def call(op: str, **args) -> Call:
    return Call(op=op, args=escape(args))


def escape(value: Any) -> Any:
    """A concrete value as task calls carry it: a literal ``$`` is written ``$$`` so it is not a reference."""
    if isinstance(value, str):
        return value.replace("$", "$$")
    if isinstance(value, dict):
        return {k: escape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [escape(v) for v in value]
    return value


def unescape(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("$$", "$")
    if isinstance(value, dict):
        return {k: unescape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unescape(v) for v in value]
    return value


def answer_call(text: str, status: str | None = None) -> Call:
    return call("task.submit_answer", answer=text, **({"status": status} if status else {}))


def _short(args: dict) -> str:
    text = str(unescape(args))
    return text[:160] + "…" if len(text) > 160 else text
