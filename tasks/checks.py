"""Criteria, checked: each kind reads the grading context and returns a ``CheckResult``.

Every check answers pass, fail, error or not-applicable, with evidence. ``error`` means the check
could not be made (a broken task, a judge that gave no verdict); it never counts as a pass or a fail.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from apps.kit.reactor import goes_on
from apps.kit.trajectory import Step
from tasks.answers import check_answer
from tasks.comparators import ComparatorError, failures, matches
from tasks.evidence import evidence_check
from tasks.model import AnswerCheck, Count, Criterion, RecordsCheck, Task, TrajectoryCheck
from tasks.parse import numbers_in
from tasks.perception import perception_check
from tasks.records import State, UnknownKind
from tasks.refs import UnboundReference, resolve

Status = Literal["pass", "fail", "error", "na"]


@dataclass
class CheckResult:
    status: Status
    message: str = ""
    evidence: Any = None
    score: float | None = None

    def __post_init__(self):
        if self.score is None:
            self.score = 1.0 if self.status == "pass" else 0.0


@dataclass
class Grading:
    """What the verifiers read: the task, its bindings, initial and final state, the agent's steps."""

    task: Task
    scope: dict[str, Any]
    initial: State
    final: State
    steps: list[Step]
    tz: str = "UTC"
    judge: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    others: list[Step] = field(default_factory=list)   # what the world did meanwhile (``event``/``npc`` steps)

    @property
    def answer(self) -> dict | None:
        answers = self.final.records("task.answer")
        return answers[-1] if answers else None


def run_check(criterion: Criterion, grading: Grading) -> CheckResult:
    kind = criterion.kind
    spec = getattr(criterion, kind)
    try:
        return CHECKS[kind](spec, grading)
    except (ComparatorError, UnknownKind, UnboundReference, KeyError, ValueError, TypeError) as exc:
        return CheckResult("error", f"could not check: {type(exc).__name__}: {exc}")


def records_check(spec: RecordsCheck, g: Grading) -> CheckResult:
    where, expect = resolve(spec.where, g.scope), resolve(spec.expect, g.scope)
    rows = [r for r in g.final.records(spec.from_, where) if matches(r, where, g.tz)]
    fields = g.initial.key(spec.from_)
    ident = lambda r: tuple(r.get(k) for k in fields)  # noqa: E731
    compared = spec.created or spec.changed is not None or spec.unchanged or bool(spec.appended)
    before = g.initial.by_identity(spec.from_) if compared else {}
    if spec.created:
        rows = [r for r in rows if ident(r) not in before]
    shown = _evidence(rows, where, expect)
    low, high = _bounds(spec.count)
    if not low <= len(rows) <= (high if high is not None else len(rows)):
        want = f"exactly {low}" if low == high else f"at least {low}" + (f" and at most {high}" if high is not None else "")
        return CheckResult("fail", f"{len(rows)} {spec.from_} record(s) match, expected {want}", shown)
    problems = [f"#{_name(ident(r))} {p}" for r in rows for p in failures(r, expect, g.tz)]
    if spec.distinct:
        values = [r.get(spec.distinct) for r in rows]
        repeated = sorted({str(v) for v in values if values.count(v) > 1})
        if repeated:
            problems.append(f"{spec.distinct} repeats: {repeated}")
    for row in rows if spec.changed is not None or spec.unchanged else []:
        old = before.get(ident(row))
        changed = sorted(k for k in row if old is not None and k in old and row[k] != old[k])
        if spec.unchanged and (old is None or changed):
            problems.append(f"#{_name(ident(row))} " + (f"changed {changed}" if old else "is new"))
        if spec.changed is not None and (old is None or set(changed) != set(spec.changed)):
            problems.append(f"#{_name(ident(row))} changed {changed}, expected exactly {sorted(spec.changed)}")
    for row in rows if spec.appended else []:
        problems += [f"#{_name(ident(row))} {p}" for p in _not_appended(row, before.get(ident(row)), spec.appended or [])]
    if problems:
        return CheckResult("fail", "; ".join(problems[:5]), shown)
    return CheckResult("pass", f"{len(rows)} {spec.from_} record(s) as expected", shown)


def _not_appended(row: dict, old: dict | None, fields: list[str]) -> list[str]:
    if old is None:
        return ["is new: nothing was appended to"]
    out = []
    for name in fields:
        was, now = " ".join(str(old.get(name) or "").split()), " ".join(str(row.get(name) or "").split())
        if not now.startswith(was):
            out.append(f"{name}: its earlier text is no longer at its start (rewritten, not appended to)")
        elif len(now) <= len(was):
            out.append(f"{name}: nothing was appended")
    return out


def answer_check(spec: AnswerCheck, g: Grading) -> CheckResult:
    answer = g.answer
    if answer is None:
        return CheckResult("fail", "no answer was submitted")
    expected = resolve(spec.expect, g.scope)
    candidates = _candidates(resolve(spec.candidates, g.scope), g)
    ok, why = check_answer(answer["answer"], spec.type, expected, spec.tolerance, candidates,
                           resolve(spec.tokens, g.scope), g.tz)
    evidence = {"answer": answer["answer"][:500]}
    return CheckResult("pass" if ok else "fail", "the answer is right" if ok else why, evidence)


