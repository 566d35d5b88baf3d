"""An operation's tools/call in a ready MCP session is answered by the gateway (simulator/gateway/mcp_calls.py):
every answer, header and recorded step is the one the SDK's own session path gives for the same call."""

import asyncio
import contextlib
import json
import time

import anyio
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from surfaces import CONTROL, MCP_HEADERS, MCP_INIT, new_episode, open_session

from simulator.gateway import mcp_calls
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread

# Raw bodies: what the official client sends, and what only a raw body can hold (NaN, 1e999, odd ids and params).
CALLS = [
    b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mail_search","arguments":{"query":"renewal"}}}',
    b'{"jsonrpc":"2.0","id":"s-3","method":"tools/call","params":{"name":"mail_send","arguments":'
    b'{"to":["not-an-address"],"subject":"x","body":"y"}}}',
    b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mail_get_message","arguments":{"message_id":9999}}}',
    b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"mail_get_message","arguments":{"message_id":"x"}}}',
    b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"mail_get_message"}}',
    b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mail_get_message","arguments":[1]}}',
    b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"crm_update_opportunity","arguments":'
    b'{"opportunity_id":1,"amount":NaN}}}',
    b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"crm_update_opportunity","arguments":'
    b'{"opportunity_id":1,"amount":1e999}}}',
    b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"crm_update_opportunity","arguments":'
    b'{"opportunity_id":92233720368547758080}}}',
    b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"mail_search","arguments":{"query":"a\\ud800b"}}}',
    b'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"mail_nope","arguments":{}}}',
    b'{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"mail_send","arguments":'
    b'{"to":["ravi@small.test"],"subject":"Globex","body":"Quote is out."}}}',
    b'{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"mail_list_labels","arguments":{}}}',
    # Text to escape, numbers of every form, arguments null, and params beyond a name and arguments (the kernel's).
    b'{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"mail_create_label","arguments":'
    b'{"name":"\xc3\x9cn\xc3\xaf \\u2028 \\"q\\" \\\\ \\u001f \xe2\x98\x83"}}}',
    b'{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"crm_get_opportunity","arguments":{"opportunity_id":1}}}',
    b'{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"crm_update_opportunity","arguments":'
    b'{"opportunity_id":1,"amount":1234.5678e3,"probability":35}}}',
    b'{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"mail_list_labels","arguments":null}}',
    b'{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"mail_list_labels","arguments":{},"extra":1}}',
    b'{"jsonrpc":"2.0","id":"\xc3\xbc-20","method":"tools/call","params":{"name":"mail_get_message",'
    b'"arguments":{"message_id":1}}}',
]


@contextlib.contextmanager
def two_servers(store):
    """The gateway as built (fast path on) and one whose fast path is off (every call through the SDK's session)."""
    fast, sdk = build_app(store), build_app(store)
    sdk.calls = None
    answered: list[bool] = []
    answer = fast.calls.answer

    async def counting(*args):
        answered.append(await answer(*args))
        return answered[-1]
    fast.calls.answer = counting
    with serve_in_thread(fast) as fast_url, serve_in_thread(sdk) as sdk_url:
        yield fast, fast_url, sdk_url, answered


def open_ready(http: httpx.Client, url: str, gateway=None) -> dict:
    """A raw session at ``url``; with ``gateway``, once the SDK has processed its ``notifications/initialized``
    (it does so just after answering 202, so the very next call may still find the session not ready)."""
    headers = open_session(http, url)
    for _ in range(500):
        if gateway is None or headers["mcp-session-id"] in gateway.calls.ready:
            return headers
        time.sleep(0.01)
    raise AssertionError("the session never became ready")


