"""Typed comparators for record fields and answers.

An expectation is a plain value (exact: numbers as numbers, a list as a set, ``null`` as absent) or a
one-key mapping naming a comparator, with its modifiers beside it::

    stage: Closed Won                          exact
    subject: {tokens: [renewal, quote]}        every word present as a whole token ("10" never matches "100")
    body: {phrase: "March 27"}                 the words in this order, as whole tokens
    name: {text: "globex renewal"}             equal after case, spacing and edge punctuation are normalised
    amount: {money: 184000}                    "$184,000.00" and 184000.0 both match; to the cent
    probability: {number: 90, tol: 5}          within a tolerance
    close_date: {date: 2026-03-27}             the same day (datetimes read in the world's time zone)
    start: {datetime: 2026-03-27T10:00, granularity: minute}
    sender: {email: Sam@Globex.example}        case and angle brackets ignored
    to: {set: [a@x, b@x]}   labels: {contains: STARRED}   tags: {multiset: [a, a, b]}
    key: {regex: "Q-2026-\\d{4}"}              the whole value must match
    stage: {any_of: [Closed Won, Closed Lost]}   stage: {not: Closed Lost}   amount: {gt: 1000}
    body: {all_of: [{tokens: [ridgeway]}, {claim: {about: ["14.2"], states: consent}}]}   every one holds
    loss_reason: {present: true}
    body: {claim: {about: [globex, renewal], date: 2026-03-27}}   one sentence names the subject and states
                                               the value (also ``money``, ``number`` or ``states``: a phrase)

Polarity: in a criterion's ``expect`` (``failures``) and in text answers, ``tokens``, ``phrase`` and
``claim`` count only what the text asserts: a word or value that appears only in a negated clause
("Not approved", "will NOT be ready by March 20") is not there (``tasks.parse.affirmed``). Required
words that are themselves negations ("not", "never") turn this off for that comparator, and the
modifier ``polarity: any`` turns it off by hand; ``polarity: negated`` asks for the words in a
negated clause instead (a reported fact that is itself negative: "has not synced since Saturday").
In ``where`` (``matches``: which records to look at) words are read as written.
A comparator that cannot read its actual value fails with the reason; one written wrongly in a task
raises ``ComparatorError`` (the task is broken, so the episode is ungradable, never passed).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, datetime, timezone
from typing import Any, Callable
from zoneinfo import ZoneInfo

from tasks import parse
from tasks.parse import NEGATORS, dates_in, numbers_in, parse_date, parse_datetime, parse_number, sentences, tokens

Result = tuple[bool, str]


class ComparatorError(ValueError):
    """A comparator is written wrongly in the task."""


MODIFIERS = {"tol", "granularity", "polarity"}


def compare(actual: Any, expected: Any, tz: str = "UTC", affirm: bool = False) -> Result:
    """Whether ``actual`` satisfies ``expected`` (a plain value or a comparator mapping), and why not.
    ``affirm``: free text counts only what it asserts (see Polarity above)."""
    if isinstance(expected, dict):
        names = [k for k in expected if k not in MODIFIERS]
        if len(names) != 1 or names[0] not in COMPARATORS:
            raise ComparatorError(f"unknown comparator {sorted(expected)} (known: {', '.join(sorted(COMPARATORS))})")
        name = names[0]
        if expected.get("polarity", "affirmed") not in ("affirmed", "any", "negated"):
            raise ComparatorError("polarity: one of affirmed, any, negated")
        return COMPARATORS[name](actual, expected[name], {**expected, "tz": tz, "affirm": affirm})
    if isinstance(expected, list):
        return _set(actual, expected, {"tz": tz})
    return _exact(actual, expected, {"tz": tz})


def _exact(actual, expected, opts) -> Result:
    if expected is None:
        return actual in (None, ""), f"expected nothing, found {actual!r}"
    if isinstance(expected, bool) or isinstance(actual, bool):
        return (bool(actual) == bool(expected) and actual is not None), f"expected {expected!r}, found {actual!r}"
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        number = parse_number(actual, strict=True)
        return number is not None and abs(number - expected) < 1e-9, f"expected {expected!r}, found {actual!r}"
    if isinstance(expected, (date, datetime)):
        return _date(actual, expected, opts) if not isinstance(expected, datetime) else _datetime(actual, expected, opts)
    return actual is not None and str(actual) == str(expected), f"expected {expected!r}, found {actual!r}"


def _text(actual, expected, opts) -> Result:
    ok = actual is not None and _normal_text(actual) == _normal_text(expected)
    return ok, "" if ok else f"expected text {_short(expected)}, found {_short(actual)}"


def _tokens(actual, expected, opts) -> Result:
    wanted = tokens(" ".join(map(str, expected)) if isinstance(expected, list) else str(expected))
    if not wanted:
        raise ComparatorError("tokens: give at least one word")
    have = set(tokens(_asserted(actual, wanted, opts)))
    missing = [w for w in wanted if w not in have]
    return not missing, f"missing word(s) {missing}{_polar(opts)} in {_short(actual)}" if missing else ""


def _phrase(actual, expected, opts) -> Result:
    wanted = tokens(str(expected))
    if not wanted:
        raise ComparatorError("phrase: give at least one word")
    found = _has_phrase(tokens(_asserted(actual, wanted, opts)), wanted)
    return found, "" if found else f"phrase {expected!r} not{_polar(opts)} in {_short(actual)}"


def _claim(actual, expected, opts) -> Result:
    """One sentence names ``about`` (its words) and asserts the value: ``states`` (a phrase), ``date``,
    ``money`` or ``number`` (with ``tol``), read in any of the forms ``tasks.parse`` reads."""
    if not isinstance(expected, dict) or "about" not in expected:
        raise ComparatorError("claim: give about (the subject's words) and one of states, date, money, number")
    values = [k for k in ("states", "date", "money", "number") if k in expected]
    if len(values) != 1:
        raise ComparatorError("claim: give exactly one of states, date, money, number")
    about = tokens(" ".join(map(str, expected["about"])) if isinstance(expected["about"], list) else expected["about"])
    kind, want = values[0], expected[values[0]]
    for sentence in sentences(actual or ""):
        if all(w in tokens(sentence) for w in about):
            said = _asserted(sentence, tokens(str(want)) if kind == "states" else [], opts)
            if _states(said, kind, want, opts):
                return True, ""
    return False, f"no sentence about {' '.join(about)!r} asserts {kind} {want!r}{_polar(opts)} in {_short(actual)}"


def _states(text: str, kind: str, want, opts) -> bool:
    if kind == "states":
        return _has_phrase(tokens(text), tokens(str(want)))
    if kind == "date":
        day = parse_date(want)
        if day is None:
            raise ComparatorError(f"claim: {want!r} is not a date")
        return day in dates_in(text, year=day.year, dayfirst=dayfirst(opts["tz"]))
    amount = parse_number(want)
    if amount is None:
        raise ComparatorError(f"claim: {want!r} is not a number")
    tol = float(opts.get("tol", 0.005 if kind == "money" else 0))
    return any(abs(n - amount) <= tol + 1e-9 for n in numbers_in(text))


def _has_phrase(have: list[str], wanted: list[str]) -> bool:
    n = len(wanted)
    return any(have[i:i + n] == wanted for i in range(len(have) - n + 1))


def _asserted(actual, wanted: list[str], opts) -> str:
    """What ``actual`` asserts, when polarity applies (see the module's docstring); else all of it."""
    text = str(actual or "")
    if not opts.get("affirm") or opts.get("polarity") == "any" or NEGATORS & set(wanted):
        return text
    return parse.denied(text) if opts.get("polarity") == "negated" else parse.affirmed(text)


def _polar(opts) -> str:
    if not opts.get("affirm") or opts.get("polarity") == "any":
        return ""
    return " (in a negated clause)" if opts.get("polarity") == "negated" else " (asserted, not negated)"


def dayfirst(tz: str) -> bool:
    """How the world writes 3/4: month first where its zone is in the Americas (as the US does), else day first."""
    return not tz.startswith("America/")


def _number(actual, expected, opts) -> Result:
    tol = float(opts.get("tol", 0))
    number = parse_number(actual)
    ok = number is not None and abs(number - float(expected)) <= tol + 1e-9
    return ok, f"expected {expected} (±{tol}), found {actual!r}"


def _money(actual, expected, opts) -> Result:
    number, want = parse_number(actual), parse_number(expected)
    if want is None:
        raise TypeError(f"expected {expected!r} is not an amount")
    ok = number is not None and round(abs(number - want), 2) <= float(opts.get("tol", 0.005))
    return ok, f"expected {expected} in money, found {actual!r}"


def _date(actual, expected, opts) -> Result:
    want, have = parse_date(expected), local_date(actual, opts["tz"])
    if want is None:
        raise ComparatorError(f"date: {expected!r} is not a date")
    return have == want, f"expected date {want}, found {actual!r}"


def _datetime(actual, expected, opts) -> Result:
    tz = ZoneInfo(opts["tz"])
    want, have = parse_datetime(expected, tz), parse_datetime(actual, timezone.utc)
    if want is None:
        raise ComparatorError(f"datetime: {expected!r} is not a date and time")
    grain = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}.get(opts.get("granularity", "minute"))
    if grain is None:
        raise ComparatorError("granularity: one of second, minute, hour, day")
    ok = have is not None and abs((have - want).total_seconds()) < grain
    return ok, f"expected {want.isoformat()} (to the {opts.get('granularity', 'minute')}), found {actual!r}"


