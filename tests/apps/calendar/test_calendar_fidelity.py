"""Google Calendar behaviours of the second fidelity review, over REST: cancelling a series takes its changed
occurrences with it, an attendee answers one occurrence, and a new event's busy/free default."""

from __future__ import annotations

from surfaces import call

DANA, RAVI = "dana@small.test", "ravi@small.test"
WEEK = {"start": "2026-03-16T00:00:00", "end": "2026-04-07T00:00:00"}


def ok(response):
    assert response.status_code == 200, response.text
    return response.json()


def weekly(api, episode) -> list[str]:
    events = ok(call(api, episode, "calendar", "list_events", **WEEK))["events"]
    return [e["start"] for e in events if "weekly" in e["title"]]


def test_cancelling_a_series_cancels_its_moved_and_changed_occurrences(api, episode):
    ok(call(api, episode, "calendar", "move_event", event_id="team-weekly_20260323T140000Z",
            start="2026-03-24T09:00:00", scope="this"))
    ok(call(api, episode, "calendar", "update_event", event_id="team-weekly_20260330T140000Z",
            title="Sales team weekly (pipeline)", scope="this"))
    assert weekly(api, episode) == ["2026-03-16T14:00:00Z", "2026-03-24T13:00:00Z", "2026-03-30T14:00:00Z",
                                    "2026-04-06T14:00:00Z"]
    ok(call(api, episode, "calendar", "cancel_event", event_id="team-weekly", scope="all"))
    assert weekly(api, episode) == []
    moved = ok(call(api, episode, "calendar", "get_event", event_id="team-weekly_20260323T140000Z"))
    assert moved["status"] == "cancelled"   # kept on record, as cancelled events are
    busy = ok(call(api, episode, "calendar", "free_busy", people=[DANA], start="2026-03-24T00:00:00",
                   end="2026-03-25T00:00:00"))
    assert busy[0]["busy"] == []


def test_cancelling_this_and_following_takes_the_later_changed_occurrences_only(api, episode):
    ok(call(api, episode, "calendar", "move_event", event_id="team-weekly_20260316T140000Z",
            start="2026-03-17T09:00:00", scope="this"))
    ok(call(api, episode, "calendar", "move_event", event_id="team-weekly_20260330T140000Z",
            start="2026-03-31T09:00:00", scope="this"))
    ok(call(api, episode, "calendar", "cancel_event", event_id="team-weekly_20260323T140000Z", scope="following"))
    assert weekly(api, episode) == ["2026-03-17T13:00:00Z"]


def test_an_attendee_answers_one_occurrence_without_answering_the_series(api, world_dir):
    ravi = api.post("/v1/episodes", json={"world": str(world_dir), "as": RAVI}).json()
    answered = ok(call(api, ravi, "calendar", "respond", event_id="team-weekly_20260323T140000Z",
                       response="declined", comment="travelling"))
    assert answered["id"] == "team-weekly_20260323T140000Z" and answered["recurring_event_id"] == "team-weekly"
    events = ok(call(api, ravi, "calendar", "list_events", **WEEK))["events"]
    mine = {e["start"]: next(a["response"] for a in e["attendees"] if a["email"] == RAVI)
            for e in events if "weekly" in e["title"]}
    assert mine == {"2026-03-16T14:00:00Z": "needsAction", "2026-03-23T14:00:00Z": "declined",
                    "2026-03-30T14:00:00Z": "needsAction", "2026-04-06T14:00:00Z": "needsAction"}
    busy = ok(call(api, ravi, "calendar", "free_busy", people=[RAVI], start="2026-03-23T00:00:00",
                   end="2026-03-31T00:00:00"))[0]["busy"]
    assert busy == [{"start": "2026-03-30T14:00:00Z", "end": "2026-03-30T15:00:00Z"}]   # the declined one is free
    ok(call(api, ravi, "calendar", "respond", event_id="team-weekly_20260330T140000Z", response="accepted",
            scope="all"))
    series = ok(call(api, ravi, "calendar", "get_event", event_id="team-weekly"))
    assert next(a for a in series["attendees"] if a["email"] == RAVI)["response"] == "accepted"
    events = ok(call(api, ravi, "calendar", "list_events", **WEEK))["events"]
    assert [next(a["response"] for a in e["attendees"] if a["email"] == RAVI) for e in events
            if "weekly" in e["title"]] == ["accepted", "declined", "accepted", "accepted"]   # its own answer kept


def test_a_new_all_day_event_shows_as_free_and_a_timed_one_as_busy(api, episode):
    day = {"start": "2026-03-25T00:00:00", "end": "2026-03-26T00:00:00"}
    holiday = ok(call(api, episode, "calendar", "create_event", title="Team holiday", all_day=True,
                      start="2026-03-25", end="2026-03-26"))
    lunch = ok(call(api, episode, "calendar", "create_event", title="Lunch", start="2026-03-25T12:00:00",
                    end="2026-03-25T13:00:00"))
    trip = ok(call(api, episode, "calendar", "create_event", title="Customer trip", all_day=True, show_as="busy",
                   start="2026-03-26", end="2026-03-27"))
    assert (holiday["show_as"], lunch["show_as"], trip["show_as"]) == ("free", "busy", "busy")
    busy = ok(call(api, episode, "calendar", "free_busy", people=[DANA], **day))[0]["busy"]
    assert busy == [{"start": "2026-03-25T16:00:00Z", "end": "2026-03-25T17:00:00Z"}]


def test_an_all_day_event_is_its_dates_for_everyone_whatever_the_zones(api, episode):
    # Google Calendar: an all-day event is a date, not an instant; "2026-03-25T00:00:00Z" names March 25 even
    # though that instant is still March 24 in New York.
    written_in_utc = ok(call(api, episode, "calendar", "create_event", title="Filing day", all_day=True,
                             start="2026-03-25T00:00:00Z", end="2026-03-26T00:00:00Z"))
    assert (written_in_utc["start_date"], written_in_utc["end_date"]) == ("2026-03-25", "2026-03-26")
    tokyo = ok(call(api, episode, "calendar", "create_event", title="Tokyo holiday", all_day=True,
                    time_zone="Asia/Tokyo", start="2026-03-20", end="2026-03-21"))
    assert tokyo["start_date"] == "2026-03-20" and tokyo["start"] == "2026-03-19T15:00:00Z"
    renamed = ok(call(api, episode, "calendar", "update_event", event_id=tokyo["id"], title="Vernal Equinox Day"))
    assert (renamed["start_date"], renamed["end_date"]) == ("2026-03-20", "2026-03-21")   # kept through edits
    moved = ok(call(api, episode, "calendar", "move_event", event_id=tokyo["id"], start="2026-03-23"))
    assert (moved["start_date"], moved["end_date"]) == ("2026-03-23", "2026-03-24")
    timed = ok(call(api, episode, "calendar", "create_event", title="Call", start="2026-03-25T10:00:00",
                    end="2026-03-25T10:30:00"))
    assert timed["start_date"] is None and timed["end_date"] is None
