"""The calendar's GUI pages over a TestClient: the week and day views, an event's page with its guests and
their answers, the create and edit forms, answering an invitation and cancelling; every change is a step of
the calendar's operations with surface gui, and errors show by the field they name."""

from __future__ import annotations

import re

import pytest
from gui_world import gui_server, new_episode
from surfaces import call


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    with gui_server(tmp_path_factory.mktemp("gui-calendar")) as client:
        yield client


@pytest.fixture
def episode(api):
    return new_episode(api)


@pytest.fixture
def gui(episode):
    return f"/episodes/{episode['id']}/gui"


def steps(api, episode) -> list[dict]:
    return api.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"]


def _as(api, episode, actor: str, tool: str, **arguments) -> dict:
    found = api.post(f"/v1/episodes/{episode['id']}/call", json={"tool": tool, "as": actor, "arguments": arguments}).json()
    assert found["error"] is None, found["error"]
    return found["result"]


def test_the_week_shows_each_day_and_its_events_in_the_world_zone(api, episode, gui):
    # The world's now is Monday 2026-03-16 09:00 in New York; 14:00Z is 10:00 there.
    call(api, episode, "calendar", "create_event", title="Pricing review", start="2026-03-18T14:00:00Z",
         end="2026-03-18T15:00:00Z")
    call(api, episode, "calendar", "create_event", title="Offsite", start="2026-03-20", end="2026-03-21", all_day=True)
    page = api.get(gui + "/calendar")
    assert page.status_code == 200 and "Week of Mar 16, 2026" in page.text
    days = re.findall(r'data-testid="day-([\d-]+)"', page.text)
    assert days == [f"2026-03-{d}" for d in range(16, 23)]
    wednesday = page.text.split('data-testid="day-2026-03-18"')[1].split("</section>")[0]
    assert "10:00" in wednesday and "Pricing review" in wednesday
    friday = page.text.split('data-testid="day-2026-03-20"')[1].split("</section>")[0]
    assert "All day" in friday and "Offsite" in friday
    assert "Offsite" not in page.text.split('data-testid="day-2026-03-21"')[1]
    day = api.get(gui + "/calendar?view=day&day=2026-03-18")
    assert re.findall(r'data-testid="day-([\d-]+)"', day.text) == ["2026-03-18"] and "Pricing review" in day.text
    assert [s["operation"] for s in steps(api, episode) if s["surface"] == "gui"] == ["list_events", "list_events"]
    next_week = api.get(gui + "/calendar?day=2026-03-23")
    assert "Pricing review" not in next_week.text and "Week of Mar 23, 2026" in next_week.text


def test_a_bad_day_is_a_page_naming_the_field(api, gui):
    bad = api.get(gui + "/calendar?day=someday")
    assert bad.status_code == 422 and "day:" in bad.text and "Traceback" not in bad.text


def test_creating_an_event_from_the_form_is_the_create_event_step(api, episode, gui):
    form = api.get(gui + "/calendar/new?day=2026-03-19")
    assert 'value="2026-03-19T09:00"' in form.text
    made = api.post(gui + "/calendar/new", data={"title": "Globex call", "start": "2026-03-19T11:00",
                                                 "end": "2026-03-19T11:30", "location": "Room 2",
                                                 "description": "Agenda\r\nPrices", "attendees": "ravi@small.test",
                                                 "show_as": ""}, follow_redirects=False)
    assert made.status_code == 303, made.text
    step = [s for s in steps(api, episode) if s["operation"] == "create_event"][0]
    assert step["surface"] == "gui" and step["arguments"] == {
        "title": "Globex call", "start": "2026-03-19T11:00", "end": "2026-03-19T11:30", "location": "Room 2",
        "description": "Agenda\nPrices", "all_day": False, "attendees": ["ravi@small.test"]}
    event = api.get(made.headers["location"])
    assert "Globex call" in event.text and "Thu Mar 19, 11:00 – 11:30" in event.text
    assert re.search(r'data-testid="answer-ravi@small.test">Awaiting', event.text)


def test_the_form_shows_an_error_by_its_field_and_keeps_what_was_typed(api, episode, gui):
    bad = api.post(gui + "/calendar/new", data={"title": "Backwards", "start": "2026-03-19T11:00",
                                                "end": "2026-03-19T10:00"})
    assert bad.status_code == 422 and 'value="Backwards"' in bad.text
    assert re.search(r'data-testid="error-(end|start|form)"', bad.text)
    no_title = api.post(gui + "/calendar/new", data={"title": "", "start": "2026-03-19T11:00", "end": "2026-03-19T12:00"})
    assert no_title.status_code == 422 and 'data-testid="error-title"' in no_title.text


