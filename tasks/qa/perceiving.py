"""Runs about perception (gate ``perception``): the oracle with its description of what it saw
(``task.describe_view``) made wrong in one way, everything else kept. Each must score 0 on perception
(``Reward.perception``), whatever its reward (perception does not move the reward):

- ``invented``: the description with a figure no read showed added to it;
- ``omitted``: the description with every part that states the asked value taken out;
- ``prompt_copy``: the prompt given as the description.

And the oracle's own description must score 1 (``tasks.qa.gates``).
"""

from __future__ import annotations

import re

from tasks.comparators import dayfirst, local_date
from tasks.model import Call
from tasks.parse import dates_in, numbers_in, parse_number, tokens
from tasks.qa.attempt import Attempt, call, unescape
from tasks.qa.context import Context, Expected

INVENTED = " Also on screen: a balance of 8,675,309.17."   # a figure no world's record holds
_PARTS = re.compile(r"[^.;\n]+[.;\n]?")


def perception_attempts(ctx: Context) -> list[Attempt]:
    at = next((i for i, c in enumerate(ctx.oracle) if c.op == "task.describe_view"), None)
    if at is None or not any(c.role == "perception" for c in ctx.task.criteria):
        return []
    text = str(unescape(ctx.oracle[at].args).get("description") or "")
    made = [("invented", "a figure no read showed added", text.rstrip() + INVENTED),
            ("omitted", "the asked value taken out", omitted(text, ctx.expected, ctx.tz)),
            ("prompt_copy", "the prompt given instead", ctx.task.prompt)]
    return [Attempt("perception", f"description: {name}", _described(ctx.oracle, at, new), right=False, kind=kind,
                    strict=True, meta={"perception": True})
            for kind, name, new in made if new.strip() and new != text]


def omitted(text: str, expected: list[Expected], tz: str) -> str:
    """``text`` without the parts (sentences, clauses, lines) that state one of the ``expected`` values."""
    kept = [part for part in _PARTS.findall(text) if not any(_states(part, e, tz) for e in expected)]
    return "".join(kept).strip() or "I looked at the records."


def _states(part: str, e: Expected, tz: str) -> bool:
    if e.type in ("number", "money"):
        want = parse_number(e.value)
        return want is not None and any(abs(n - want) <= max(e.tolerance, 0.005) for n in numbers_in(part))
    if e.type in ("date", "datetime"):
        day = local_date(e.value, tz)
        return day is not None and (day in dates_in(part, year=day.year, dayfirst=dayfirst(tz)) or
                                    day.isoformat() in part)
    values = e.value if isinstance(e.value, list) else [e.value]
    words = tokens(part)
    return any(_within(tokens(str(v)), words) for v in values if str(v).strip())


def _within(want: list[str], words: list[str]) -> bool:
    n = len(want)
    return n > 0 and any(words[i:i + n] == want for i in range(len(words) - n + 1))


def _described(calls: list[Call], at: int, text: str) -> list[Call]:
    return calls[:at] + [call("task.describe_view", description=text)] + calls[at + 1:]
