"""Calendar over REST: agenda with recurrence, privacy, create with invitations by mail, answers, changes."""

from __future__ import annotations

from surfaces import call

from simulator.store.registry import APPS

DANA, RAVI, MEI, SAM = "dana@small.test", "ravi@small.test", "mei@small.test", "sam@globex.example"


def test_agenda_expands_the_weekly_meeting_in_local_time(api, episode):
    r = call(api, episode, "calendar", "list_events", start="2026-03-16T00:00:00", end="2026-04-06T00:00:00")
    assert r.status_code == 200, r.text
    weekly = [e for e in r.json()["events"] if e["recurring_event_id"] == "team-weekly"]
    # 10:00 New York before and after the DST change on March 8 is 14:00 UTC in both cases (EDT).
    assert [e["start"] for e in weekly] == ["2026-03-16T14:00:00Z", "2026-03-23T14:00:00Z", "2026-03-30T14:00:00Z"]
    assert weekly[1]["id"] == "team-weekly_20260323T140000Z"
    titles = {e["title"] for e in r.json()["events"]}
    # Dana reads Ravi's calendar, but his private appointment shows only as busy
    assert {"Globex renewal call", "Sales offsite", "Busy"} <= titles and "Doctor appointment" not in titles


def test_private_details_are_hidden_from_readers(api, episode):
    r = call(api, episode, "calendar", "list_events", calendar_id=RAVI, start="2026-03-16T00:00:00",
             end="2026-03-17T00:00:00")
    hidden = next(e for e in r.json()["events"] if e["id"] == "ravi-doctor")
    assert hidden["title"] == "Busy" and hidden["description"] == "" and hidden["details_hidden"]
    r = call(api, episode, "calendar", "list_events", calendar_id=MEI)
    assert r.status_code == 403 and r.json()["error"]["field"] == "calendar_id"
    fb = call(api, episode, "calendar", "free_busy", people=[MEI, RAVI], start="2026-03-16T00:00:00",
              end="2026-03-17T00:00:00").json()
    assert fb[1]["busy"] == [{"start": "2026-03-16T14:00:00Z", "end": "2026-03-16T15:00:00Z"},
                             {"start": "2026-03-16T17:00:00Z", "end": "2026-03-16T18:00:00Z"}]


def test_create_sends_ics_invitations_and_answers_flow_back(api, store, episode):
    r = call(api, episode, "calendar", "create_event", title="Renewal prep", start="2026-03-18T15:00:00",
             end="2026-03-18T15:30:00", attendees=[RAVI, SAM], location="Room 2A")
    assert r.status_code == 200, r.text
    event = r.json()
    assert event["organizer"] == DANA and event["start"] == "2026-03-18T19:00:00Z"
    assert {a["email"]: a["response"] for a in event["attendees"]} == {DANA: "accepted", RAVI: "needsAction",
                                                                        SAM: "needsAction"}
    steps = store.get(episode["id"]).trajectory
    assert (steps[-1].surface, steps[-1].app, steps[-1].operation, steps[-1].requested_by) == \
        ("peer", "mail", "send", steps[-2].index)
    assert steps[-1].error is None and steps[-1].state_changed
    sent = call(api, episode, "mail", "search", query="in:sent Renewal prep").json()
    assert sent["total"] == 1 and sent["messages"][0]["subject"].startswith("Invitation: Renewal prep @ Wednesday")
    message = call(api, episode, "mail", "get_message", message_id=sent["messages"][0]["id"]).json()
    assert [a["filename"] for a in message["attachments"]] == ["invite.ics"]
    assert sorted(message["to"]) == [RAVI, SAM]

