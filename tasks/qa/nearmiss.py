"""Wrong answers that look right: off by one unit, a day early or late, the right name of the wrong
person. Derived from the expected value of each answer criterion, written into the oracle's own
answer where it states that value."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from tasks.parse import parse_date, parse_datetime, parse_number, tokens
from tasks.qa.context import Expected


def near_misses(expected: Expected, oracle_answer: str, people: list[str]) -> list[tuple[str, str]]:
    """(name, answer text) pairs, each wrong for this criterion."""
    maker = _MAKERS.get(expected.type)
    return maker(expected, oracle_answer or "", people) if maker else []


def _number(e: Expected, text: str, people) -> list[tuple[str, str]]:
    value = parse_number(e.value)
    if value is None:
        return []
    unit = max(1.0, 2 * e.tolerance)
    out = []
    for sign, name in ((1, "one unit more"), (-1, "one unit less")):
        out.append((name, _put_number(text, value, value + sign * unit)))
    return out


def _date(e: Expected, text: str, people) -> list[tuple[str, str]]:
    value = parse_date(e.value)
    if value is None:
        return []
    return [(f"date {sign:+d} day", _put(text, _date_forms(value), (value + timedelta(days=sign)).isoformat()))
            for sign in (1, -1)]


def _datetime(e: Expected, text: str, people) -> list[tuple[str, str]]:
    value = parse_datetime(e.value) if isinstance(e.value, str) else e.value
    if not isinstance(value, datetime):
        return []
    later = (value + timedelta(hours=1)).isoformat(timespec="minutes")
    return [("one hour later", _put(text, [value.isoformat(timespec="minutes")], later))]


def _email(e: Expected, text: str, people) -> list[tuple[str, str]]:
    want = str(e.value).lower()
    other = next((p for p in people if p != want), None)
    return [("another person's address", _put(text, [want], other))] if other else []


def _entity(e: Expected, text: str, people) -> list[tuple[str, str]]:
    want = str(e.value)
    others = [c for c in e.candidates if tokens(c) != tokens(want)]
    if not others:
        return []
    same_word = [c for c in others if set(tokens(c)) & set(tokens(want))]
    pick = (same_word or others)[0]
    return [("the right name of the wrong one" if same_word else "another candidate", _put(text, [want], pick))]


def _list(e: Expected, text: str, people) -> list[tuple[str, str]]:
    wanted = [str(v) for v in (e.value if isinstance(e.value, list) else [e.value])]
    others = [c for c in e.candidates if tokens(c) not in [tokens(w) for w in wanted]]
    out = []
    if len(wanted) > 1:
        out.append(("one missing", ", ".join(wanted[:-1])))
    if others:
        out.append(("one too many", ", ".join(wanted + others[:1])))
    return out


def _yesno(e: Expected, text: str, people) -> list[tuple[str, str]]:
    want = "yes" if e.value in (True, "yes", "Yes") else "no"
    return [("the opposite", "No." if want == "yes" else "Yes.")]


def _text(e: Expected, text: str, people) -> list[tuple[str, str]]:
    if e.tokens:
        dropped = e.tokens[-1]
        kept = re.sub(rf"(?i)\b{re.escape(str(dropped))}\b", "", text) if text else " ".join(map(str, e.tokens[:-1]))
        return [(f"without {dropped!r}", kept.strip() or "n/a")]
    return []


_MAKERS = {"number": _number, "money": _number, "date": _date, "datetime": _datetime, "email": _email,
           "entity": _entity, "list": _list, "yesno": _yesno, "text": _text}


def _put(text: str, olds: list[str], new: str) -> str:
    """The oracle's answer with the value replaced, or the bare value when the answer does not state it."""
    for old in olds:
        if old and re.search(re.escape(old), text, re.IGNORECASE):
            return re.sub(re.escape(old), new, text, flags=re.IGNORECASE)
    return new


def _put_number(text: str, old: float, new: float) -> str:
    plain = _plain(new)
    for form in (f"{old:,.2f}", f"{old:,.0f}", f"{old:.2f}", _plain(old)):
        if form in text:
            shown = f"{new:,.2f}" if "," in form and "." in form else f"{new:,.0f}" if "," in form else plain
            return text.replace(form, shown)
    return plain


def _date_forms(value: date) -> list[str]:
    return [value.isoformat(), value.strftime("%B %-d, %Y"), value.strftime("%b %-d, %Y"), value.strftime("%-d %B %Y")]


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else f"{number:.2f}"
