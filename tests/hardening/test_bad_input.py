"""Inputs no operation may receive are refused at the kit boundary, named, recorded, and change nothing.

Each case is a raw JSON body (Python's ``json`` cannot even write some of them) sent over REST; the
MCP and ``ow`` cases send the same values through those surfaces.
"""

import asyncio
import json

import httpx
import pytest
from mcp import Client
from surfaces import CONTROL, new_episode, run_ow

BAD = [  # (app/op, raw JSON body, field named, words in the message)
    ("crm/update_opportunity", '{"opportunity_id": 1, "amount": NaN}', "amount", "finite"),
    ("crm/update_opportunity", '{"opportunity_id": 1, "amount": Infinity}', "amount", "Infinity"),
    ("crm/update_opportunity", '{"opportunity_id": 1, "amount": 1e999}', "amount", "finite"),
    ("crm/create_account", '{"name": "X", "annual_revenue": -Infinity}', "annual_revenue", "finite"),
    ("mail/get_message", '{"message_id": 9223372036854775808}', "message_id", "64-bit"),
    ("mail/search", '{"query": "x", "offset": -9223372036854775809}', "offset", "64-bit"),
    ("mail/search", '{"query": "a\\u0000b"}', "query", "NUL"),
    ("mail/send", '{"to": ["ravi@small.test"], "subject": "\\ud800", "body": "b"}', "subject", "surrogate"),
    ("crm/create_account", '{"name": "\\udfff x"}', "name", "surrogate"),
    ("mail/send", '{"to": ["ravi@small.test"], "subject": "s", "body": "b", '
                  '"attachments": [{"filename": "a.txt", "text": "\\u0000"}]}', "attachments.0.text", "NUL"),
    ("docs/update_cells", '{"file_id": 1, "cells": {"A1": NaN}}', "cells.A1", "finite"),
    ("mail/search", json.dumps({"query": "x" * 100_001}), "query", "limit of 100000"),
    ("crm/search", json.dumps({"text": "%_" * 30_000}), "text", "too large or complex"),
    ("mail/search", json.dumps({"query": " OR ".join(["x"] * 5000)}), "query", "too large or complex"),
    ("mail/search", json.dumps({"query": "(" * 5000}), "query", None),
    ("crm/query", json.dumps({"soql": "SELECT Id FROM Account WHERE " + "(" * 5000 + "Name = 'a'" + ")" * 5000}),
     "soql", None),
    ("crm/query", json.dumps({"soql": "SELECT Id FROM Account WHERE AnnualRevenue > 99999999999999999999999"}),
     "soql", None),
    ("mail/search", '{"query": ' + "[" * 50_000 + "}", "body", "not valid JSON"),
]


def digest(api, episode) -> str:
    return api.get(f"/v1/episodes/{episode['id']}/digest").json()["digest"]


@pytest.mark.parametrize("path, body, field, words", BAD, ids=[f"{p}:{f}" for p, _, f, _ in BAD])
def test_rest_refuses_bad_input_naming_the_field_and_changes_nothing(api, episode, path, body, field, words):
    before = digest(api, episode)
    response = api.post(f"/episodes/{episode['id']}/api/{path}", content=body,
                        headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid" and error["field"] == field
    assert words is None or words in error["message"]
    assert digest(api, episode) == before


def test_a_refused_rest_body_is_a_step_recorded_as_json(api, episode):
    bad = '{"opportunity_id": 1, "amount": NaN, "name": "\\ud800", "stage": 7}'
    api.post(f"/episodes/{episode['id']}/api/crm/update_opportunity", content=bad,
             headers={"content-type": "application/json"})
    api.post(f"/episodes/{episode['id']}/api/crm/update_opportunity", json={"opportunity_id": 1, "stage": 7})
    response = api.get(f"/v1/episodes/{episode['id']}/trajectory")
    assert response.status_code == 200
    first, second = response.json()["steps"]
    assert first["surface"] == "rest" and first["error"]["field"] == "amount" and not first["state_changed"]
    assert first["arguments"] == {"opportunity_id": 1, "amount": "NaN", "name": "\ufffd", "stage": 7}
    assert second["arguments"] == {"opportunity_id": 1, "stage": 7} and second["error"]["field"] == "stage"


def test_an_operation_may_declare_longer_text(api, episode):
    doc = api.post(f"/episodes/{episode['id']}/api/docs/create_document", json={"name": "Long"}).json()
    text = "word " * 100_000  # 500 kB: past the default limit, within the one documents declare
    response = api.post(f"/episodes/{episode['id']}/api/docs/write_document", json={"file_id": doc["id"], "text": text})
    assert response.status_code == 200, response.text
    too_long = api.post(f"/episodes/{episode['id']}/api/docs/write_document",
                        json={"file_id": doc["id"], "text": "x" * 2_000_001})
    assert too_long.status_code == 422 and too_long.json()["error"]["field"] == "text"


def test_schemas_carry_the_bounds(api):
    schema = api.get("/openapi.json").json()
    body = schema["paths"]["/episodes/{episode_id}/api/mail/get_message"]["post"]["requestBody"]
    message_id = body["content"]["application/json"]["schema"]["properties"]["message_id"]
    assert message_id["maximum"] == 2**63 - 1 and message_id["minimum"] == -(2**63)
    search = schema["paths"]["/episodes/{episode_id}/api/mail/search"]["post"]["requestBody"]
    assert search["content"]["application/json"]["schema"]["properties"]["query"]["maxLength"] == 100_000


async def _raw_mcp_call(url: str, tool: str, arguments: str) -> dict:
    """Open a session with the official client, then send one tools/call whose JSON only a raw body can hold."""
    async with Client(url):
        pass  # the official client proves the tool exists; the raw call below carries what it cannot encode
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx.AsyncClient(timeout=30) as http:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}
        opened = await http.post(url, json=init, headers=headers)
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        raw = ('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "%s", "arguments": %s}}'
               % (tool, arguments))
        response = await http.post(url, content=raw, headers=headers)
    assert response.status_code == 200, response.text
    if response.headers.get("content-type", "").startswith("application/json"):
        return response.json()  # the server answers plain JSON when the client accepts it
    data = next(line[5:] for line in response.text.splitlines() if line.startswith("data:"))
    return json.loads(data)


@pytest.mark.parametrize("arguments, field", [
    ('{"opportunity_id": 1, "amount": NaN}', "amount"),
    ('{"opportunity_id": 1, "amount": 1e999}', "amount"),
    ('{"opportunity_id": 92233720368547758080}', "opportunity_id"),
])
def test_mcp_answers_bad_input_with_a_tool_error_naming_the_field(live_server, world_dir, arguments, field):
    episode = new_episode(live_server, world_dir)
    reply = asyncio.run(_raw_mcp_call(episode["mcp_url"], "crm_update_opportunity", arguments))
    assert "error" not in reply, reply  # not a JSON-RPC error
    assert reply["result"]["isError"] is True
    assert json.loads(reply["result"]["content"][0]["text"])["error"]["field"] == field
    steps = httpx.get(f"{live_server}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["error"]["field"]) for s in steps] == [("mcp", field)]


def test_ow_refusals_are_steps_too(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    result = run_ow(live_server, episode["id"], "mail", "search", "a\x01b" + "x" * 100_000)
    assert result.returncode == 2 and "query" in result.stderr and "limit of 100000" in result.stderr
    steps = httpx.get(f"{live_server}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["error"]["field"]) for s in steps] == [("cli", "query")]
