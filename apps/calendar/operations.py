"""Calendar operations that read: calendars, agenda, one event, search, free/busy, finding a time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlmodel import col, or_, select

from apps.calendar import schemas as s
from apps.calendar import store
from apps.calendar.models import Attendee, Calendar, Event
from apps.kit import Ctx, Invalid, NotFound, OperationSet

ops = OperationSet("calendar")


@ops.read
def list_calendars(ctx: Ctx) -> list[s.CalendarOut]:
    """The calendars you can open: your own, shared calendars you were given a role on, and everyone's
    own calendar (for free/busy)."""
    found = []
    for calendar in ctx.session.exec(select(Calendar).order_by(col(Calendar.primary).desc(), Calendar.id)):
        role = store.role_on(ctx, calendar)
        if role is not None:
            found.append(s.CalendarOut(**calendar.model_dump(), role=role))
    return found


def _window(ctx: Ctx, start: datetime | None, end: datetime | None, days: int) -> tuple[datetime, datetime]:
    after = store.aware(ctx, start, None, "start") if start else ctx.now
    before = store.aware(ctx, end, None, "end") if end else after + timedelta(days=days)
    if before <= after:
        raise Invalid("end: must be after start", field="end")
    if before - after > timedelta(days=366):
        raise Invalid("end: a window of at most 366 days", field="end")
    return after, before


@ops.read
def list_events(ctx: Ctx, start: datetime | None = None, end: datetime | None = None, calendar_id: str | None = None,
                limit: int = 100) -> s.EventList:
    """Events between two times, recurring events expanded into their occurrences, sorted by start.

    Args:
        start: From (ISO 8601; without offset: the company's time zone). Default: now.
        end: Until. Default: 7 days after start.
        calendar_id: One calendar (see list_calendars). Default: your agenda (calendars you read, your invitations).
        limit: At most this many events (1-500).
    """
    if not 1 <= limit <= 500:
        raise Invalid("limit: between 1 and 500", field="limit")
    after, before = _window(ctx, start, end, 7)
    if calendar_id is not None:
        store.calendar_of(ctx, calendar_id, "reader")
    rows = store.visible_rows(ctx, after, before, calendar_id)
    store.prefetch_attendees(ctx, rows)
    found = store.expand(ctx, rows, after, before)
    return s.EventList(events=[store.out(ctx, e, b, n) for e, b, n in found[:limit]], total=len(found))


@ops.read
def get_event(ctx: Ctx, event_id: str) -> s.EventOut:
    """One event, or one occurrence of a recurring event, with its attendees and their responses.

    Args:
        event_id: The event's id (an occurrence's id is <series id>_<UTC start>, as list_events gives it).
    """
    event, start = store.event_of(ctx, event_id)
    if not store.access(ctx, event)[0] and store.role_on(ctx, ctx.session.get(Calendar, event.calendar_id)) is None:
        raise NotFound(f"event_id: no event {event_id!r} (see list_events or search_events)", field="event_id")
    return store.out(ctx, event, start, start + (event.end - event.start) if start else None)


@ops.read
def search_events(ctx: Ctx, query: str, start: datetime | None = None, end: datetime | None = None,
                  limit: int = 50) -> s.EventList:
    """Find events whose title, description, location or attendees contain words of ``query``.

    Args:
        query: Words to look for (all must appear), e.g. 'globex renewal'.
        start: From (ISO 8601). Default: 90 days before now.
        end: Until. Default: 180 days after now.
        limit: At most this many events (1-200).
    """
    words = query.lower().split()
    if not words:
        raise Invalid("query: give at least one word", field="query")
    after, before = _window(ctx, start or ctx.now - timedelta(days=90), end or ctx.now + timedelta(days=180), 0)
    rows = store.visible_rows(ctx, after, before, None)
    store.prefetch_attendees(ctx, rows)
    rows = [e for e in rows if store.access(ctx, e)[0]]
    matching = [e for e in rows if all(w in _text(ctx, e) for w in words)]
    found = store.expand(ctx, matching, after, before)
    return s.EventList(events=[store.out(ctx, e, b, n) for e, b, n in found[:limit]], total=len(found))


def _text(ctx: Ctx, event: Event) -> str:
    people = " ".join(a.email for a in store.attendees(ctx, event.id))
    return f"{event.title} {event.description} {event.location} {event.organizer} {people}".lower()


def busy_of(ctx: Ctx, person: str, after: datetime, before: datetime) -> list[s.Busy]:
    """``person``'s busy time: events on their own calendar and those they have not declined."""
    declined = select(Attendee.event_id).where(Attendee.email == person, Attendee.response == "declined")
    invited = select(Attendee.event_id).where(Attendee.email == person)
    rows = ctx.session.exec(select(Event).where(
        Event.status != "cancelled", Event.show_as == "busy", Event.start < before,
        or_(col(Event.recurrence).is_not(None), Event.end > after),
        or_(Event.calendar_id == person, col(Event.id).in_(invited)), col(Event.id).not_in(declined)))
    merged: list[s.Busy] = []
    for _, begin, end in store.expand(ctx, list(rows), after, before):
        if merged and begin <= merged[-1].end:
            merged[-1].end = max(merged[-1].end, end)
        else:
            merged.append(s.Busy(start=begin, end=end))
    return merged


