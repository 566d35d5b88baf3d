"""bench/peers/canned.py, the endpoint that answers a client's repeated tools/call from memory (a client's
floor in the side-by-side): what it forwards, what it replays and with which id, and its HTTP framing."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "peer_canned", Path(__file__).parents[2] / "bench" / "peers" / "canned.py")
canned = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(canned)

RESULT = {"content": [{"type": "text", "text": "{\"id\": 1}"}], "structuredContent": {"id": 1}, "isError": False}


@pytest.fixture
def upstream(monkeypatch):
    """A stand-in for the real server: records what reaches it, answers a tools/call with its protocol version."""
    seen: list[tuple[str, dict, bytes]] = []

    def forward(url, method, headers, body):
        seen.append((method, headers, body))
        message = json.loads(body) if body else {}
        if message.get("method") == "tools/call":
            if message["params"]["name"] == "broken":
                return 200, {"content-type": "application/json"}, json.dumps(
                    {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32602, "message": "no"}}).encode()
            result = {**RESULT, "version": headers.get("mcp-protocol-version")}
            return 200, {"content-type": "application/json", "mcp-session-id": "s1", "date": "x"}, json.dumps(
                {"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        return 202, {}, b""

    monkeypatch.setattr(canned, "forward", forward)
    return seen


def call(request_id, name="mail_get_message", version="2025-11-25", arguments=None):
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments or {"message_id": 1}}}).encode()
    return {"mcp-protocol-version": version, "content-type": "application/json"}, body


def test_a_repeated_call_is_answered_from_memory_with_its_own_id_and_the_first_answers_headers(upstream):
    server = canned.Canned("http://upstream/mcp")
    first = asyncio.run(server.answer("POST", *call(1)))
    again = asyncio.run(server.answer("POST", *call("seven")))
    assert len(upstream) == 1
    assert first[0] == again[0] == 200
    assert again[1] == {"content-type": "application/json", "mcp-session-id": "s1"}
    answer = json.loads(again[2])
    assert answer == {"jsonrpc": "2.0", "id": "seven", "result": {**RESULT, "version": "2025-11-25"}}
    assert json.loads(first[2])["id"] == 1


def test_a_call_differing_in_tool_arguments_or_protocol_version_goes_to_the_server(upstream):
    server = canned.Canned("http://upstream/mcp")
    for request_id, kwargs in enumerate([{}, {"arguments": {"message_id": 2}}, {"name": "crm_get"},
                                         {"version": "2026-07-28"}]):
        asyncio.run(server.answer("POST", *call(request_id, **kwargs)))
    assert len(upstream) == 4
    modern = asyncio.run(server.answer("POST", *call(9, version="2026-07-28")))
    assert len(upstream) == 4 and json.loads(modern[2])["result"]["version"] == "2026-07-28"


def test_everything_else_is_forwarded_each_time_and_errors_are_not_kept(upstream):
    server = canned.Canned("http://upstream/mcp")
    notification = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    for _ in range(2):
        assert asyncio.run(server.answer("POST", {}, notification))[0] == 202
        error = asyncio.run(server.answer("POST", *call(3, name="broken")))
        assert json.loads(error[2])["error"]["message"] == "no"
        asyncio.run(server.answer("DELETE", {"mcp-session-id": "s1"}, b""))
    assert [method for method, *_ in upstream] == ["POST", "POST", "DELETE"] * 2
    assert asyncio.run(server.answer("GET", {}, b""))[0] == 405 and len(upstream) == 6


def test_it_serves_http_keep_alive(upstream):
    async def go():
        server = await asyncio.start_server(canned.Canned("http://upstream/mcp").serve, "127.0.0.1", 0)
        async with server:
            reader, writer = await asyncio.open_connection(*server.sockets[0].getsockname()[:2])
            answers = []
            for request_id in (1, 2):
                headers, body = call(request_id)
                writer.write(b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                             b"mcp-protocol-version: 2025-11-25\r\ncontent-length: %d\r\n\r\n" % len(body) + body)
                head = (await reader.readuntil(b"\r\n\r\n")).decode()
                length = int(next(line.split(":")[1] for line in head.split("\r\n") if line.startswith("content-length")))
                answers.append((head, json.loads(await reader.readexactly(length))))
            writer.close()
            return answers

    (head1, first), (head2, second) = asyncio.run(go())
    assert head1.startswith("HTTP/1.1 200") and head2.startswith("HTTP/1.1 200") and "mcp-session-id: s1" in head2
    assert "date:" not in head2
    assert (first["id"], second["id"]) == (1, 2) and second["result"]["structuredContent"] == {"id": 1}
    assert len(upstream) == 1