def trajectory_check(spec: TrajectoryCheck, g: Grading) -> CheckResult:
    steps = g.steps
    done = [s for s in steps if s.error is None]
    if spec.called:
        args = resolve(spec.args, g.scope)
        hits = [s.index for s in done if _tool(s) == spec.called and matches(s.arguments, args, g.tz)]
        if not hits:
            return CheckResult("fail", f"{spec.called} was never called successfully" + (f" with {args}" if args else ""))
        if spec.after is not None:
            late = _came_first(spec.after, g, hits[0])
            if late is not None:
                return late
    banned = [(s.index, _tool(s)) for s in steps if _tool(s) in spec.not_called]
    if banned:
        return CheckResult("fail", f"forbidden operation(s) called: {banned}", banned)
    if spec.max_steps is not None and len(steps) > spec.max_steps:
        return CheckResult("fail", f"{len(steps)} steps, at most {spec.max_steps} allowed")
    writes = [s.index for s in done if s.mutates and s.app != "task"]
    if spec.max_writes is not None and len(writes) > spec.max_writes:
        return CheckResult("fail", f"{len(writes)} writes (steps {writes[:10]}), at most {spec.max_writes} allowed", writes)
    if spec.read_before_write:
        first = {tool: next((s.index for s in done if tool in _tools(s)), None) for tool in spec.read_before_write.values()}
        read, write = first[spec.read_before_write["read"]], first[spec.read_before_write["write"]]
        if write is not None and (read is None or read > write):
            return CheckResult("fail", f"{spec.read_before_write['write']} (step {write}) came before any "
                                       f"{spec.read_before_write['read']}")
    if spec.grounded:
        answer = g.answer
        seen = " ".join(json.dumps(s.result, default=str) for s in done if not s.mutates)
        invented = sorted(set(numbers_in(answer["answer"] if answer else "")) - set(numbers_in(seen)))
        if not answer or invented:
            return CheckResult("fail", f"the answer states {invented} that no read returned" if answer else "no answer")
    if spec.evidence:
        return evidence_check(g)
    return CheckResult("pass", "the trajectory is as required")


def judge_check(spec, g: Grading) -> CheckResult:
    if g.judge is None:
        return CheckResult("na", "the judge is off (set OFFICEWORLD_JUDGE_URL and OFFICEWORLD_JUDGE_MODEL): "
                                 "a graded judged criterion makes the episode ungradable")
    return g.judge.check(spec, g)


def python_check(name: str, g: Grading) -> CheckResult:
    from tasks.custom import CHECKS as CUSTOM
    if name not in CUSTOM:
        return CheckResult("error", f"no python check named {name!r}")
    return CUSTOM[name](g)


CHECKS: dict[str, Callable[[Any, Grading], CheckResult]] = {
    "records": records_check, "answer": answer_check, "trajectory": trajectory_check,
    "judge": judge_check, "python": python_check, "perception": perception_check,
}


def _name(identity: tuple) -> str:
    return "/".join(str(part) for part in identity)


def _came_first(after, g: Grading, first: int) -> CheckResult | None:
    """A fail unless someone else's step matching ``after`` came before agent step ``first``."""
    actor, args = str(resolve(after.actor, g.scope)).lower(), resolve(after.args, g.scope)
    theirs = [s.index for s in g.others if s.error is None and (s.actor or "").lower() == actor
              and _tool(s) == after.op and matches(s.arguments, args, g.tz)]
    if theirs and theirs[0] < first:
        return None
    seen = f"first at step {theirs[0]}" if theirs else "never"
    return CheckResult("fail", f"step {first} came before {actor}'s {after.op} ({seen})")


def _tool(step: Step) -> str:
    return f"{step.app}.{step.operation}"


def _tools(step: Step) -> tuple[str, ...]:
    """What ``step`` counts as for ``read_before_write``: its tool, and ``task.ask_user`` too for a final answer
    that asked the user (``needs_input``) and was answered."""
    asked = step.app == "task" and step.operation == "submit_answer" and goes_on(step.result)
    return (_tool(step), "task.ask_user") if asked else (_tool(step),)


def _bounds(count: int | Count | None) -> tuple[int, int | None]:
    if count is None:
        return 1, None
    if isinstance(count, int):
        return count, count
    return (count.min if count.min is not None else 0), count.max


def _candidates(candidates, g: Grading) -> list[str] | None:
    if isinstance(candidates, dict):
        rows = [r for r in g.initial.records(candidates["from"]) if matches(r, candidates.get("where", {}), g.tz)]
        return [str(r[candidates["field"]]) for r in rows if r.get(candidates["field"])]
    return candidates


def _evidence(rows: list[dict], where: dict, expect: dict) -> list[dict]:
    keys = ["id", *where, *expect]
    return [{k: _short(r.get(k)) for k in dict.fromkeys(keys) if k in r} for r in rows[:5]]


def _short(value):
    return value[:200] + "…" if isinstance(value, str) and len(value) > 200 else value
