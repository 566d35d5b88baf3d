"""Reading values out of stored fields and free text: numbers, money, dates, words."""

from __future__ import annotations

import re
from datetime import date, datetime, timezone, tzinfo

_NUMBER = re.compile(r"(?<![\w.])[-−]?\$?€?£?\d[\d,]*(?:\.\d+)?\s*(?:[kKmM]\b|million\b|thousand\b)?")
_WORD = re.compile(r"[\w@.+-]+", re.UNICODE)
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6}
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], start=1)}
_TEXT_DATE = re.compile(
    r"\b(?:(\d{1,2})(?:st|nd|rd|th)?\s+(%s)[a-z]*\.?,?\s+(\d{4})|(%s)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4}))\b"
    % ("|".join(m[:3] for m in _MONTHS), "|".join(m[:3] for m in _MONTHS)), re.IGNORECASE)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def tokens(text) -> list[str]:
    """Whole words, case-folded, edge punctuation dropped: ``"$10."`` gives ``["10"]``, never ``"100"``."""
    words = (w.strip(".,;:!?'\"()[]{}$-+") for w in _WORD.findall(str(text or "").casefold()))
    return [w for w in words if w]


def parse_number(value, strict: bool = False) -> float | None:
    """A stored number, or the only number in a text ("$184,000", "1.2M"); None when there is not
    exactly one. ``strict`` takes only a plain numeric value or numeric string."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    if strict:
        try:
            return float(text)
        except ValueError:
            return None
    found = numbers_in(text)
    return found[0] if len(found) == 1 else None


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text``, with thousands separators, currency signs and k/M read."""
    out = []
    for raw in _NUMBER.findall(text):
        clean = raw.replace("−", "-").strip()
        scale = 1.0
        for word, factor in _SCALE.items():
            if clean.lower().endswith(word) and not clean[-len(word) - 1:-len(word)].isalpha():
                clean, scale = clean[: -len(word)].strip(), factor
                break
        clean = clean.replace("$", "").replace("€", "").replace("£", "").replace(",", "")
        try:
            out.append(float(clean) * scale)
        except ValueError:
            continue
    return out


def parse_date(value) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    found = dates_in(str(value or ""))
    return found[0] if len(found) == 1 else None


def dates_in(text: str) -> list[date]:
    """Every distinct date written in ``text``: ISO (2026-03-27) or in words (27 March 2026, Mar 27, 2026)."""
    out: list[date] = []
    for y, m, d in _ISO_DATE.findall(text):
        _add_date(out, int(y), int(m), int(d))
    for day1, mon1, year1, mon2, day2, year2 in _TEXT_DATE.findall(text):
        month = _MONTHS_BY_ABBR[(mon1 or mon2).lower()[:3]]
        _add_date(out, int(year1 or year2), month, int(day1 or day2))
    return out


_MONTHS_BY_ABBR = {m[:3]: i for m, i in _MONTHS.items()}


def _add_date(out: list[date], y: int, m: int, d: int) -> None:
    try:
        day = date(y, m, d)
    except ValueError:
        return
    if day not in out:
        out.append(day)


def parse_datetime(value, default_zone: tzinfo = timezone.utc) -> datetime | None:
    """A datetime from a value or ISO text; a naive one is read in ``default_zone``."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        try:
            moment = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    return moment if moment.tzinfo else moment.replace(tzinfo=default_zone)
