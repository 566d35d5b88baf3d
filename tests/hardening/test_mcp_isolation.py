"""An MCP session acts only in the episode whose URL opened it, whatever path it is later sent to."""

import asyncio
import json

import httpx
from surfaces import CONTROL, mcp_session, new_episode, open_session

SEND = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
    "name": "mail_send", "arguments": {"to": ["ravi@small.test"], "subject": "Cross", "body": "from elsewhere"}}}


def steps(base: str, episode: dict) -> list:
    return httpx.get(f"{base}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]


def test_a_session_sent_to_another_episode_is_refused_and_acts_nowhere(live_server, world_dir):
    first, second = new_episode(live_server, world_dir), new_episode(live_server, world_dir)
    with httpx.Client(timeout=30) as http:
        headers = open_session(http, first["mcp_url"])
        crossed = http.post(second["mcp_url"], json=SEND, headers=headers)
        assert crossed.status_code == 404
        assert crossed.json()["error"]["field"] == "mcp-session-id"
        assert steps(live_server, second) == [] and steps(live_server, first) == []
        at_home = http.post(first["mcp_url"], json=SEND, headers=headers)
        assert at_home.status_code == 200 and '"isError":true' not in at_home.text
    assert [s["operation"] for s in steps(live_server, first)] == ["send"]


def test_a_delete_through_another_episode_cannot_end_a_session(live_server, world_dir):
    first, second = new_episode(live_server, world_dir), new_episode(live_server, world_dir)
    with httpx.Client(timeout=30) as http:
        headers = open_session(http, first["mcp_url"])
        assert http.delete(second["mcp_url"], headers=headers).status_code == 404
        still_open = http.post(first["mcp_url"], json=SEND, headers=headers)
        assert still_open.status_code == 200, still_open.text
        assert http.delete(first["mcp_url"], headers=headers).status_code < 300
        assert http.post(first["mcp_url"], json=SEND, headers=headers).status_code == 404


def test_the_official_client_still_works_in_each_episode(live_server, world_dir):
    first, second = new_episode(live_server, world_dir), new_episode(live_server, world_dir)
    for episode in (first, second):
        _, (result,) = asyncio.run(mcp_session(episode["mcp_url"], [("mail_list_labels", {})]))
        assert not result.is_error and json.loads(result.content[0].text)["result"]
