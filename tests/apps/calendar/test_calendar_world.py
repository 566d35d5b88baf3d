"""The calendar's own world section: problems with file:line, shipped worlds, generation, round trip."""

from __future__ import annotations

import pytest
from calendar_factories import EVENTS, make_calendar_world

from apps.calendar.world import CalendarSection
from apps.crm.world import CrmSection
from apps.mail.world import MailSection
from simulator.store.registry import world_sections
from worlds import WorldError, load_world
from worlds.generate import generate
from worlds.writer import write_world


def test_unknown_attendee_and_bad_times_are_named_with_file_and_line(tmp_path):
    events = {**EVENTS, "bad": {"title": "Bad", "organizer": "dana@small.test", "start": "2026-03-18T10:00:00",
                                "end": "2026-03-18T09:00:00", "attendees": ["nobody@else.example"],
                                "recurrence": "FREQ=NEVER"}}
    world = make_calendar_world(tmp_path, events=events)
    with pytest.raises(WorldError) as caught:
        load_world(world, world_sections())
    problems = "\n".join(caught.value.problems)
    assert "calendar/events.yaml:" in problems and "end must be after start" in problems
    assert "nobody@else.example is neither a person nor an outsider" in problems
    assert "recurrence" in problems


def test_a_world_without_a_calendar_folder_loads_with_empty_calendars(world_dir, tmp_path):
    (world_dir / "calendar" / "events.yaml").unlink()
    (world_dir / "calendar" / "calendars.yaml").unlink()
    assert load_world(world_dir, world_sections()).sections["calendar"].events == {}


@pytest.mark.parametrize("name", ["acme", "harbor-legal"])
def test_shipped_worlds_have_the_meetings_their_mail_names(name, tmp_path):
    world = load_world(name, world_sections())
    events = world.sections["calendar"].events
    key = {"acme": "q1-board-meeting", "harbor-legal": "signing"}[name]
    assert events[key].start.date().isoformat() == {"acme": "2026-03-19", "harbor-legal": "2026-03-27"}[name]
    CalendarSection().write(world.sections["calendar"], tmp_path)
    problems = []
    again = CalendarSection().load(tmp_path, world.info, problems)
    assert problems == [] and again.model_dump() == world.sections["calendar"].model_dump()



def test_a_dumped_world_keeps_its_calendar(world_dir, tmp_path):
    world = load_world(world_dir, world_sections())
    again = load_world(write_world(world, tmp_path / "copy", world_sections()), world_sections())
    assert again.sections["calendar"].model_dump() == world.sections["calendar"].model_dump()


def test_the_generator_writes_calendars_through_the_apps_section(tmp_path):
    out = generate(3, "s", tmp_path / "gen", sections={"mail": MailSection(), "crm": CrmSection(), "calendar": CalendarSection()})
    data = load_world(out, world_sections()).sections["calendar"]
    assert len(data.events) > 15 and any(e.recurrence for e in data.events.values())
