"""``task.wait`` and a world's own co-workers and events (``people.yaml``, ``events.yaml``) over the real
surfaces: REST and the control API's clock, on a plain world episode (no task)."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient
from surfaces import CONTROL, call

sys.path.insert(0, str(Path(__file__).parents[1] / "calendar"))
from calendar_factories import make_calendar_world  # noqa: E402

from simulator.gateway.server import build_app

RAVI, DANA, SAM = "ravi@small.test", "dana@small.test", "sam@globex.example"


@pytest.fixture
def world_dir(tmp_path: Path) -> Path:
    world = make_calendar_world(tmp_path / "worlds")
    people = {"seed": 3, "npcs": [{"email": RAVI, "invitations": {"delay": {"min_seconds": 300, "max_seconds": 900}},
                                   "mail": [{"id": "ack", "reply": "Got it, {sender_name}."}]}]}
    (world / "people.yaml").write_text(yaml.safe_dump(people))
    events = {"events": [{"name": "sam-writes", "at": "2026-03-16T11:00:00", "do": [
        {"op": "mail.send", "as": SAM, "args": {"to": [DANA], "subject": "Signed", "body": "We signed."}}]}]}
    (world / "events.yaml").write_text(yaml.safe_dump(events))
    return world


@pytest.fixture
def api(store):
    with TestClient(build_app(store), base_url="http://localhost:8000", headers=CONTROL) as client:
        yield client


def _episode(api, world_dir) -> dict:
    created = api.post("/v1/episodes", json={"world": str(world_dir)})
    assert created.status_code == 201, created.text
    return created.json()


def _steps(api, episode) -> list[dict]:
    return api.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"]


def test_waiting_for_the_next_event_brings_the_world_event(api, world_dir):
    episode = _episode(api, world_dir)
    assert call(api, episode, "mail", "search", query="from:sam signed").json()["total"] == 0
    waited = call(api, episode, "task", "wait", for_event=True)
    assert waited.status_code == 200, waited.text
    assert datetime.fromisoformat(waited.json()["now"]) == datetime.fromisoformat("2026-03-16T15:00:00+00:00")
    assert call(api, episode, "mail", "search", query="from:sam signed").json()["total"] == 1
    event = [s for s in _steps(api, episode) if s["surface"] == "event"]
    assert [(s["actor"], s["cause"], s["operation"]) for s in event] == [(SAM, "event sam-writes", "send")]
    # Nothing else is coming: waiting for the next event ends at once.
    again = call(api, episode, "task", "wait", for_event=True).json()
    assert datetime.fromisoformat(again["now"]) < datetime.fromisoformat(waited.json()["now"]) + timedelta(minutes=1)


def test_moving_the_clock_over_the_control_api_makes_what_is_due_happen(api, world_dir):
    episode = _episode(api, world_dir)
    moved = api.post(f"/v1/episodes/{episode['id']}/clock", json={"seconds": 3 * 3600})
    assert moved.status_code == 200, moved.text
    assert [s["cause"] for s in _steps(api, episode)] == ["event sam-writes"]


def test_an_npc_accepts_when_free_and_declines_a_clash(api, world_dir):
    episode = _episode(api, world_dir)
    free = call(api, episode, "calendar", "create_event", title="Pipeline review", start="2026-03-17T10:00:00",
                end="2026-03-17T10:30:00", attendees=[RAVI])
    clash = call(api, episode, "calendar", "create_event", title="Lunch", start="2026-03-16T13:30:00",
                 end="2026-03-16T14:00:00", attendees=[RAVI])
    assert free.status_code == clash.status_code == 200, free.text + clash.text
    call(api, episode, "task", "wait", seconds=1800)
    answers = {s["arguments"]["event_id"]: s for s in _steps(api, episode)
               if s["surface"] == "npc" and s["operation"] == "respond"}
    assert answers[free.json()["id"]]["arguments"]["response"] == "accepted"
    assert answers[clash.json()["id"]]["arguments"]["response"] == "declined"
    assert all(s["actor"] == RAVI and s["error"] is None for s in answers.values())
    # Invitation mails are not answered by Ravi's mail rule; a mail Dana writes is.
    assert not [s for s in _steps(api, episode) if s["surface"] == "npc" and s["operation"] == "reply"]
    call(api, episode, "mail", "send", to=[RAVI], subject="Notes", body="See the notes.")
    call(api, episode, "task", "wait", seconds=3600)
    replies = [s for s in _steps(api, episode) if s["surface"] == "npc" and s["operation"] == "reply"]
    assert len(replies) == 1 and replies[0]["arguments"]["body"] == "Got it, Dana Whitfield."


@pytest.mark.parametrize("arguments, field", [
    ({}, "seconds"), ({"seconds": 10, "until": "2026-03-16T12:00:00"}, "seconds"), ({"seconds": -1}, "seconds"),
    ({"seconds": 30 * 86400}, "seconds"), ({"until": "2026-05-16T12:00:00"}, "until"), ({"seconds": "soon"}, "seconds"),
])
def test_a_bad_wait_is_refused_naming_the_field(api, world_dir, arguments, field):
    episode = _episode(api, world_dir)
    refused = call(api, episode, "task", "wait", **arguments)
    assert 400 <= refused.status_code < 500, refused.text
    assert refused.json()["error"]["field"] == field
    assert _steps(api, episode)[-1]["error"] is not None


def test_wait_is_a_tool_with_its_documented_arguments(api):
    tools = {t["function"]["name"]: t["function"] for t in api.get("/v1/tools").json()}
    properties = tools["task_wait"]["parameters"]["properties"]
    assert set(properties) == {"seconds", "until", "for_event"} and all(p["description"] for p in properties.values())
