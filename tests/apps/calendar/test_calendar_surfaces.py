"""The calendar over MCP (official client, live loopback server) and the agent CLI ``ow calendar ...``."""

import asyncio
import json

import httpx
from surfaces import CONTROL, mcp_session, new_episode, run_ow


def test_mcp_creates_an_event_and_the_invitation_is_a_recorded_peer_step(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    tools, (created, bad) = asyncio.run(mcp_session(episode["mcp_url"], [
        ("calendar_create_event", {"title": "Pricing sync", "start": "2026-03-18T11:00:00",
                                   "end": "2026-03-18T11:30:00", "attendees": ["mei@small.test"]}),
        ("calendar_create_event", {"title": "", "start": "2026-03-18T11:00:00", "end": "2026-03-18T11:30:00"}),
    ]))
    by_name = {t.name: t for t in tools}
    assert by_name["calendar_find_time"].annotations.read_only_hint is True
    assert "organizer" not in by_name["calendar_create_event"].input_schema["properties"]
    assert not created.is_error and created.structured_content["attendees"][1]["email"] == "mei@small.test"
    assert bad.is_error and '"field": "title"' in bad.content[0].text
    steps = httpx.get(f"{live_server}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["app"], s["operation"], s["requested_by"]) for s in steps] == [
        ("mcp", "calendar", "create_event", None), ("peer", "mail", "send", 0), ("mcp", "calendar", "create_event", None)]


def test_cli_lists_finds_a_time_and_cancels(live_server, world_dir):
    episode = new_episode(live_server, world_dir)

    def ow(*args):
        return run_ow(live_server, episode["id"], "calendar", *args)

    agenda = ow("list-events", "2026-03-17T00:00:00", "--end", "2026-03-18T00:00:00", "--json")
    assert agenda.returncode == 0, agenda.stderr
    assert [e["title"] for e in json.loads(agenda.stdout)["events"]] == ["Globex renewal call"]
    slots = ow("find-time", "--people", "ravi@small.test", "--people", "mei@small.test", "--start",
               "2026-03-16T10:00:00", "--duration-minutes", "60", "--limit", "1", "--json")
    assert slots.returncode == 0, slots.stderr
    assert json.loads(slots.stdout)[0]["start"] == "2026-03-16T15:00:00Z"
    done = ow("cancel-event", "globex-call", "--message", "Moving to next week", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["notified"] == ["sam@globex.example"]
    again = ow("cancel-event", "globex-call")
    assert again.returncode != 0 and "already cancelled" in again.stderr
