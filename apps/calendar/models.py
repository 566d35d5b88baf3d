"""The calendar's entities, each declared once (``apps.kit.entity``): the table, what agents may set
and see, and what a world's ``calendar/`` files hold all come from these fields."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from sqlalchemy import JSON, String
from sqlmodel import SQLModel

from apps.kit.entity import UtcDateTime, attr

Role = Literal["freeBusyReader", "reader", "writer", "owner"]
Response = Literal["needsAction", "accepted", "tentative", "declined"]
ROLES: tuple[str, ...] = get_args(Role)
RESPONSES: tuple[str, ...] = get_args(Response)


class Calendar(SQLModel, table=True):
    __tablename__ = "calendar_calendar"

    id: str = attr(primary_key=True, description="Calendar id: the owner's address for a person's own calendar, "
                   "else a short key", create=False, update=False, world=False)
    name: str = attr(description="Name shown in the calendar list", min_length=1, max_length=120)
    description: str = attr("", description="What the calendar is for", max_length=2000)
    owner: str = attr(description="Address of the calendar's owner", create=False, update=False)
    time_zone: str | None = attr(None, description="IANA time zone of the calendar (default: the company's)")
    primary: bool = attr(False, description="Whether this is a person's own calendar", create=False, update=False,
                         world=False)


class Access(SQLModel, table=True):
    """A role on a calendar beyond what everyone has (every person sees every own calendar's free/busy)."""

    __tablename__ = "calendar_access"

    id: int | None = attr(None, primary_key=True, description="Row id", create=False, update=False, see=False,
                          world=False)
    calendar_id: str = attr(index=True, description="The calendar shared", world=False)
    person: str = attr(description="Address of the person given the role")
    role: Role = attr(description="freeBusyReader (busy times only), reader (details), writer (edit events), "
                      "owner (also share)", sa_type=String)


class Event(SQLModel, table=True):
    __tablename__ = "calendar_event"

    id: str = attr(primary_key=True, description="Event id (an instance of a recurring event: <series id>_<UTC start>)",
                   create=False, update=False, world=False)
    calendar_id: str = attr(index=True, description="The calendar holding the event", create=False, update=False,
                            world=False)
    title: str = attr(description="Title shown in the calendar", min_length=1, max_length=300)
    start: datetime = attr(description="Start, ISO 8601; a time without offset is in the event's time zone",
                           sa_type=UtcDateTime)
    end: datetime = attr(description="End (exclusive), ISO 8601; for an all-day event the day after the last day",
                         sa_type=UtcDateTime)
    all_day: bool = attr(False, description="An all-day event: start and end are dates (midnight)")
    time_zone: str | None = attr(None, description="IANA time zone the event is scheduled in (default: the "
                                 "calendar's); recurrence follows its wall clock across daylight-saving changes")
    location: str = attr("", description="Where: a room, an address or a video link", max_length=500)
    description: str = attr("", description="Agenda or notes", max_length=20000)
    recurrence: str | None = attr(None, description="An RRULE for a recurring event, e.g. FREQ=WEEKLY;BYDAY=MO "
                                  "or FREQ=DAILY;COUNT=5", max_length=500)
    reminders: list[int] = attr(default_factory=lambda: [10], description="Minutes before the start to remind",
                                sa_type=JSON)
    visibility: Literal["default", "private"] = attr("default", description="private: people who may only read "
                                                     "the calendar see 'busy', not the details", sa_type=String)
    show_as: Literal["busy", "free"] | None = attr(None, description="Whether the event counts as busy time; left "
                                                   "out: busy for a timed event, free for an all-day one",
                                                   sa_type=String)
    organizer: str = attr(description="Address of the organizer", create=False, update=False)
    status: Literal["confirmed", "tentative", "cancelled"] = attr("confirmed", description="cancelled events "
                                                                 "stay on record", create=False, update=False,
                                                                 sa_type=String)
    recurring_event_id: str | None = attr(None, description="For a changed occurrence: the series it belongs to",
                                          create=False, update=False, world=False)
    original_start: datetime | None = attr(None, description="For a changed occurrence: when it was due to start",
                                           create=False, update=False, world=False, sa_type=UtcDateTime)
    exdates: list[str] = attr(default_factory=list, description="UTC starts of removed occurrences", create=False,
                              update=False, see=False, world=False, sa_type=JSON)
    sequence: int = attr(0, description="Revision number sent with invitations", create=False, update=False,
                         see=False, world=False)


class Attendee(SQLModel, table=True):
    __tablename__ = "calendar_attendee"

    id: int | None = attr(None, primary_key=True, description="Row id", create=False, update=False, see=False,
                          world=False)
    event_id: str = attr(index=True, description="The event", create=False, update=False, see=False, world=False)
    email: str = attr(index=True, description="Address of the attendee")
    response: Response = attr("needsAction", description="needsAction, accepted, tentative or declined",
                              sa_type=String)
    optional: bool = attr(False, description="An optional attendee")
    comment: str = attr("", description="A note sent with the response", max_length=1000)


def default_show_as(all_day: bool) -> Literal["busy", "free"]:
    """Google Calendar's default transparency: an all-day event is free time, a timed one busy."""
    return "free" if all_day else "busy"


TABLES: list[type[SQLModel]] = [Calendar, Access, Event, Attendee]
