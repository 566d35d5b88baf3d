"""Recurring events changed in every scope, delegates, search; over REST."""

from __future__ import annotations

from calendar_factories import CALENDARS, make_calendar_world
from surfaces import call

DANA, RAVI, MEI = "dana@small.test", "ravi@small.test", "mei@small.test"


def _starts(api, episode, title: str, end: str = "2026-04-30T00:00:00") -> list[str]:
    events = call(api, episode, "calendar", "list_events", start="2026-03-16T00:00:00", end=end).json()["events"]
    return [e["start"] for e in events if title in e["title"]]


def test_a_counted_series_split_keeps_its_total(api, episode):
    made = call(api, episode, "calendar", "create_event", title="Standup", start="2026-03-16T09:00:00",
                end="2026-03-16T09:15:00", recurrence="FREQ=DAILY;COUNT=5", send_invitations=False).json()
    assert len(_starts(api, episode, "Standup")) == 5
    split = call(api, episode, "calendar", "update_event", event_id=f"{made['id']}_20260318T130000Z",
                 title="Standup (new format)", scope="following")
    assert split.status_code == 200, split.text
    titles = [e["title"] for e in call(api, episode, "calendar", "list_events", start="2026-03-16T00:00:00",
                                        end="2026-03-31T00:00:00").json()["events"] if "Standup" in e["title"]]
    assert titles == ["Standup", "Standup"] + ["Standup (new format)"] * 3


def test_moving_one_occurrence_with_scope_all_moves_the_series(api, episode):
    moved = call(api, episode, "calendar", "move_event", event_id="team-weekly_20260323T140000Z",
                 start="2026-03-23T11:30:00", scope="all")
    assert moved.status_code == 200, moved.text
    assert _starts(api, episode, "weekly", "2026-04-01T00:00:00") == [
        "2026-03-16T15:30:00Z", "2026-03-23T15:30:00Z", "2026-03-30T15:30:00Z"]


def test_an_attendee_cannot_change_the_event(api, world_dir):
    as_ravi = api.post("/v1/episodes", json={"world": str(world_dir), "as": RAVI}).json()
    r = call(api, as_ravi, "calendar", "update_event", event_id="team-weekly", title="Mine now")
    assert r.status_code == 403 and r.json()["error"]["field"] == "event_id"


def test_a_delegate_books_on_their_managers_calendar(api, world_dir, tmp_path):
    as_dana = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
    r = call(api, as_dana, "calendar", "create_event", calendar_id=RAVI, title="x", start="2026-03-18T10:00:00",
             end="2026-03-18T11:00:00")
    assert r.status_code == 403 and "writer" in r.json()["error"]["message"]  # Dana only reads Ravi's calendar
    assert call(api, as_dana, "calendar", "list_events", calendar_id=MEI).status_code == 403
    delegated = make_calendar_world(tmp_path / "delegated", calendars={**CALENDARS, "sharing": {RAVI: {DANA: "writer"}}})
    as_dana = api.post("/v1/episodes", json={"world": str(delegated)}).json()
    r = call(api, as_dana, "calendar", "create_event", calendar_id=RAVI, title="Dentist", start="2026-03-18T10:00:00",
             end="2026-03-18T11:00:00", attendees=[MEI])
    assert r.status_code == 200, r.text
    assert r.json()["organizer"] == RAVI and [a["email"] for a in r.json()["attendees"]] == [RAVI, MEI]
    as_mei = api.post("/v1/episodes", json={"world": str(world_dir), "as": MEI}).json()
    assert call(api, as_mei, "calendar", "list_events", calendar_id="sales").status_code == 404  # not shared with her


def test_search_finds_by_words_and_attendees(api, episode):
    found = call(api, episode, "calendar", "search_events", query="globex renewal").json()
    assert [e["id"] for e in found["events"]] == ["globex-call"]
    by_guest = call(api, episode, "calendar", "search_events", query="sam@globex.example").json()
    assert by_guest["total"] == 1
    assert call(api, episode, "calendar", "search_events", query="dermatology").json()["total"] == 0


def test_a_split_series_keeps_the_occurrences_changed_after_the_cut(api, episode):
    assert call(api, episode, "calendar", "cancel_event", event_id="team-weekly_20260406T140000Z",
                scope="this").status_code == 200
    moved = call(api, episode, "calendar", "move_event", event_id="team-weekly_20260413T140000Z",
                 start="2026-04-14T10:00:00", scope="this")
    assert moved.status_code == 200, moved.text
    split = call(api, episode, "calendar", "update_event", event_id="team-weekly_20260330T140000Z",
                 title="Sales team weekly (v2)", scope="following")
    assert split.status_code == 200, split.text
    assert _starts(api, episode, "weekly", "2026-04-21T00:00:00") == [
        "2026-03-16T14:00:00Z", "2026-03-23T14:00:00Z", "2026-03-30T14:00:00Z", "2026-04-14T14:00:00Z",
        "2026-04-20T14:00:00Z"]
