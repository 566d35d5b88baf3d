"""Recurring events: RRULE (RFC 5545, through ``python-dateutil``) expanded in the event's own zone,
so a 9:00 weekly meeting stays at 9:00 across daylight-saving changes; splitting a series in two."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from dateutil.rrule import rrule, rruleset, rrulestr

from apps.kit import Invalid

INSTANCE = "%Y%m%dT%H%M%SZ"


def parse(text: str, start: datetime, zone: ZoneInfo) -> rrule | rruleset:
    """The rule of a series starting at ``start``; ``Invalid`` (field ``recurrence``) says what is wrong."""
    body = text.strip().removeprefix("RRULE:")
    if not body or "DTSTART" in body.upper() or "\n" in body:
        raise Invalid("recurrence: give one RRULE such as FREQ=WEEKLY;BYDAY=MO (the start comes from 'start')",
                      field="recurrence")
    try:
        return rrulestr(body, dtstart=start.astimezone(zone))
    except (ValueError, TypeError) as exc:
        raise Invalid(f"recurrence: not a valid RRULE ({exc}); e.g. FREQ=WEEKLY;BYDAY=MO;COUNT=10",
                      field="recurrence") from None


def occurrences(text: str, start: datetime, end: datetime, zone: ZoneInfo, after: datetime,
                before: datetime, skip: AbstractSet[str] = frozenset()) -> list[tuple[datetime, datetime]]:
    """(start, end) in UTC of each occurrence overlapping [after, before), except starts in ``skip``."""
    duration = end - start
    rule = parse(text, start, zone)
    found = []
    for local in rule.between((after - duration).astimezone(zone), before.astimezone(zone), inc=True):
        begin = local.astimezone(timezone.utc)
        if begin + duration > after and begin < before and instance_key(begin) not in skip:
            found.append((begin, begin + duration))
    return found


def instance_key(start: datetime) -> str:
    return start.astimezone(timezone.utc).strftime(INSTANCE)


def instance_id(series_id: str, start: datetime) -> str:
    return f"{series_id}_{instance_key(start)}"


def split_instance_id(event_id: str) -> tuple[str, datetime | None]:
    """``(series id, occurrence start)`` of an instance id, or ``(event_id, None)`` for any other id."""
    series, _, key = event_id.rpartition("_")
    try:
        return series, datetime.strptime(key, INSTANCE).replace(tzinfo=timezone.utc)
    except ValueError:
        return event_id, None


def split(text: str, start: datetime, zone: ZoneInfo, at: datetime) -> tuple[str, str]:
    """The rules of a series cut at the occurrence ``at``: the part before it, and the part from it on
    (a COUNT is shared out between the two)."""
    parts = dict(p.split("=", 1) for p in text.strip().removeprefix("RRULE:").split(";") if "=" in p)
    before = {k: v for k, v in parts.items() if k not in ("COUNT", "UNTIL")}
    before["UNTIL"] = (at - timedelta(seconds=1)).astimezone(timezone.utc).strftime(INSTANCE)
    after = dict(parts)
    if "COUNT" in parts:
        done = len(parse(text, start, zone).between(start.astimezone(zone), at.astimezone(zone), inc=False)) + 1
        after["COUNT"] = str(max(1, int(parts["COUNT"]) - done + (1 if at == start else 0)))
    return _join(before), _join(after)


def _join(parts: dict[str, str]) -> str:
    return ";".join(f"{k}={v}" for k, v in parts.items())
