"""Perception, verified (after Vision-SR1): the agent says what it sees (``task.describe_view``) and a
``perception`` criterion checks the description against what the agent's reads had shown by then.

- No invented figure: every number in the description appeared in a result of an earlier successful read.
- Not the prompt again: a description whose words all come from the prompt describes nothing seen.
- Enough to answer, from the description alone:
  - with ``needs``: each of them is in the description, a number as a number (``18,400`` holds ``18400``),
    text case-insensitively;
  - by default, by the task's own answer comparator: for each graded answer criterion, the description
    states the expected value as that comparator reads values (``tasks.answers``: money and numbers in any
    form, dates as "March 5th" or m/d/y, names among the candidates, in a clause not negated), though it may
    state other values beside it (a description lists what is on screen; an answer picks one);
  - with ``judge``: the optional LLM judge decides whether the question can be answered from the description,
    for what no comparator can read off it (a total of listed figures, a yes or no). It is counted only where
    calibrated (``tasks.judge``); uncalibrated or off, the criterion is ``na`` and the perception score is None.

The first description counts (the one made before acting or answering). Pass scores 1, anything else 0;
``Reward.perception`` carries the mean beside the reward, which it does not change.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tasks.answers import mentioned
from tasks.comparators import dayfirst, local_date
from tasks.parse import affirmed, dates_in, numbers_in, parse_number, tokens
from tasks.refs import resolve

if TYPE_CHECKING:
    from apps.kit.trajectory import Step
    from tasks.checks import CheckResult, Grading
    from tasks.model import AnswerCheck, PerceptionCheck

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def described(g: Grading) -> Step | None:
    """The agent's first successful description (``task.describe_view``), or None."""
    return next((s for s in g.steps if s.app == "task" and s.operation == "describe_view" and s.error is None), None)


def description_text(g: Grading) -> str | None:
    step = described(g)
    return str(step.arguments.get("description") or "") if step is not None else None


def perception_check(spec: PerceptionCheck, g: Grading) -> CheckResult:
    from tasks.checks import CheckResult

    step = described(g)
    if step is None:
        return CheckResult("fail", "the agent described nothing (task.describe_view)")
    text = str(step.arguments.get("description") or "")
    reads = [s for s in g.steps if s.index < step.index and s.error is None and not s.mutates and s.app != "task"]
    seen = " ".join(s.result_json.decode() for s in reads)
    problems = _problems(spec, g, text, seen)
    evidence = [{"steps": [step.index], "description": text[:500], "reads": [s.index for s in reads]}]
    where = f"the description at step {step.index}"
    if problems:
        return CheckResult("fail", f"{where}: " + "; ".join(problems), evidence)
    if spec.judge is not None:
        return _judged(spec, g, where, evidence)
    return CheckResult("pass", f"{where} shows what was read and what the question needs", evidence)


def _problems(spec: PerceptionCheck, g: Grading, text: str, seen: str) -> list[str]:
    problems = []
    invented = sorted(set(numbers_in(text)) - set(numbers_in(seen)))
    if invented:
        problems.append(f"it states {invented}, which no earlier read showed")
    if spec.needs is not None:
        missing = [n for n in resolve(spec.needs, g.scope) if not _holds(text, n)]
        if missing:
            problems.append(f"it lacks {missing[:5]}, which the question needs")
    elif spec.judge is None:
        unstated = [resolve(c.answer.expect, g.scope) for c in g.task.criteria if c.answer is not None
                    and c.role != "diagnostic" and c.answer.expect is not None and not states(text, c.answer, g)]
        if unstated:
            problems.append(f"it lacks {unstated[:5]}, which the question needs (as the task's comparator reads it)")
    if _words(text) and _words(text) <= _words(g.task.prompt):
        problems.append("it only repeats the prompt")
    return problems


def _judged(spec: PerceptionCheck, g: Grading, where: str, evidence: list) -> CheckResult:
    from tasks.checks import CheckResult

    assert spec.judge is not None   # called for a judged perception
    if g.judge is None:
        return CheckResult("na", "the judge is off (set OFFICEWORLD_JUDGE_URL and OFFICEWORLD_JUDGE_MODEL): whether "
                                 "the question can be answered from the description is not checked", evidence)
    verdict = g.judge.check(spec.judge, g)
    if verdict.status == "pass":
        return CheckResult("pass", f"{where} shows only what was read; {verdict.message}", evidence)
    return CheckResult(verdict.status, f"{where}: {verdict.message}", evidence)


def states(text: str, answer: AnswerCheck, g: Grading) -> bool:
    """Whether ``text`` states the value ``answer`` expects, as its comparator reads values (other values beside
    it allowed); a ``yesno`` or free ``text`` answer is stated when its expected words all appear."""
    from tasks.checks import _candidates

    expected, said = resolve(answer.expect, g.scope), affirmed(text)
    if answer.type in ("number", "money"):
        want = parse_number(expected)
        slack = max(answer.tolerance, 0.005 if answer.type == "money" else 0) + 1e-9
        return want is not None and any(abs(n - want) <= slack for n in numbers_in(said))
    if answer.type in ("date", "datetime"):
        day = local_date(expected, g.tz)
        return day is not None and day in dates_in(said, year=day.year, dayfirst=dayfirst(g.tz))
    if answer.type == "email":
        return str(expected).strip().lower() in {e.lower().strip(".") for e in _EMAIL.findall(said)}
    if answer.type in ("entity", "list"):
        wanted = [str(w) for w in (expected if isinstance(expected, list) else [expected])]
        named = set(mentioned(said, [str(c) for c in _candidates(resolve(answer.candidates, g.scope), g) or []] + wanted))
        return {" ".join(tokens(w)) for w in wanted} <= named
    return _holds(said, expected)


def _holds(text: str, value: Any) -> bool:
    if isinstance(value, list):
        return all(_holds(text, v) for v in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) in numbers_in(text)
    shown = str(value)
    as_numbers = numbers_in(shown)
    if as_numbers and re.fullmatch(r"[\s$€£,.\d−-]+[kKmM]?", shown):
        return set(as_numbers) <= set(numbers_in(text))
    return shown.casefold() in text.casefold()


def _words(text: str) -> set[str]:
    return set(_words_in(text))


def _words_in(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.casefold())
