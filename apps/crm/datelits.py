"""SOQL's date literals (``TODAY``, ``THIS_WEEK``, ``LAST_N_DAYS:30``, ``THIS_FISCAL_QUARTER``, ...) as day ranges.

Each literal names a run of whole days counted from the episode's virtual today (in the world's zone), as
Salesforce documents them: weeks start on Sunday (the en_US locale); ``LAST_N_DAYS:n`` holds today and the
n days before it while ``NEXT_N_DAYS:n`` starts tomorrow; ``LAST_N_WEEKS``/``MONTHS``/``QUARTERS``/``YEARS``
and their ``NEXT_N_`` twins leave out the current period; ``N_DAYS_AGO:n`` and its kin are one period.
Fiscal literals use the fiscal year's first month; no world declares one yet, so it is January, Salesforce's
default (its fiscal quarters and years are then the calendar's).

A range is ``(first day, day after the last)``: ``field = LITERAL`` holds when the field falls inside it,
``<`` before it, ``>`` after it, ``<=``/``>=`` include it.
"""

from __future__ import annotations

from datetime import date, timedelta

MOST = 10000   # the largest n a literal takes: a range beyond it is refused, not overflowed

# period name → months in one (0 for periods counted in days: 1 for a day, 7 for a week)
_MONTHS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12, "FISCAL_QUARTER": 3, "FISCAL_YEAR": 12}
_DAYS = {"DAY": 1, "WEEK": 7}
_FIXED = {"YESTERDAY": ("DAY", -1, -1), "TODAY": ("DAY", 0, 0), "TOMORROW": ("DAY", 1, 1),
          "LAST_90_DAYS": ("DAY", -90, 0), "NEXT_90_DAYS": ("DAY", 1, 90)}
_PERIODS = ("DAY", "WEEK", "MONTH", "QUARTER", "YEAR", "FISCAL_QUARTER", "FISCAL_YEAR")


def is_literal(word: str) -> bool:
    """Whether ``word`` (upper case, ``:n`` included) is written as a date literal, known or not (``day_range``
    says which it is not)."""
    head = word.split(":")[0]
    return head in _FIXED or head.startswith(("THIS_", "LAST_", "NEXT_")) or head.startswith("N_") and \
        head.endswith("_AGO")


def day_range(word: str, today: date, fiscal_start: int = 1) -> tuple[date, date]:
    """The days ``word`` names, as (first, day after the last); ``ValueError`` saying why for a literal not known."""
    head, _, count = word.partition(":")
    if head in _FIXED:
        if count:
            raise ValueError(f"{head} takes no :n")
        unit, first, last = _FIXED[head]
        return _span(unit, first, last, today, fiscal_start)
    n = _count(head, count)
    for prefix, suffix, span in (("THIS_", "", (0, 0)), ("LAST_N_", "S", (-n, -1)), ("NEXT_N_", "S", (1, n)),
                                 ("LAST_", "", (-1, -1)), ("NEXT_", "", (1, 1)), ("N_", "S_AGO", (-n, -n))):
        unit = head.removeprefix(prefix).removesuffix(suffix)
        if head.startswith(prefix) and head.endswith(suffix) and unit in _PERIODS:
            if (n != 0) != ("_N_" in head or head.startswith("N_")):
                raise ValueError(f"{head} {'needs' if n == 0 else 'takes no'} :n")
            first, last = (-n, 0) if head == "LAST_N_DAYS" else span
            return _span(unit, first, last, today, fiscal_start)
    raise ValueError(f"{head} is not a date literal")


def _count(head: str, count: str) -> int:
    if not count:
        return 0
    if not count.isdigit() or not 0 < int(count) <= MOST:
        raise ValueError(f"{head}:n takes a whole number from 1 to {MOST}")
    return int(count)


def _span(unit: str, first: int, last: int, today: date, fiscal_start: int) -> tuple[date, date]:
    """Periods ``first`` to ``last`` (0 is the one holding today, -1 the one before) as days."""
    if unit in _DAYS:
        size = _DAYS[unit]
        start = today - timedelta(days=(today.weekday() + 1) % 7) if size == 7 else today   # weeks start Sunday
        return start + timedelta(days=first * size), start + timedelta(days=(last + 1) * size)
    size = _MONTHS[unit]
    shift = fiscal_start - 1 if unit.startswith("FISCAL") else 0
    period = (today.year * 12 + today.month - 1 - shift) // size
    return _month(period + first, size, shift), _month(period + last + 1, size, shift)


def _month(period: int, size: int, shift: int) -> date:
    index = period * size + shift
    return date(index // 12, index % 12 + 1, 1)