def trajectory(base: str, episode: dict) -> list:
    steps = httpx.get(f"{base}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    return [(s["surface"], s["operation"], s["arguments"], s["result"], s["error"], s["state_changed"]) for s in steps]


def test_every_answer_and_step_equals_the_sdk_path(store, world_dir):
    with two_servers(store) as (gateway, fast_url, sdk_url, answered), httpx.Client(timeout=30) as http:
        without_kernel, direct = [], gateway.calls._direct

        async def counting(scope, params):
            without_kernel.append(params.get("name"))
            return await direct(scope, params)
        gateway.calls._direct = counting
        episodes = {url: new_episode(url, world_dir) for url in (fast_url, sdk_url)}
        replies: dict[str, list] = {}
        for url, episode in episodes.items():
            headers = open_ready(http, episode["mcp_url"], gateway if url == fast_url else None)
            replies[url] = []
            for raw in CALLS:
                reply = http.post(episode["mcp_url"], content=raw, headers={**headers, "mcp-protocol-version": "2025-06-18"})
                session = reply.headers.get("mcp-session-id")
                assert session == headers["mcp-session-id"]
                replies[url].append((reply.status_code, reply.content,
                                     [(k, v) for k, v in reply.headers.multi_items() if k not in ("date", "server")]))
            for i, (status, content, _) in enumerate(replies[url]):
                assert status == 200, (i, content)
        fast_replies = [(s, c, [(k, v if k != "mcp-session-id" else "-") for k, v in h]) for s, c, h in replies[fast_url]]
        sdk_replies = [(s, c, [(k, v if k != "mcp-session-id" else "-") for k, v in h]) for s, c, h in replies[sdk_url]]
        for i, (mine, theirs) in enumerate(zip(fast_replies, sdk_replies)):
            assert mine == theirs, (i, mine, theirs)
        # Answered here: every call to an operation's tool (the lone surrogate is the gateway's before; mail_nope the SDK's).
        assert answered == [False] + [True] * 9 + [False] + [True] * 8   # the first: notifications/initialized
        # Without the SDK's kernel: all but arguments that are not an object (id 7) and params beyond them (id 19).
        assert len(without_kernel) == 15 and without_kernel.count("mail_list_labels") == 2
        by_id = {json.loads(c)["id"]: json.loads(c) for _, c, _ in fast_replies}
        assert by_id[7]["error"]["code"] == -32602 and "result" not in by_id[7]   # params the SDK refuses
        for call_id, field in [("s-3", "to"), (5, "message_id"), (6, "message_id"), (8, "amount"), (9, "amount"),
                               (10, "opportunity_id"), (11, "query")]:
            assert by_id[call_id]["result"]["isError"] is True
            assert json.loads(by_id[call_id]["result"]["content"][0]["text"])["error"]["field"] == field, call_id
        assert by_id[13]["result"]["structuredContent"]["labels"] == ["SENT"]
        assert by_id[15]["result"]["structuredContent"]["name"] == "\u00dcn\u00ef \u2028 \"q\" \\ \x1f \u2603"
        assert by_id[17]["result"]["structuredContent"]["amount"] == 1234567.8
        assert by_id[18]["result"]["isError"] is False and "ü-20" in by_id
        fast_steps, sdk_steps = trajectory(fast_url, episodes[fast_url]), trajectory(sdk_url, episodes[sdk_url])
        assert fast_steps == sdk_steps and len(fast_steps) == 17   # each operation call is one step (mail_nope none)
        assert {s[0] for s in fast_steps} == {"mcp"}


async def _official(url: str) -> list:
    """The official client (handshake-era session over streamable HTTP): the results of a few calls."""
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            results = [await session.call_tool("mail_search", {"query": "renewal"}),
                       await session.call_tool("mail_send", {"to": ["nobody"], "subject": "x", "body": "y"}),
                       await session.call_tool("mail_nope", {}),
                       await session.call_tool("mail_create_label", {"name": "Fast"}),
                       await session.call_tool("mail_list_labels", {})]
            return [r.model_dump() for r in results]


def test_the_official_client_gets_the_same_results_from_both_paths(store, world_dir):
    with two_servers(store) as (_, fast_url, sdk_url, answered):
        fast_episode, sdk_episode = new_episode(fast_url, world_dir), new_episode(sdk_url, world_dir)
        mine = asyncio.run(_official(fast_episode["mcp_url"]))
        theirs = asyncio.run(_official(sdk_episode["mcp_url"]))
        assert mine == theirs
        assert mine[0]["is_error"] is False and mine[1]["is_error"] is True and mine[2]["is_error"] is True
        assert "Fast" in {label["name"] for label in mine[4]["structured_content"]["result"]}
        assert answered.count(True) >= 3   # the client may send the first call before its handshake is processed
        assert trajectory(fast_url, fast_episode) == trajectory(sdk_url, sdk_episode)


def test_only_ready_sessions_of_their_own_episode_are_answered_here(store, world_dir):
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "mail_list_labels", "arguments": {}}}
    with two_servers(store) as (gateway, url, _, answered), httpx.Client(timeout=30) as http:
        first, second = new_episode(url, world_dir), new_episode(url, world_dir)
        opened = http.post(first["mcp_url"], json=MCP_INIT, headers=MCP_HEADERS)
        half = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
        assert http.post(first["mcp_url"], json=call, headers=half).status_code == 200   # no initialized yet: the SDK
        assert answered == [False]
        ready = open_ready(http, first["mcp_url"], gateway)
        crossed = http.post(second["mcp_url"], json=call, headers=ready)
        assert crossed.status_code == 404 and crossed.json()["error"]["field"] == "mcp-session-id"
        assert http.post(first["mcp_url"], json=call, headers={**ready, "accept": "text/event-stream"}).status_code == 406
        modern = http.post(first["mcp_url"], json=call, headers={**ready, "mcp-protocol-version": "2026-07-28"})
        assert modern.status_code == 400   # the 2026 entry wants its envelope: the SDK answers
        assert answered == [False] * 4   # the half session's call, the initialized notification, 406, 2026
        assert http.post(first["mcp_url"], json=call, headers=ready).status_code == 200
        assert answered[-1] is True
        assert http.delete(first["mcp_url"], headers=ready).status_code < 300
        gone = http.post(first["mcp_url"], json=call, headers=ready)
        assert gone.status_code == 404 and ready["mcp-session-id"] not in gateway.calls.ready
        assert [s[1] for s in trajectory(url, first)] == ["list_labels", "list_labels"] and trajectory(url, second) == []