def test_respond_updates_the_organizers_event_and_mails_a_reply(api, store, world_dir):
    as_ravi = api.post("/v1/episodes", json={"world": str(world_dir), "as": RAVI}).json()
    r = call(api, as_ravi, "calendar", "respond", event_id="team-weekly", response="declined", comment="on leave")
    assert r.status_code == 200, r.text
    assert next(a for a in r.json()["attendees"] if a["email"] == RAVI)["response"] == "declined"
    steps = store.get(as_ravi["id"]).trajectory
    assert steps[-1].operation == "send" and steps[-1].arguments["to"] == [DANA]
    assert "METHOD:REPLY" in steps[-1].arguments["attachments"][0]["text"]
    fb = call(api, as_ravi, "calendar", "free_busy", people=[RAVI], start="2026-03-16T00:00:00",
              end="2026-03-17T00:00:00").json()
    assert fb[0]["busy"] == [{"start": "2026-03-16T17:00:00Z", "end": "2026-03-16T18:00:00Z"}]


def test_this_and_following_split_a_series(api, episode):
    r = call(api, episode, "calendar", "move_event", event_id="team-weekly_20260330T140000Z",
             start="2026-03-30T11:00:00", scope="following")
    assert r.status_code == 200, r.text
    starts = [e["start"] for e in call(api, episode, "calendar", "list_events", start="2026-03-16T00:00:00",
                                        end="2026-04-14T00:00:00").json()["events"] if "weekly" in e["title"]]
    assert starts == ["2026-03-16T14:00:00Z", "2026-03-23T14:00:00Z", "2026-03-30T15:00:00Z",
                      "2026-04-06T15:00:00Z", "2026-04-13T15:00:00Z"]


def test_one_occurrence_moved_and_one_cancelled(api, episode):
    moved = call(api, episode, "calendar", "move_event", event_id="team-weekly_20260323T140000Z",
                 start="2026-03-24T09:00:00", scope="this")
    assert moved.status_code == 200, moved.text
    cancelled = call(api, episode, "calendar", "cancel_event", event_id="team-weekly_20260330T140000Z", scope="this")
    assert cancelled.json()["notified"] == [RAVI, MEI]
    starts = [e["start"] for e in call(api, episode, "calendar", "list_events", start="2026-03-16T00:00:00",
                                        end="2026-04-07T00:00:00").json()["events"] if "weekly" in e["title"]]
    assert starts == ["2026-03-16T14:00:00Z", "2026-03-24T13:00:00Z", "2026-04-06T14:00:00Z"]


def test_find_time_avoids_busy_people_and_keeps_to_working_hours(api, episode):
    r = call(api, episode, "calendar", "find_time", people=[DANA, RAVI, MEI], duration_minutes=60,
             start="2026-03-16T09:00:00", end="2026-03-16T18:00:00", limit=10)
    assert r.status_code == 200, r.text
    # 10-11 team meeting (all three), 13-14 Ravi busy; working day 9-17 New York (13:00-21:00 UTC)
    assert [s["start"] for s in r.json()] == ["2026-03-16T13:00:00Z", "2026-03-16T15:00:00Z",
                                              "2026-03-16T16:00:00Z", "2026-03-16T18:00:00Z",
                                              "2026-03-16T19:00:00Z", "2026-03-16T20:00:00Z"]


def test_errors_name_the_field(api, episode):
    bad = call(api, episode, "calendar", "create_event", title="x", start="2026-03-18T15:00:00",
               end="2026-03-18T14:00:00")
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "end"
    bad = call(api, episode, "calendar", "create_event", title="x", start="2026-03-18T15:00:00",
               end="2026-03-18T16:00:00", recurrence="FREQ=SOMETIMES")
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "recurrence"
    bad = call(api, episode, "calendar", "respond", event_id="globex-call", response="maybe")
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "response"
    assert call(api, episode, "calendar", "get_event", event_id="nope").status_code == 404


def test_arguments_come_from_the_entity_declaration():
    create = APPS["calendar"].operations["create_event"].input_schema()["properties"]
    assert create["title"]["maxLength"] == 300 and "organizer" not in create and "id" not in create
    update = APPS["calendar"].operations["update_event"].input_schema()
    assert update["required"] == ["event_id"]
