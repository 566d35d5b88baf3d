"""Queries, the sharing rule and row -> result for the calendar.

Who sees what: every person sees the free/busy time of everyone's own calendar; a ``reader`` sees
event details except of ``private`` events (those need ``writer``); the organizer and the attendees
of an event always see it. Editing needs ``writer`` on the event's calendar, or being its organizer.
"""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from sqlmodel import col, or_, select

from apps.calendar import recurrence
from apps.calendar import schemas as s
from apps.calendar.models import Access, Attendee, Calendar, Event, Role
from apps.kit import Ctx, Forbidden, Invalid, NotFound
from apps.kit.entity import fields_for

RANK: dict[Role | None, int] = {None: 0, "freeBusyReader": 1, "reader": 2, "writer": 3, "owner": 4}


def roles(ctx: Ctx) -> dict[str, Role]:
    """The actor's role on every calendar they have one on, read once per call."""
    found: dict[str, Role] | None = ctx.session.info.get("calendar.roles")
    if found is None:
        found = {cid: "freeBusyReader" for cid in ctx.session.exec(select(Calendar.id).where(Calendar.primary))}
        for access in ctx.session.exec(select(Access).where(Access.person == ctx.actor)):
            if RANK[access.role] > RANK[found.get(access.calendar_id)]:
                found[access.calendar_id] = access.role
        found.update({cid: "owner" for cid in ctx.session.exec(select(Calendar.id).where(Calendar.owner == ctx.actor))})
        ctx.session.info["calendar.roles"] = found
    return found


def role_on(ctx: Ctx, calendar: Calendar | None) -> Role | None:
    return None if calendar is None else roles(ctx).get(calendar.id)


def calendar_of(ctx: Ctx, calendar_id: str | None, need: Role = "reader") -> Calendar:
    """A calendar the actor holds at least ``need`` on (``None``: the actor's own)."""
    calendar = ctx.session.get(Calendar, calendar_id or ctx.actor)
    role = role_on(ctx, calendar) if calendar else None
    if calendar is None or role is None:
        raise NotFound(f"calendar_id: no calendar {calendar_id!r} (see list_calendars)", field="calendar_id")
    if RANK[role] < RANK[need]:
        hint = "; use free_busy to see when its owner is busy" if role == "freeBusyReader" else ""
        raise Forbidden(f"calendar_id: you are {role} on {calendar.id}, this needs {need}{hint}", field="calendar_id")
    return calendar


def zone(ctx: Ctx, name: str | None = None) -> ZoneInfo:
    return ZoneInfo(name or ctx.world.timezone)


def check_zone(name: str | None, field: str = "time_zone") -> None:
    """Refuse a time zone that is not an IANA name, whether or not a time will be read in it."""
    if name is None:
        return
    try:
        ZoneInfo(name)
    except Exception:
        raise Invalid(f"{field}: {name!r} is not an IANA time zone such as Europe/London", field=field) from None


def aware(ctx: Ctx, moment: datetime, zone_name: str | None, field: str) -> datetime:
    """An argument time as aware UTC: a time without offset is in ``zone_name`` (or the company's)."""
    try:
        local = moment if moment.tzinfo else moment.replace(tzinfo=zone(ctx, zone_name))
    except Exception:
        raise Invalid(f"time_zone: {zone_name!r} is not an IANA time zone such as Europe/London",
                      field="time_zone") from None
    return local.astimezone(timezone.utc)


def attendees(ctx: Ctx, event_id: str) -> list[Attendee]:
    known = ctx.session.info.get("calendar.attendees")
    if known is not None and event_id in known:
        return known[event_id]
    return list(ctx.session.exec(select(Attendee).where(Attendee.event_id == event_id).order_by(col(Attendee.id))))


def prefetch_attendees(ctx: Ctx, events: list[Event]) -> None:
    """Read the attendees of ``events`` in one query, for a read-only call that shows many events."""
    known: dict[str, list[Attendee]] = {e.id: [] for e in events}
    for row in ctx.session.exec(select(Attendee).where(col(Attendee.event_id).in_(list(known))).order_by(col(Attendee.id))):
        known[row.event_id].append(row)
    ctx.session.info["calendar.attendees"] = known


def event_of(ctx: Ctx, event_id: str) -> tuple[Event, datetime | None]:
    """The stored event for an id (a series for an instance id) and the instance's start, if one."""
    event = ctx.session.get(Event, event_id)
    if event is not None:
        return event, None
    series, start = recurrence.split_instance_id(event_id)
    event = ctx.session.get(Event, series) if start else None
    if start is None or event is None or not event.recurrence or not _occurs_at(ctx, event, event.recurrence, start):
        raise NotFound(f"event_id: no event {event_id!r} (see list_events or search_events)", field="event_id")
    return event, start