def _email(actual, expected, opts) -> Result:
    return _normal_email(actual) == _normal_email(expected), f"expected address {expected!r}, found {actual!r}"


def _set(actual, expected, opts) -> Result:
    have, want = _items(actual), [_normal_item(v) for v in _as_list(expected)]
    return set(have) == set(want), f"expected the set {sorted(set(want))}, found {sorted(set(have))}"


def _multiset(actual, expected, opts) -> Result:
    have, want = _items(actual), [_normal_item(v) for v in _as_list(expected)]
    return Counter(have) == Counter(want), f"expected {sorted(want)}, found {sorted(have)}"


def _contains(actual, expected, opts) -> Result:
    if isinstance(actual, list):
        wanted = [_normal_item(v) for v in _as_list(expected)]
        have = set(_items(actual))
        missing = [w for w in wanted if w not in have]
        return not missing, f"{missing} not among {sorted(have)}"
    return _phrase(actual, expected, opts)


def _regex(actual, expected, opts) -> Result:
    try:
        pattern = re.compile(str(expected), re.DOTALL)
    except re.error as exc:
        raise ComparatorError(f"regex: {exc}") from None
    ok = actual is not None and pattern.fullmatch(str(actual)) is not None
    return ok, "" if ok else f"{_short(actual)} does not match /{expected}/"


