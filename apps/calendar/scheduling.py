"""Calendar operations that write: create, change, move, cancel and answer events; shared calendars.

Changing one occurrence of a recurring event (``scope``): ``this`` stores it as its own event that
replaces the occurrence; ``following`` cuts the series there and starts a new one with the change;
``all`` changes the series (a changed start or end moves every occurrence by the same amount).
Cancelling a series cancels its occurrences changed on their own too (those from the cut on, for
``following``), as Google Calendar does. An attendee answers one occurrence (``respond`` with its id) or the
whole series (the series' id, or ``scope="all"``). An all-day event is free time unless said otherwise, a
timed one busy: the defaults Google Calendar gives a new event (``show_as``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, time
from typing import Any, Literal

from sqlmodel import col, func, select

from apps.calendar import invitations, recurrence, store
from apps.calendar import schemas as s
from apps.calendar.models import Access, Attendee, Calendar, Event, Response, Role, default_show_as
from apps.kit import Conflict, Ctx, Invalid, OperationSet
from apps.kit.checks import email_address

ops = OperationSet("calendar")
Scope = Literal["this", "following", "all"]


def _new_id(ctx: Ctx) -> str:
    return f"evt-{ctx.session.exec(select(func.count()).select_from(Event)).one() + 1:05d}"


def _normalise(ctx: Ctx, event: Event) -> None:
    """Times to aware UTC in the event's zone; checks the zone, the times and the rule; busy or free as the kind
    of event makes it, when not said."""
    store.check_zone(event.time_zone)
    event.show_as = event.show_as or default_show_as(event.all_day)
    event.start = store.aware(ctx, event.start, event.time_zone, "start")
    event.end = store.aware(ctx, event.end, event.time_zone, "end")
    if event.end <= event.start:
        raise Invalid("end: must be after start", field="end")
    if event.recurrence:
        recurrence.parse(event.recurrence, event.start, store.zone(ctx, event.time_zone))


def _days(values: dict[str, Any]) -> dict[str, Any]:
    """An all-day event's start and end given: dates, not instants; the day written is the day, whatever
    offset came with it (midnight of it in the event's zone is stored)."""
    for name in ("start", "end"):
        if isinstance(values.get(name), datetime):
            values[name] = datetime.combine(values[name].date(), time())
    return values


def _set_attendees(ctx: Ctx, event: Event, people: list[str], keep: Sequence[Attendee] = ()) -> list[Attendee]:
    answers = {a.email: a for a in keep}
    rows = []
    for address in dict.fromkeys(a.lower() for a in people):
        old = answers.get(address)
        row = Attendee(event_id=event.id, email=address, response=old.response if old else
                       ("accepted" if address == event.organizer else "needsAction"),
                       optional=old.optional if old else False, comment=old.comment if old else "")
        ctx.session.add(row)
        rows.append(row)
    return rows


@ops.write
def create_event(ctx: Ctx, fields: s.EventCreate, attendees: list[str] = [], calendar_id: str | None = None,
                 send_invitations: bool = True) -> s.EventOut:
    """Put an event on a calendar and invite people: each gets an invitation mail with an .ics file.
    On another person's own calendar (you need writer there, e.g. as their assistant) they are the organizer.

    Args:
        attendees: Addresses to invite (people of the company or outside).
        calendar_id: The calendar to put it on (you need writer). Default: your own.
        send_invitations: Mail the invitations (default true).
    """
    calendar = store.calendar_of(ctx, calendar_id, "writer")
    attendees = [email_address(a, "attendees") for a in attendees]
    # on a person's own calendar (a delegate writing to it) the event is theirs, as in Google Calendar
    organizer = calendar.owner if calendar.primary else ctx.actor
    values = fields.model_dump()
    event = Event(**(_days(values) if values["all_day"] else values), id=_new_id(ctx), calendar_id=calendar.id,
                  organizer=organizer)
    event.time_zone = event.time_zone or calendar.time_zone
    _normalise(ctx, event)
    ctx.session.add(event)
    people = _set_attendees(ctx, event, [organizer, *attendees] if attendees else [])
    ctx.session.flush()
    if send_invitations:
        invitations.notify(ctx, event, people, "REQUEST")
    return store.out(ctx, event)


@ops.write
def update_event(ctx: Ctx, event_id: str, fields: s.EventUpdate, attendees: list[str] | None = None,
                 scope: Scope = "all", send_updates: bool = True) -> s.EventOut:
    """Change an event (title, times, place, guests...); attendees get an updated invitation.

    Args:
        event_id: The event, or one occurrence of a recurring event.
        attendees: The new full list of guests (answers of those kept are kept). Default: unchanged.
        scope: For an occurrence of a recurring event: this, following (this and later ones) or all.
        send_updates: Mail the attendees about the change (default true).
    """
    event, start = store.editable(ctx, event_id)
    changes = fields.model_dump(exclude_unset=True)
    if changes.get("all_day", event.all_day):
        _days(changes)
    target = _target(ctx, event, start, scope, changes)
    for name, value in changes.items():
        setattr(target, name, value)
    _normalise(ctx, target)
    target.sequence += 1
    people = store.attendees(ctx, target.id)
    if attendees is not None:
        attendees = [email_address(a, "attendees") for a in attendees]
        for row in people:
            ctx.session.delete(row)
        ctx.session.flush()
        people = _set_attendees(ctx, target, [target.organizer, *attendees] if attendees else [], people)
    ctx.session.add(target)
    ctx.session.flush()
    if send_updates:
        invitations.notify(ctx, target, people, "REQUEST")
    return store.out(ctx, target)


def _target(ctx: Ctx, event: Event, start: datetime | None, scope: Scope, changes: dict[str, Any]) -> Event:
    """The stored event a change applies to, making an occurrence's own event or a new series if needed."""
    if start is None or scope == "all":
        if start is not None:  # a changed time of one occurrence moves the whole series by as much
            for name in ("start", "end"):
                if name in changes:
                    moved = store.aware(ctx, changes[name], changes.get("time_zone") or event.time_zone, name)
                    changes[name] = getattr(event, name) + (moved - (start if name == "start" else
                                                                     start + (event.end - event.start)))
        return event
    copy = Event(**{**event.model_dump(), "id": f"{event.id}_{recurrence.instance_key(start)}",
                    "start": start, "end": start + (event.end - event.start), "exdates": [], "sequence": 0})
    if scope == "this":
        copy.recurrence, copy.recurring_event_id, copy.original_start = None, event.id, start
        if ctx.session.get(Event, copy.id):
            raise Conflict("event_id: this occurrence was already changed on its own; change that event", field="event_id")
    else:
        assert event.recurrence, "an occurrence's start comes only with a series"  # store.event_of
        event.recurrence, copy.recurrence = recurrence.split(event.recurrence, event.start,
                                                             store.zone(ctx, event.time_zone), start)
        copy.id = _new_id(ctx)
        _hand_over(ctx, event, copy, start)
        ctx.session.add(event)
    ctx.session.add(copy)
    ctx.session.flush()
    for row in store.attendees(ctx, event.id):
        ctx.session.add(Attendee(event_id=copy.id, email=row.email, response=row.response, optional=row.optional))
    return copy


def _hand_over(ctx: Ctx, series: Event, successor: Event, start: datetime) -> None:
    """Occurrences changed or removed on their own from ``start`` on belong to the new series."""
    key = recurrence.instance_key(start)
    successor.exdates = [d for d in series.exdates if d >= key]
    series.exdates = [d for d in series.exdates if d < key]
    for changed in ctx.session.exec(select(Event).where(Event.recurring_event_id == series.id,
                                                        col(Event.original_start) >= start)):
        changed.recurring_event_id = successor.id
        ctx.session.add(changed)


@ops.write
def move_event(ctx: Ctx, event_id: str, start: datetime, scope: Scope = "this", send_updates: bool = True) -> s.EventOut:
    """Move an event to a new start, keeping its length; attendees get an updated invitation.

    Args:
        event_id: The event, or one occurrence of a recurring event.
        start: The new start (ISO 8601; without offset: the event's time zone).
        scope: For an occurrence of a recurring event: this, following or all.
        send_updates: Mail the attendees about the change (default true).
    """
    event, begin = store.editable(ctx, event_id)
    length = event.end - event.start
    update = s.EventUpdate(start=start, end=start + length)
    return update_event(ctx, event_id, update, None, scope, send_updates)


@ops.write
def cancel_event(ctx: Ctx, event_id: str, scope: Scope = "all", message: str = "",
                 send_updates: bool = True) -> s.Cancelled:
    """Cancel an event (or occurrences of a recurring one); attendees get a cancellation mail.

    Args:
        event_id: The event, or one occurrence of a recurring event.
        scope: For an occurrence of a recurring event: this, following or all.
        message: A note to the attendees.
        send_updates: Mail the attendees (default true).
    """
    event, start = store.editable(ctx, event_id)
    if event.status == "cancelled":
        raise Conflict("event_id: this event is already cancelled", field="event_id")
    people = store.attendees(ctx, event.id)
    if start is not None and scope == "this":
        event.exdates = [*event.exdates, recurrence.instance_key(start)]
    elif start is not None and scope == "following" and start > event.start:
        assert event.recurrence, "an occurrence's start comes only with a series"  # store.event_of
        event.recurrence = recurrence.split(event.recurrence, event.start, store.zone(ctx, event.time_zone), start)[0]
        _cancel_changed(ctx, event, start)
    else:
        event.status, start = "cancelled", None
        _cancel_changed(ctx, event, event.start)
    event.sequence += 1
    ctx.session.add(event)
    notified = invitations.notify(ctx, event, people, "CANCEL", message, start) if send_updates else []
    return s.Cancelled(event_id=event_id, notified=notified)


def _cancel_changed(ctx: Ctx, series: Event, start: datetime) -> None:
    """The occurrences of ``series`` changed on their own (moved, retitled...) from ``start`` on, cancelled."""
    for changed in ctx.session.exec(select(Event).where(Event.recurring_event_id == series.id,
                                                        col(Event.original_start) >= start)):
        changed.status = "cancelled"
        changed.sequence += 1
        ctx.session.add(changed)


@ops.write
def respond(ctx: Ctx, event_id: str, response: Response, comment: str = "",
            scope: Literal["this", "all"] = "this") -> s.EventOut:
    """Answer an invitation; the organizer sees your answer on the event and gets a reply mail.

    Args:
        event_id: The event, or one occurrence of a recurring event.
        response: accepted, tentative, declined (or needsAction to take an answer back).
        comment: A note to the organizer.
        scope: For an occurrence of a recurring event: this (answer that occurrence only, as Google Calendar
            does for an occurrence's id) or all (answer the whole series).
    """
    event, start = store.event_of(ctx, event_id)
    if not any(a.email == ctx.actor for a in store.attendees(ctx, event.id)):
        raise Invalid(f"event_id: you are not invited to {event_id}", field="event_id")
    if start is not None and scope == "this":   # the occurrence becomes its own event, holding this answer
        event, start = _target(ctx, event, start, "this", {}), None
    me = next(a for a in store.attendees(ctx, event.id) if a.email == ctx.actor)
    me.response, me.comment = response, comment
    ctx.session.add(me)
    if response != "needsAction":
        invitations.reply(ctx, event, me, start)
    return store.out(ctx, event, start, start + (event.end - event.start) if start else None)


@ops.write
def create_calendar(ctx: Ctx, fields: s.CalendarCreate) -> s.CalendarOut:
    """Create a shared calendar that you own (e.g. a team's or a project's); share it with share_calendar."""
    key = "-".join(fields.name.lower().split())[:40]
    if ctx.session.get(Calendar, key):
        raise Conflict(f"name: a calendar {key!r} exists already; choose another name", field="name")
    store.check_zone(fields.time_zone)
    calendar = Calendar(**fields.model_dump(), id=key, owner=ctx.actor)
    ctx.session.add(calendar)
    return s.CalendarOut(**calendar.model_dump(), role="owner")


@ops.write
def share_calendar(ctx: Ctx, calendar_id: str, person: str, role: Role | None) -> s.CalendarOut:
    """Give a person of the company a role on a calendar you own, or take it away.

    Args:
        calendar_id: The calendar (you must be its owner).
        person: Their address.
        role: freeBusyReader, reader, writer or owner; null removes their role.
    """
    calendar = store.calendar_of(ctx, calendar_id, "owner")
    if person.lower() not in {p.email for p in ctx.world.people}:
        raise Invalid(f"person: {person} is not a person of the company", field="person")
    for row in ctx.session.exec(select(Access).where(Access.calendar_id == calendar.id, Access.person == person.lower())):
        ctx.session.delete(row)
    if role is not None:
        ctx.session.add(Access(calendar_id=calendar.id, person=person.lower(), role=role))
    return s.CalendarOut(**calendar.model_dump(), role="owner")
