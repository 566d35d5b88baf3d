"""The MCP surface over streamable HTTP, with the official client against a live loopback server."""

import asyncio

import httpx
from surfaces import CONTROL, mcp_session, new_episode


def test_lists_every_mail_operation_with_schemas(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    tools, _ = asyncio.run(mcp_session(episode["mcp_url"], []))
    by_name = {t.name: t for t in tools}
    assert {"mail_search", "mail_send", "mail_reply_all", "mail_get_attachment"} <= set(by_name)
    send = by_name["mail_send"]
    assert send.input_schema["required"] == ["to", "subject", "body"]
    assert "Recipient addresses." in send.input_schema["properties"]["to"]["description"]
    assert by_name["mail_search"].annotations.read_only_hint is True
    assert by_name["mail_send"].annotations.read_only_hint is False


def test_calls_tools_and_records_them_in_thenew_episode(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    _, (found, sent) = asyncio.run(mcp_session(episode["mcp_url"], [
        ("mail_search", {"query": "from:sam renewal"}),
        ("mail_send", {"to": ["ravi@small.test"], "subject": "Globex", "body": "Quote is out."}),
    ]))
    assert not found.is_error and found.structured_content["total"] == 1
    assert not sent.is_error and sent.structured_content["labels"] == ["SENT"]
    steps = httpx.get(f"{live_server}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["operation"], s["state_changed"]) for s in steps] == [
        ("mcp", "search", False), ("mcp", "send", True)]


def test_a_tool_error_is_reported_and_the_session_goes_on(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    _, (bad, missing, good) = asyncio.run(mcp_session(episode["mcp_url"], [
        ("mail_send", {"to": ["not-an-address"], "subject": "x", "body": "y"}),
        ("mail_get_message", {"message_id": 9999}),
        ("mail_search", {"query": "in:inbox"}),
    ]))
    assert bad.is_error and "not an email address" in bad.content[0].text and '"field": "to"' in bad.content[0].text
    assert missing.is_error and "not_found" in missing.content[0].text
    assert not good.is_error


def test_each_episode_url_reaches_only_its_ownnew_episode(live_server, world_dir):
    first, second = new_episode(live_server, world_dir), new_episode(live_server, world_dir)
    asyncio.run(mcp_session(first["mcp_url"], [("mail_create_label", {"name": "Only-in-first"})]))
    _, (labels,) = asyncio.run(mcp_session(second["mcp_url"], [("mail_list_labels", {})]))
    assert "Only-in-first" not in {label["name"] for label in labels.structured_content["result"]}


def test_an_unknown_episode_gets_a_clear_404(live_server):
    response = httpx.post(f"{live_server}/episodes/ep_nope/mcp", json={})
    assert response.status_code == 404
    assert "ep_nope" in response.json()["error"]["message"]