def test_a_call_answered_here_keeps_the_session_alive(store, world_dir):
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "mail_list_labels", "arguments": {}}}
    with two_servers(store) as (gateway, url, _, answered), httpx.Client(timeout=30) as http:
        episode = new_episode(url, world_dir)
        headers = open_ready(http, episode["mcp_url"], gateway)
        transport = gateway.manager._server_instances[headers["mcp-session-id"]]
        assert http.post(episode["mcp_url"], json=call, headers=headers).status_code == 200
        timeout = gateway.manager.session_idle_timeout

        async def left(deadline_in: float | None = None) -> float:
            """Seconds left on the session's idle countdown (set first, in the server's loop, as if long idle)."""
            if deadline_in is not None:
                transport.idle_scope.deadline = anyio.current_time() + deadline_in
            return transport.idle_scope.deadline - anyio.current_time()
        assert asyncio.run_coroutine_threadsafe(left(120), gateway.loop).result() <= 120
        assert http.post(episode["mcp_url"], json=call, headers=headers).status_code == 200
        assert answered[-2:] == [True, True]
        assert asyncio.run_coroutine_threadsafe(left(), gateway.loop).result() > timeout - 60
        asyncio.run_coroutine_threadsafe(left(30), gateway.loop).result()   # about to expire: the SDK answers
        assert http.post(episode["mcp_url"], json=call, headers=headers).status_code == 200
        assert answered[-1] is False


def test_the_answer_written_without_the_kernel_is_checked_against_the_sdk(monkeypatch):
    """Built, the session calls compare their bytes with the SDK's own: equal with this SDK; written any other way
    (fields in another order), every call goes through the kernel."""
    assert mcp_calls.shaped_as_sdk()
    monkeypatch.setattr(mcp_calls, "_framed", lambda request_id, result: b'{"id":' + json.dumps(request_id).encode()
                        + b',"jsonrpc":"2.0","result":' + result + b"}")
    assert not mcp_calls.shaped_as_sdk()
