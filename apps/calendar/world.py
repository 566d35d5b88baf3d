"""The calendar's section of a world (``worlds.sections``): ``calendar/calendars.yaml`` and
``calendar/events.yaml``, read with ``file:line`` problems, written back, generated at any size.

    calendar/calendars.yaml   calendars: {key: {name, owner, description, time_zone, sharing: {address: role}}}
                              sharing: {person's address: {address: role}}   (their own calendar)
    calendar/events.yaml      events: {key: {title, start, end, organizer, calendar (default: the organizer's
                              own), attendees: [address | {email, response, optional, comment}], all_day,
                              time_zone, location, description, recurrence, reminders, visibility, show_as, status}}

Every person has their own calendar (its key is their address). Times without an offset are in the
event's ``time_zone`` or the world's; a date alone is midnight (all-day events). Record fields come
from the entities in ``apps.calendar.models``.
"""

from __future__ import annotations

import random
from datetime import date, datetime, time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, PrivateAttr, ValidationError

from apps.calendar import generate, recurrence
from apps.calendar.models import Attendee, Calendar, Event, Role
from apps.kit.entity import Strict, derive
from worlds.lines import Lines, pydantic_problems, read_yaml
from worlds.model import WorldInfo
from worlds.writer import dump_yaml

if TYPE_CHECKING:
    # mypy cannot see the fields of a model made at run time (``derive``): it checks each record against
    # the entity it is made from, plus the fields added here (keep the two in step).
    class AttendeeRecord(Attendee):
        pass

    class CalendarRecord(Calendar):
        sharing: dict[str, Role]

    class EventRecord(Event):
        calendar: str | None
        attendees: list[str | AttendeeRecord]
else:
    AttendeeRecord = derive(Attendee, "world", "AttendeeRecord")
    CalendarRecord = derive(Calendar, "world", "CalendarRecord",
                            sharing=(dict[str, Role], Field(default_factory=dict, description="Roles given to people")))
    EventRecord = derive(Event, "world", "EventRecord",
                         calendar=(str | None, Field(None, description="Calendar key (default: the organizer's own)")),
                         attendees=(list[str | AttendeeRecord], Field(default_factory=list, description="Guests")))


class CalendarData(Strict):
    calendars: dict[str, CalendarRecord] = Field(default_factory=dict)
    sharing: dict[str, dict[str, Role]] = Field(default_factory=dict)
    events: dict[str, EventRecord] = Field(default_factory=dict)
    _addresses: list[tuple[str, str]] = PrivateAttr(default_factory=list)
    _lines: dict[str, str] = PrivateAttr(default_factory=dict)


