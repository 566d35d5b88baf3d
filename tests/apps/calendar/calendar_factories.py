"""A small world with calendars: a weekly team meeting, a customer call, a private event, a shared calendar."""

from __future__ import annotations

from pathlib import Path

import yaml
from factories import make_world

EVENTS = {
    "team-weekly": {"title": "Sales team weekly", "organizer": "dana@small.test", "start": "2026-03-16T10:00:00",
                    "end": "2026-03-16T11:00:00", "recurrence": "FREQ=WEEKLY;BYDAY=MO",
                    "attendees": ["dana@small.test", "ravi@small.test", {"email": "mei@small.test", "response": "accepted"}]},
    "globex-call": {"title": "Globex renewal call", "organizer": "dana@small.test", "start": "2026-03-17T14:00:00",
                    "end": "2026-03-17T15:00:00", "location": "Video call",
                    "attendees": ["dana@small.test", "sam@globex.example"]},
    "ravi-doctor": {"title": "Doctor appointment", "organizer": "ravi@small.test", "start": "2026-03-16T13:00:00",
                    "end": "2026-03-16T14:00:00", "visibility": "private", "description": "dermatology"},
    "offsite": {"title": "Sales offsite", "calendar": "sales", "organizer": "dana@small.test",
                "start": "2026-03-19", "end": "2026-03-20", "all_day": True},
}
CALENDARS = {"calendars": {"sales": {"name": "Sales team", "owner": "dana@small.test",
                                     "sharing": {"ravi@small.test": "reader"}}},
             "sharing": {"ravi@small.test": {"dana@small.test": "reader"}}}


def make_calendar_world(root: Path, events: dict | None = None, calendars: dict | None = None, **kwargs) -> Path:
    world = make_world(root, **kwargs)
    (world / "calendar").mkdir()
    (world / "calendar" / "calendars.yaml").write_text(yaml.safe_dump(calendars or CALENDARS))
    (world / "calendar" / "events.yaml").write_text(yaml.safe_dump({"events": events or EVENTS}, sort_keys=False))
    return world
