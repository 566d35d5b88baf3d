"""Reading values out of stored fields and free text: numbers, money, dates, words, and polarity.

Numbers are read as digits ("$184,000", "1.2M", "184k") and in words ("forty-two", "one hundred
eighty-four thousand dollars"). Dates are read as ISO (2026-03-27), in words with or without a year
("27 March 2026", "March 27th", "Mar. 27"; without one, ``year`` is used) and as slashed numbers
("3/27/2026", "3/27/26": month first as the US shows them, or day first with ``dayfirst``).

``clauses`` cuts text at sentence ends, semicolons, colons, commas and "but"/"however"/"although";
``negated`` says whether a clause denies what it holds ("not", "never", "no", "n't", "without", ...).
A claim made only in a negated clause ("Not approved", "will NOT be ready by March 20") is not made.
"""

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
_SLASH_DATE = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})(?![\d/])")
_MON = "|".join(m[:3] for m in _MONTHS)
_YEARLESS = re.compile(r"\b(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(%s)[a-z]*\.?|(%s)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?)\b"
                       r"(?!,?\s+\d{4})(?!\s*[:/])" % (_MON, _MON), re.IGNORECASE)
NEGATORS = frozenset({"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "cannot", "without",
                      "unable", "refuse", "refused", "declined", "decline", "rejected", "reject", "denied"})
_CONTRACTIONS = re.compile(r"\b(can|won|ca|don|doesn|didn|isn|aren|wasn|weren|shouldn|wouldn|couldn|haven|hasn|hadn|"
                           r"mustn|needn)['’]t\b", re.IGNORECASE)
_BREAK = r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)"   # a blank line or a list item: a line wrapped inside a sentence is not
_CLAUSE_END = re.compile(r"[.!?;:,](?=\s|$)|[()]|\s[-–—]\s|\b(?:but|however|although|though|whereas|yet)\b|" + _BREAK,
                         re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|" + _BREAK)
_UNITS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                     "fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_MULTIPLIERS = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}


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
    """Every number written in ``text``, with thousands separators, currency signs and k/M read; when
    it has none in digits, those written in words ("one" of "the one I sent" would otherwise count)."""
    return _digit_numbers(text) or words_numbers(text)


def _digit_numbers(text: str) -> list[float]:
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


def words_numbers(text: str) -> list[float]:
    """Numbers written in words: "forty-two", "one hundred eighty-four thousand", "a million" is not read."""
    out: list[float] = []
    total = current = 0
    seen = False
    for word in re.findall(r"[a-z]+", text.casefold().replace("-", " ")):
        if word in _UNITS or word in _TENS:
            current += _UNITS.get(word, 0) + _TENS.get(word, 0)
            seen = True
        elif word in _MULTIPLIERS and seen:
            if word == "hundred":
                current = (current or 1) * 100
            else:
                total, current = total + (current or 1) * _MULTIPLIERS[word], 0
        elif word == "and" and seen:
            continue
        elif seen:
            out.append(float(total + current))
            total = current = 0
            seen = False
    if seen:
        out.append(float(total + current))
    return out


def clauses(text: str) -> list[str]:
    """``text`` cut into clauses (see the module's docstring)."""
    return [text[a:b] for a, b in clause_spans(str(text or "")) if text[a:b].strip()]


def clause_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for cut in _CLAUSE_END.finditer(text):
        spans.append((start, cut.start()))
        start = cut.end()
    return spans + [(start, len(text))]


def sentences(text: str) -> list[str]:
    return [part for part in _SENTENCE_END.split(str(text or "")) if part.strip()]


def negated(clause: str) -> bool:
    """Whether a clause denies what it holds: it has a negating word ("not", "never", "no", "won't", ...)."""
    spelt = _CONTRACTIONS.sub(lambda m: m.group(1) + " not", clause)
    return any(word in NEGATORS for word in tokens(spelt))


def denied(text: str) -> str:
    """``text`` with only its negated clauses kept (the rest blanked): what it denies."""
    text = str(text or "")
    kept = [" "] * len(text)
    for a, b in clause_spans(text):
        if negated(text[a:b]):
            kept[a:b] = list(text[a:b])
    return "".join(kept)


def affirmed(text: str) -> str:
    """``text`` with its negated clauses blanked out, the rest left where it was: what it asserts
    ("Approved, not rejected" keeps "Approved"). Questions stay: a request ("could you start on the
    security section?") holds the words a task asks for."""
    text = str(text or "")
    kept = list(text)
    for a, b in clause_spans(text):
        if negated(text[a:b]):
            kept[a:b] = " " * (b - a)
    return "".join(kept)


def parse_date(value) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    found = dates_in(str(value or ""))
    return found[0] if len(found) == 1 else None


def dates_in(text: str, year: int | None = None, dayfirst: bool = False) -> list[date]:
    """Every distinct date written in ``text``: ISO (2026-03-27), in words (27 March 2026, Mar 27, 2026;
    "March 27th" when ``year`` is given), or slashed (3/27/2026, month first unless ``dayfirst``)."""
    out: list[date] = []
    for y, m, d in _ISO_DATE.findall(text):
        _add_date(out, int(y), int(m), int(d))
    for day1, mon1, year1, mon2, day2, year2 in _TEXT_DATE.findall(text):
        month = _MONTHS_BY_ABBR[(mon1 or mon2).lower()[:3]]
        _add_date(out, int(year1 or year2), month, int(day1 or day2))
    for a, b, y in _SLASH_DATE.findall(text):
        full = int(y) + (2000 if len(y) == 2 else 0)
        _add_date(out, full, int(b if dayfirst else a), int(a if dayfirst else b))
    if year is not None:
        for day1, mon1, mon2, day2 in _YEARLESS.findall(_TEXT_DATE.sub(" ", text)):
            _add_date(out, year, _MONTHS_BY_ABBR[(mon1 or mon2).lower()[:3]], int(day1 or day2))
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