class CalendarSection:
    folder = "calendar"

    def load(self, root: Path, info: WorldInfo, problems: list[str]) -> CalendarData:
        data, found = CalendarData(), list[tuple[str, str]]()
        path = root / self.folder / "calendars.yaml"
        if path.is_file():
            raw, lines = read_yaml(path, "calendar/calendars.yaml", problems)
            self._calendars(raw or {}, lines, data, found, problems)
        path = root / self.folder / "events.yaml"
        if path.is_file():
            raw, lines = read_yaml(path, "calendar/events.yaml", problems)
            for key, record in ((raw or {}).get("events") or {}).items():
                self._event(str(key), record, lines, info, data, found, problems)
        data._addresses = found
        return data

    def _calendars(self, raw: dict[str, Any], lines: Lines, data: CalendarData, found: list[tuple[str, str]],
                   problems: list[str]) -> None:
        where = "calendar/calendars.yaml"
        for key, record in (raw.get("calendars") or {}).items():
            try:
                data.calendars[str(key)] = calendar = CalendarRecord.model_validate(record)
            except ValidationError as exc:
                problems.extend(pydantic_problems(where, lines, exc, ("calendars", key)))
                continue
            found.append((lines.at(where, ("calendars", key, "owner")), calendar.owner))
            found += [(lines.at(where, ("calendars", key, "sharing", p)), p) for p in calendar.sharing]
        for owner, roles in (raw.get("sharing") or {}).items():
            data.sharing[str(owner)] = dict(roles or {})
            found += [(lines.at(where, ("sharing", owner)), owner)]
            found += [(lines.at(where, ("sharing", owner, p)), p) for p in roles or {}]

    def _event(self, key: str, record: object, lines: Lines, info: WorldInfo, data: CalendarData,
               found: list[tuple[str, str]], problems: list[str]) -> None:
        where, at = "calendar/events.yaml", ("events", key)
        if isinstance(record, dict):  # a date alone is midnight: YAML reads it as a date
            record = {k: datetime.combine(v, time()) if type(v) is date else v for k, v in record.items()}
        try:
            event = EventRecord.model_validate(record)
        except ValidationError as exc:
            problems.extend(pydantic_problems(where, lines, exc, at))
            return
        data.events[key] = event
        data._lines[key] = lines.at(where, at)
        people = {p.email for p in info.people}
        calendars = set(data.calendars) | people
        if event.calendar is None and event.organizer not in people:
            problems.append(f"{lines.at(where, at + ('organizer',))}: {event.organizer} is not a person of the "
                            "world: name the calendar the event is on")
        if event.calendar is not None and event.calendar not in calendars:
            problems.append(f"{lines.at(where, at + ('calendar',))}: no calendar {event.calendar!r} (a key of "
                            "calendars.yaml or a person's address)")
        start, end = (info.utc(t) if t.tzinfo is None else t for t in (event.start, event.end))
        if end <= start:
            problems.append(f"{lines.at(where, at + ('end',))}: end must be after start")
        if event.recurrence:
            try:
                recurrence.parse(event.recurrence, start, generate.zone(info, event.time_zone))
            except Exception as exc:  # Invalid, or a zone name ZoneInfo does not know
                problems.append(f"{lines.at(where, at + ('recurrence',))}: {getattr(exc, 'message', exc)}")
        found.append((lines.at(where, at + ("organizer",)), event.organizer))
        for i, guest in enumerate(event.attendees):
            found.append((lines.at(where, at + ("attendees", i)), guest if isinstance(guest, str) else guest.email))

    def addresses(self, data: CalendarData) -> list[tuple[str, str]]:
        return data._addresses

    def write(self, data: CalendarData, out: Path) -> None:
        raw = data.model_dump(mode="json", exclude_defaults=True)
        calendars = {k: raw[k] for k in ("calendars", "sharing") if raw.get(k)}
        if calendars:
            dump_yaml(calendars, out / self.folder / "calendars.yaml")
        if raw.get("events"):
            dump_yaml({"events": raw["events"]}, out / self.folder / "events.yaml")

    def schedule(self, data: CalendarData, meetings: dict[str, dict[str, Any]]) -> CalendarData:
        """``data`` with the generator's story meetings added (``{key: {title, organizer, start, end,
        attendees, location}}``, times in the world's zone)."""
        return data.model_copy(update={"events": {**data.events, **{k: EventRecord(**m) for k, m in meetings.items()}}})

    def meetings(self, data: CalendarData, info: WorldInfo) -> list[dict[str, Any]]:
        """Every one-off event as ``{where, key, title, start (aware UTC), attendees}``, for the cross-app
        checks (``worlds.consistency``); recurring series are left out."""
        found: list[dict[str, Any]] = []
        for key, event in data.events.items():
            if event.recurrence or event.status == "cancelled":
                continue
            zone = generate.zone(info, event.time_zone)
            start = event.start if event.start.tzinfo else event.start.replace(tzinfo=zone)
            people = {event.organizer, *(g if isinstance(g, str) else g.email for g in event.attendees)}
            found.append({"where": data._lines.get(key, "calendar/events.yaml"), "key": key, "title": event.title,
                          "start": start, "attendees": {p.lower() for p in people}})
        return found

    def generate(self, rng: random.Random, info: WorldInfo, size: str) -> CalendarData:
        calendars, events = generate.calendar_world(rng, info, size)
        return CalendarData(calendars={k: CalendarRecord(**v) for k, v in calendars.items()},
                            events={k: EventRecord(**v) for k, v in events.items()})