def _people(ctx: Ctx, people: list[str]) -> list[str]:
    known = {p.email for p in ctx.world.people}
    for address in people:
        if address.lower() not in known:
            raise Invalid(f"people: {address} is not a person of the company", field="people")
    if not people:
        raise Invalid("people: name at least one person", field="people")
    return [a.lower() for a in people]


@ops.read
def free_busy(ctx: Ctx, people: list[str], start: datetime | None = None, end: datetime | None = None) -> list[s.FreeBusy]:
    """When each person is busy (no titles or details), from their calendars and the events they accepted
    or have not answered yet.

    Args:
        people: Addresses of people of the company.
        start: From (ISO 8601). Default: now.
        end: Until. Default: 7 days after start.
    """
    after, before = _window(ctx, start, end, 7)
    return [s.FreeBusy(person=p, busy=busy_of(ctx, p, after, before)) for p in _people(ctx, people)]


@ops.read
def find_time(ctx: Ctx, people: list[str], duration_minutes: int = 30, start: datetime | None = None,
              end: datetime | None = None, day_starts: int = 9, day_ends: int = 17, limit: int = 5) -> list[s.Slot]:
    """Times when everyone named is free, within working hours on weekdays, earliest first.

    Args:
        people: Addresses of the people who must all be free (include yourself if you attend).
        duration_minutes: Length of the meeting (5-480).
        start: Search from (ISO 8601). Default: now.
        end: Search until. Default: 7 days after start.
        day_starts: First working hour, in the company's time zone (0-23).
        day_ends: End of the working day (hour, 1-24).
        limit: At most this many slots (1-50).
    """
    if not 5 <= duration_minutes <= 480:
        raise Invalid("duration_minutes: between 5 and 480", field="duration_minutes")
    if not 0 <= day_starts < day_ends <= 24:
        raise Invalid("day_ends: the working day must end after it starts (hours 0-24)", field="day_ends")
    after, before = _window(ctx, start, end, 7)
    busy = [b for p in _people(ctx, people) for b in busy_of(ctx, p, after, before)]
    length, zone, slots = timedelta(minutes=duration_minutes), store.zone(ctx), list[s.Slot]()
    moment = _round_up(after)
    while moment + length <= before and len(slots) < min(max(limit, 1), 50):
        local = moment.astimezone(zone)
        fits = (local.weekday() < 5 and local.hour >= day_starts
                and (local + length).hour + (local + length).minute / 60 <= day_ends
                and (local + length).date() == local.date())
        if fits and not any(b.start < moment + length and moment < b.end for b in busy):
            slots.append(s.Slot(start=moment, end=moment + length))
            moment += length
        else:
            moment += timedelta(minutes=30)
    return slots


def _round_up(moment: datetime) -> datetime:
    moment = moment.astimezone(timezone.utc).replace(second=0, microsecond=0)
    return moment + timedelta(minutes=(30 - moment.minute % 30) % 30)
