"""The agent's final answer, read by the type the task declares.

Every reader is strict in the same way: the answer must state the expected value and no rival one,
so an answer that lists every candidate, hedges ("yes and no") or pads a number with others fails.

Readers read what the answer asserts (``tasks.parse.affirmed``): a value in a negated clause is not
stated, so "184,000, not 150,000" states 184,000 and "Not 184,000" states nothing. Values are read
in any form ``tasks.parse`` knows: numbers in words, money written out ("184 thousand dollars"),
dates as m/d/y (d/m/y outside the Americas), "March 5th" (in the expected year), a two-word name as
"Last, First".
"""

from __future__ import annotations

import re
from typing import Any
from zoneinfo import ZoneInfo

from tasks.comparators import ComparatorError, compare, dayfirst, local_date
from tasks.parse import affirmed, dates_in, numbers_in, parse_datetime, parse_number, tokens

Result = tuple[bool, str]
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def check_answer(text: str, kind: str, expected: Any, tolerance: float = 0, candidates: list[str] | None = None,
                 words: list[str] | None = None, tz: str = "UTC") -> Result:
    text = (text or "").strip()
    if not text:
        return False, "the answer is empty"
    reader = READERS.get(kind)
    if reader is None:
        raise ComparatorError(f"answer type {kind!r} is unknown")
    return reader(text, expected, tolerance, candidates, words, tz)


def _number(text, expected, tolerance, candidates, words, tz) -> Result:
    found = sorted(set(numbers_in(affirmed(text))))
    want = parse_number(expected)
    if want is None:
        raise ComparatorError(f"expected {expected!r} is not a number")
    ok = len(found) == 1 and abs(found[0] - want) <= tolerance + 1e-9
    return ok, f"expected exactly the number {_plain(want)} (±{tolerance}); the answer states {[_plain(n) for n in found]}"


def _money(text, expected, tolerance, candidates, words, tz) -> Result:
    return _number(text, expected, max(tolerance, 0.005), candidates, words, tz)


def _date(text, expected, tolerance, candidates, words, tz) -> Result:
    want = local_date(expected, tz)
    if want is None:
        raise ComparatorError(f"expected {expected!r} is not a date")
    found = dates_in(affirmed(text), year=want.year, dayfirst=dayfirst(tz))
    return found == [want], f"expected exactly the date {want}; the answer states {[str(d) for d in found]}"


def _datetime(text, expected, tolerance, candidates, words, tz) -> Result:
    stamps = re.findall(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?", affirmed(text))
    if len(stamps) != 1:
        return False, f"expected one date and time, found {stamps}"
    # An answer's time without an offset is the world's local time (a stored record's is UTC: the comparator's).
    said = parse_datetime(stamps[0].replace(" ", "T"), ZoneInfo(tz))
    return compare(said.isoformat() if said else stamps[0], {"datetime": expected}, tz)


def _email(text, expected, tolerance, candidates, words, tz) -> Result:
    found = sorted({e.lower().strip(".") for e in _EMAIL.findall(affirmed(text))})
    want = str(expected).strip().lower()
    return found == [want], f"expected exactly the address {want}; the answer states {found}"


def _yesno(text, expected, tolerance, candidates, words, tz) -> Result:
    said = set(tokens(text)) & {"yes", "no"}
    want = "yes" if expected in (True, "yes", "Yes") else "no"
    return said == {want}, f"expected a plain {want}; the answer says {sorted(said) or 'neither'}"


def _entity(text, expected, tolerance, candidates, words, tz) -> Result:
    named = mentioned(affirmed(text), _candidates(candidates, [expected]))
    want = _norm(expected)
    return named == [want], f"expected exactly {expected!r} among the candidates; the answer names {named}"


def _list(text, expected, tolerance, candidates, words, tz) -> Result:
    wanted = expected if isinstance(expected, list) else [expected]
    named = set(mentioned(affirmed(text), _candidates(candidates, wanted)))
    want = {_norm(w) for w in wanted}
    return named == want, f"expected exactly {sorted(want)}; the answer names {sorted(named)}"


def _text(text, expected, tolerance, candidates, words, tz) -> Result:
    if words:
        return compare(text, {"tokens": words}, tz, affirm=True)
    if expected is None:
        raise ComparatorError("a text answer needs expect or tokens")
    return compare(text, {"text": expected}, tz)


READERS = {"number": _number, "money": _money, "date": _date, "datetime": _datetime, "email": _email,
           "yesno": _yesno, "entity": _entity, "list": _list, "text": _text}


def mentioned(text: str, candidates: list[str]) -> list[str]:
    """The candidates the text names, as whole words, longest first so "Globex Logistics" is not also "Globex"."""
    words = tokens(text)
    taken = [False] * len(words)
    found = []
    for name in sorted({_norm(c) for c in candidates}, key=lambda c: -len(tokens(c))):
        want = tokens(name)
        n = len(want)
        forms = [want, want[::-1]] if n == 2 else [want]   # "Ben Carter" and, as lists and directories write it, "Carter, Ben"
        for i in range(len(words) - n + 1):
            if words[i:i + n] in forms and not any(taken[i:i + n]):
                taken[i:i + n] = [True] * n
                if name not in found:
                    found.append(name)
    return sorted(found)


def _candidates(candidates, expected: list) -> list[str]:
    if candidates is None:
        raise ComparatorError("entity and list answers need candidates")
    return [str(c) for c in candidates if c] + [str(e) for e in expected]


def _norm(value) -> str:
    return " ".join(tokens(value))


def _plain(number: float):
    return int(number) if float(number).is_integer() else number
