"""Perception, verified (after Vision-SR1): the agent says what it sees (``task.describe_view``) and a
``perception`` criterion checks the description against what the agent's reads had shown by then.

- No invented figure: every number in the description appeared in a result of an earlier successful read.
- Enough to answer: each of ``needs`` (default: what the task's answer criteria expect) is in the
  description, a number as a number (``18,400`` holds ``18400``), text case-insensitively.
- Not the prompt again: a description whose words all come from the prompt describes nothing seen.

The first description counts (the one made before acting or answering). Pass scores 1, anything else 0;
``Reward.perception`` carries the mean beside the reward, which it does not change.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tasks.parse import numbers_in
from tasks.refs import resolve

if TYPE_CHECKING:
    from tasks.checks import CheckResult, Grading
    from tasks.model import PerceptionCheck


def perception_check(spec: PerceptionCheck, g: Grading) -> CheckResult:
    from tasks.checks import CheckResult

    described = next((s for s in g.steps if s.app == "task" and s.operation == "describe_view" and s.error is None), None)
    if described is None:
        return CheckResult("fail", "the agent described nothing (task.describe_view)")
    text = str(described.arguments.get("description") or "")
    reads = [s for s in g.steps if s.index < described.index and s.error is None and not s.mutates and s.app != "task"]
    seen = " ".join(s.result_json.decode() for s in reads)
    invented = sorted(set(numbers_in(text)) - set(numbers_in(seen)))
    missing = [n for n in _needs(spec, g) if not _holds(text, n)]
    problems = []
    if invented:
        problems.append(f"it states {invented}, which no earlier read showed")
    if missing:
        problems.append(f"it lacks {missing[:5]}, which the question needs")
    if _words(text) and _words(text) <= _words(g.task.prompt):
        problems.append("it only repeats the prompt")
    evidence = [{"steps": [described.index], "description": text[:500], "reads": [s.index for s in reads]}]
    if problems:
        return CheckResult("fail", f"the description at step {described.index}: " + "; ".join(problems), evidence)
    return CheckResult("pass", f"the description at step {described.index} shows what was read and what the question needs",
                       evidence)


def _needs(spec: PerceptionCheck, g: Grading) -> list[Any]:
    if spec.needs is not None:
        return list(resolve(spec.needs, g.scope))
    return [resolve(c.answer.expect, g.scope) for c in g.task.criteria if c.answer is not None and c.answer.expect is not None]


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
    return set(re.findall(r"[a-z0-9]+", text.casefold()))