def test_editing_an_event_changes_it_through_update_event(api, episode, gui):
    made = call(api, episode, "calendar", "create_event", title="Draft", start="2026-03-19T15:00:00Z",
                end="2026-03-19T16:00:00Z").json()
    form = api.get(gui + f"/calendar/events/{made['id']}/edit")
    assert 'value="2026-03-19T11:00"' in form.text and 'value="Draft"' in form.text
    saved = api.post(gui + f"/calendar/events/{made['id']}/edit", data={
        "title": "Final", "start": "2026-03-19T13:00", "end": "2026-03-19T14:00", "attendees": ""},
        follow_redirects=False)
    assert saved.status_code == 303, saved.text
    got = call(api, episode, "calendar", "get_event", event_id=made["id"]).json()
    assert got["title"] == "Final" and got["start"].startswith("2026-03-19T17:00")
    assert [s["surface"] for s in steps(api, episode) if s["operation"] == "update_event"] == ["gui"]


def test_an_invited_person_answers_from_the_event_page(api, episode, gui):
    invite = _as(api, episode, "ravi@small.test", "calendar_create_event",
                 title="Forecast sync", start="2026-03-17T14:00:00Z", end="2026-03-17T14:30:00Z",
                 attendees=["dana@small.test"])
    page = api.get(gui + f"/calendar/events/{invite['id']}")
    assert 'data-testid="respond-form"' in page.text and 'data-testid="edit"' not in page.text
    answered = api.post(gui + f"/calendar/events/{invite['id']}/respond",
                        data={"response": "tentative", "comment": "May be late"}, follow_redirects=False)
    assert answered.status_code == 303
    after = api.get(answered.headers["location"])
    assert re.search(r'data-testid="answer-dana@small.test">Maybe', after.text) and "May be late" in after.text
    step = [s for s in steps(api, episode) if s["operation"] == "respond"][0]
    assert step["surface"] == "gui" and step["arguments"] == {"event_id": invite["id"], "response": "tentative",
                                                              "comment": "May be late"}
    wrong = api.post(gui + f"/calendar/events/{invite['id']}/respond", data={"response": "maybe"})
    assert wrong.status_code == 422 and 'data-testid="error-response"' in wrong.text


def test_an_occurrence_of_a_series_is_answered_alone(api, episode, gui):
    series = _as(api, episode, "ravi@small.test", "calendar_create_event",
                 title="Weekly", start="2026-03-16T15:00:00Z", end="2026-03-16T15:30:00Z", recurrence="FREQ=WEEKLY",
                 attendees=["dana@small.test"])
    week = api.get(gui + "/calendar?day=2026-03-23")
    occurrence = re.search(r'data-testid="event-(' + re.escape(series["id"]) + r'_[^"]+)"', week.text).group(1)
    api.post(gui + f"/calendar/events/{occurrence}/respond", data={"response": "declined", "scope": "this"})
    first = call(api, episode, "calendar", "get_event", event_id=series["id"]).json()
    assert {a["email"]: a["response"] for a in first["attendees"]}["dana@small.test"] == "needsAction"


def test_the_organizer_cancels_from_the_event_page(api, episode, gui):
    made = call(api, episode, "calendar", "create_event", title="Dropped", start="2026-03-19T15:00:00Z",
                end="2026-03-19T16:00:00Z", attendees=["ravi@small.test"]).json()
    page = api.get(gui + f"/calendar/events/{made['id']}")
    assert 'data-testid="cancel-form"' in page.text and 'data-testid="respond-form"' not in page.text
    gone = api.post(gui + f"/calendar/events/{made['id']}/cancel", data={"message": "Sorry"}, follow_redirects=False)
    assert gone.status_code == 303
    assert call(api, episode, "calendar", "get_event", event_id=made["id"]).json()["status"] == "cancelled"
    assert [s["surface"] for s in steps(api, episode) if s["operation"] == "cancel_event"] == ["gui"]


def test_a_missing_event_is_a_page_that_says_so(api, gui):
    missing = api.get(gui + "/calendar/events/nope")
    assert missing.status_code == 404 and "Traceback" not in missing.text


def test_the_home_page_links_the_calendar(api, gui):
    assert f'href="{gui}/calendar"' in api.get(gui + "/").text