def _any_of(actual, expected, opts) -> Result:
    if not isinstance(expected, list) or not expected:
        raise ComparatorError("any_of: give a non-empty list")
    ok = any(compare(actual, e, opts["tz"], opts.get("affirm", False))[0] for e in expected)
    return ok, f"{actual!r} is none of {expected!r}"


def _all_of(actual, expected, opts) -> Result:
    if not isinstance(expected, list) or not expected:
        raise ComparatorError("all_of: give a non-empty list")
    failed = [why for e in expected for ok, why in [compare(actual, e, opts["tz"], opts.get("affirm", False))] if not ok]
    return not failed, "; ".join(failed)


def _not(actual, expected, opts) -> Result:
    ok, _ = compare(actual, expected, opts["tz"], opts.get("affirm", False))
    return not ok, f"{actual!r} should not match {expected!r}"


def _order(test: Callable[[float, float], bool], word: str):
    def check(actual, expected, opts) -> Result:
        number = parse_number(actual)
        return number is not None and test(number, float(expected)), f"expected {word} {expected}, found {actual!r}"
    return check


def _present(actual, expected, opts) -> Result:
    present = actual not in (None, "", [])
    return present == bool(expected), f"expected {'a value' if expected else 'nothing'}, found {actual!r}"


COMPARATORS: dict[str, Callable[[Any, Any, dict], Result]] = {
    "eq": _exact, "text": _text, "tokens": _tokens, "phrase": _phrase, "number": _number, "money": _money,
    "date": _date, "datetime": _datetime, "email": _email, "set": _set, "multiset": _multiset,
    "contains": _contains, "regex": _regex, "any_of": _any_of, "all_of": _all_of, "not": _not, "present": _present,
    "claim": _claim,
    "gt": _order(lambda a, b: a > b, ">"), "ge": _order(lambda a, b: a >= b, ">="),
    "lt": _order(lambda a, b: a < b, "<"), "le": _order(lambda a, b: a <= b, "<="),
}


def matches(record: dict, where: dict[str, Any], tz: str = "UTC") -> bool:
    """Whether a record satisfies every field's expectation (a field it lacks never matches)."""
    return all(field in record and compare(record[field], want, tz)[0] for field, want in where.items())


def failures(record: dict, expect: dict[str, Any], tz: str = "UTC") -> list[str]:
    """One line per field of ``record`` that does not meet ``expect`` (free text read for what it asserts)."""
    out = []
    for field, want in expect.items():
        if field not in record:
            out.append(f"{field}: no such field (fields: {', '.join(sorted(record))})")
            continue
        ok, why = compare(record[field], want, tz, affirm=True)
        if not ok:
            out.append(f"{field}: {why}")
    return out


def local_date(value, tz: str) -> date | None:
    """The day of ``value`` in zone ``tz`` (a stored time is UTC; a plain date is taken as it is)."""
    if isinstance(value, datetime) or (isinstance(value, str) and len(value) > 10):
        moment = parse_datetime(value, timezone.utc)
        return moment.astimezone(ZoneInfo(tz)).date() if moment else None
    return parse_date(value)


def _normal_text(value) -> str:
    return " ".join(str(value).casefold().split()).strip(" .,;:!?\"'")


def _normal_email(value) -> str:
    text = str(value or "").strip().casefold()
    found = re.search(r"<([^>]+)>", text)
    return (found.group(1) if found else text).strip()


def _normal_item(value) -> str:
    return _normal_email(value) if "@" in str(value) else _normal_text(value)


def _as_list(value) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _items(value) -> list[str]:
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    return [_normal_item(v) for v in _as_list(value)]


def _short(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"
