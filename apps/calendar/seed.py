"""Fill a fresh calendar database from a world: everyone's own calendar, shared calendars, sharing, events."""

from __future__ import annotations

from sqlmodel import Session

from apps.calendar.generate import zone
from apps.calendar.models import Access, Attendee, Calendar, Event, default_show_as
from apps.calendar.world import CalendarData, EventRecord
from worlds.model import World, WorldInfo


def seed(session: Session, world: World) -> None:
    info = world.info
    data: CalendarData = world.sections.get("calendar") or CalendarData()
    for person in info.people:
        session.add(Calendar(id=person.email, name=person.name, owner=person.email, time_zone=info.timezone, primary=True))
    for key, calendar in data.calendars.items():
        session.add(Calendar(id=key, **calendar.model_dump(exclude={"sharing"})))
        session.add_all(Access(calendar_id=key, person=p, role=r) for p, r in calendar.sharing.items())
    for owner, roles in data.sharing.items():
        session.add_all(Access(calendar_id=owner, person=p, role=r) for p, r in roles.items())
    for key, event in sorted(data.events.items()):
        _event(session, info, key, event)


def _event(session: Session, info: WorldInfo, key: str, record: EventRecord) -> None:
    fields = record.model_dump(exclude={"calendar", "attendees"})
    fields["show_as"] = fields["show_as"] or default_show_as(record.all_day)
    start, end = (t if t.tzinfo else t.replace(tzinfo=zone(info, record.time_zone)) for t in (record.start, record.end))
    session.add(Event(**{**fields, "start": start, "end": end}, id=key, calendar_id=record.calendar or record.organizer))
    for guest in record.attendees:
        if isinstance(guest, str):
            session.add(Attendee(event_id=key, email=guest,
                                 response="accepted" if guest == record.organizer else "needsAction"))
        else:
            session.add(Attendee(event_id=key, **guest.model_dump()))