def _occurs_at(ctx: Ctx, event: Event, rule: str, start: datetime) -> bool:
    found = recurrence.occurrences(rule, event.start, event.end, zone(ctx, event.time_zone), start,
                                   start + (event.end - event.start), set(event.exdates))
    return any(begin == start for begin, _ in found)


def access(ctx: Ctx, event: Event, people: list[Attendee] | None = None) -> tuple[bool, bool]:
    """(may see details, may edit) for the actor on ``event`` (``people``: its attendees, if read already)."""
    if event.organizer == ctx.actor:
        return True, True
    role = RANK[roles(ctx).get(event.calendar_id)]
    invited = any(a.email == ctx.actor for a in (attendees(ctx, event.id) if people is None else people))
    see = invited or role >= RANK["writer"] or (role >= RANK["reader"] and event.visibility != "private")
    return see, role >= RANK["writer"]


def editable(ctx: Ctx, event_id: str) -> tuple[Event, datetime | None]:
    event, start = event_of(ctx, event_id)
    if not access(ctx, event)[0]:
        raise NotFound(f"event_id: no event {event_id!r} (see list_events or search_events)", field="event_id")
    if not access(ctx, event)[1]:
        raise Forbidden(f"event_id: only the organizer ({event.organizer}) or a writer on {event.calendar_id} may "
                        "change this event; attendees answer with respond", field="event_id")
    return event, start


def out(ctx: Ctx, event: Event, start: datetime | None = None, end: datetime | None = None) -> s.EventOut:
    """The event (or its occurrence at ``start``) as the actor may see it."""
    data = event.model_dump(include=set(fields_for(Event, "see")))
    if start is not None and event.recurrence:
        data.update(id=recurrence.instance_id(event.id, start), start=start, end=end,
                    recurring_event_id=event.id, original_start=start)
    if event.all_day:   # its days, as the event's zone has them: the same dates for every viewer
        local = zone(ctx, event.time_zone)
        data.update(start_date=data["start"].astimezone(local).date(), end_date=data["end"].astimezone(local).date())
    people = attendees(ctx, event.id)
    if not access(ctx, event, people)[0]:
        return s.EventOut(**{**data, "title": "Busy", "location": "", "description": "", "reminders": []},
                          details_hidden=True)
    found = [s.AttendeeOut.model_validate(a, from_attributes=True) for a in people]
    return s.EventOut(**data, attendees=found)


def visible_rows(ctx: Ctx, after: datetime, before: datetime, calendar_id: str | None) -> list[Event]:
    """Stored events that may overlap [after, before): on ``calendar_id``, or on the actor's agenda (the
    calendars they read, plus what they organise or are invited to)."""
    query = select(Event).where(Event.status != "cancelled", Event.start < before,
                                or_(col(Event.recurrence).is_not(None), Event.end > after))
    if calendar_id is not None:
        return list(ctx.session.exec(query.where(Event.calendar_id == calendar_id)))
    readable = [cid for cid, role in roles(ctx).items() if RANK[role] >= RANK["reader"]]
    invited = select(Attendee.event_id).where(Attendee.email == ctx.actor)
    return list(ctx.session.exec(query.where(or_(col(Event.calendar_id).in_(readable), Event.organizer == ctx.actor,
                                                 col(Event.id).in_(invited)))))


def expand(ctx: Ctx, rows: list[Event], after: datetime, before: datetime) -> list[tuple[Event, datetime, datetime]]:
    """Every occurrence in [after, before) of ``rows``, as (event, start, end), sorted by start. An occurrence
    changed on its own is stored as its own event and replaces the series' one."""
    series = [e.id for e in rows if e.recurrence]
    changed = set(ctx.session.exec(select(Event.recurring_event_id, Event.original_start).where(
        col(Event.recurring_event_id).in_(series)))) if series else set()
    found = []
    for event in rows:
        if not event.recurrence:
            found.append((event, event.start, event.end))
            continue
        for begin, end in recurrence.occurrences(event.recurrence, event.start, event.end,
                                                 zone(ctx, event.time_zone), after, before, set(event.exdates)):
            if (event.id, begin) not in changed:
                found.append((event, begin, end))
    return sorted(found, key=lambda item: (item[1], item[0].id))
