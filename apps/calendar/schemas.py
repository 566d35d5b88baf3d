"""What calendar operations take and return, derived from the entities in ``models`` (never tables)."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING

from pydantic import Field

from apps.calendar.models import Attendee, Calendar, Event, Role
from apps.kit.entity import Strict, derive

if TYPE_CHECKING:
    # mypy cannot see the fields of a model made at run time (``derive``): it checks each against the
    # entity it is made from, whose fields it has (with their types; an update's are all optional).
    EventCreate = Event
    EventUpdate = Event
    _EventBase = Event
    CalendarCreate = Calendar
    _CalendarBase = Calendar
    AttendeeOut = Attendee
else:
    EventCreate = derive(Event, "create")
    EventUpdate = derive(Event, "update")
    CalendarCreate = derive(Calendar, "create")
    AttendeeOut = derive(Attendee, "see", "AttendeeOut")
    _EventBase = derive(Event, "see", "EventBase")
    _CalendarBase = derive(Calendar, "see", "CalendarBase")


class EventOut(_EventBase):
    """An event (or one occurrence of a recurring event) as the acting person may see it."""

    attendees: list[AttendeeOut] = Field(default_factory=list, description="Invited people and their responses")
    details_hidden: bool = Field(False, description="True when you may see only that the time is busy")
    start_date: date | None = Field(None, description="For an all-day event: its first day (the same for everyone)")
    end_date: date | None = Field(None, description="For an all-day event: the day after its last day")


class CalendarOut(_CalendarBase):
    role: Role = Field(description="Your role on this calendar")


class EventList(Strict):
    events: list[EventOut]
    total: int = Field(description="How many events matched (the list may be cut at the limit)")


class Busy(Strict):
    start: datetime
    end: datetime


class FreeBusy(Strict):
    person: str
    busy: list[Busy] = Field(description="Busy intervals, merged and sorted")


class Slot(Strict):
    start: datetime
    end: datetime


class Cancelled(Strict):
    event_id: str
    notified: list[str] = Field(description="Attendees sent a cancellation")
