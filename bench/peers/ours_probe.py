"""Run with officeworld's interpreter (by ``run.py``): officeworld's MCP tool call measured with the same
clients that measure OpenEnv's server in ``openenv_probe.py``, so the pair compares servers, not clients.

``officeworld up`` on acme in its own process, one episode, and at ``/episodes/{id}/mcp``: the official
Python SDK's ``ClientSession`` over streamable HTTP, the official TypeScript SDK's ``Client``
(``ts_client.cjs``), and a bare JSON-RPC ``tools/call`` in a session (the MCP handshake's
``Mcp-Session-Id``) from httpx and from Node's fetch; each with the server's CPU per call from /proc.
``python bench/peers/ours_probe.py REPEAT``; prints JSON. The tool is ``mail_get_message`` on a real
mailbox (a recorded step), where OpenEnv's is a stub reading a dict.

The SDK's default ``mcp.Client`` (the 2026 revision) is measured too. Then each client's own floor
(``floor``): each client before ``canned.py``, an endpoint that answers each repeated ``tools/call`` from
memory with the bytes officeworld's server answered it with (handshake, ``tools/list`` and the first call
are the real server's), its calls taking turns with the same client's calls on officeworld's server
(``in_turns_with_floor``), so both are measured under the same load: what a client takes before
``canned.py`` is the least any server could give it on this machine, and the difference is what
officeworld's server adds. Each client's own CPU per call is measured too (``client_cpu_us_per_call``: this
process's, or the Node process's)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from pathlib import Path

import httpx

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

import common  # noqa: E402
from common import jsonrpc_call, times, ts_client  # noqa: E402

from simulator.bench import scale, served  # noqa: E402

TOOL, ARGS = "mail_get_message", {"message_id": 1}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


async def python_session(stack: contextlib.AsyncExitStack, url: str):
    """The official Python SDK's ``ClientSession`` over streamable HTTP, initialized, its first call made."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    read, write = await stack.enter_async_context(streamable_http_client(url))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return await checked(session, "ClientSession")


async def python_client(stack: contextlib.AsyncExitStack, url: str):
    """The SDK's default client, ``mcp.Client`` (the 2026 revision: no session, one exchange per call)."""
    from mcp import Client

    return await checked(await stack.enter_async_context(Client(url)), "mcp.Client")


async def checked(client, name: str):
    result = await client.call_tool(TOOL, ARGS)
    if result.is_error:
        raise SystemExit(f"ours_probe: {name}'s call failed: {result.content}")
    return client


PYTHON_CLIENTS = {
    "official_python_client_call": (python_session, "official Python SDK ClientSession over streamable HTTP, in "
                                    "the session its initialize made"),
    "official_python_client_2026_call": (python_client, "official Python SDK mcp.Client (its default, 2026 "
                                         "revision) over streamable HTTP"),
}


async def python_figure(key: str, url: str, repeat: int, pid: int) -> dict:
    """One official Python client's call on one server, with this process's CPU per call."""
    make, what = PYTHON_CLIENTS[key]
    async with contextlib.AsyncExitStack() as stack:
        client = await make(stack, url)
        return await common.atimes(lambda: client.call_tool(TOOL, ARGS), repeat, what, pid)


async def python_in_turns(key: str, urls: dict[str, str], repeat: int, pids: dict[str, int]) -> dict[str, dict]:
    """One official Python client before several servers, the calls taking turns."""
    make, what = PYTHON_CLIENTS[key]
    async with contextlib.AsyncExitStack() as stack:
        clients = {name: await make(stack, url) for name, url in urls.items()}
        return await common.atimes_in_turns({name: (lambda c=c: c.call_tool(TOOL, ARGS)) for name, c in clients.items()},
                                     repeat, {name: what for name in urls}, pids)


@contextlib.contextmanager
def canned(upstream: str):
    """``canned.py`` before ``upstream``: its URL and pid."""
    child = subprocess.Popen([sys.executable, str(HERE / "canned.py"), upstream], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        yield f"http://127.0.0.1:{int(child.stdout.readline())}/mcp", child.pid
    finally:
        child.terminate()
        child.wait(timeout=10)


def floors(http: httpx.Client, url: str, pid: int, repeat: int) -> tuple[dict, dict]:
    """Each client before ``canned.py`` (see the module) and before officeworld's server, its calls on the two
    taking turns: (the client alone, the client with officeworld's server), each figure under the same load."""
    with canned(url) as (floor, canned_pid):
        urls, pids = {"floor": floor, "ours": url}, {"floor": canned_pid, "ours": pid}
        call = jsonrpc_call(TOOL, ARGS)
        sessions = {name: handshake(http, u) for name, u in urls.items()}
        what = "httpx: a JSON-RPC tools/call in a session (Mcp-Session-Id)"
        figures = {
            "jsonrpc_session_call": common.times_in_turns(
                {name: (lambda u=u, h=sessions[name]: http.post(u, content=call, headers=h)) for name, u in urls.items()},
                repeat, {name: what for name in urls}, pids),
            "ts_jsonrpc_session_call": common.ts_clients_in_turns("jsonrpc", urls, TOOL, ARGS, repeat, pids),
            **{key: asyncio.run(python_in_turns(key, urls, repeat, pids)) for key in PYTHON_CLIENTS},
            "ts_sdk_call": common.ts_clients_in_turns("sdk", urls, TOOL, ARGS, repeat, pids),
        }
    return ({key: by["floor"] for key, by in figures.items()}, {key: by["ours"] for key, by in figures.items()})


def handshake(http: httpx.Client, url: str) -> dict:
    """MCP's 2025 handshake, once: the headers a session's requests carry."""
    hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "officeworld-bench", "version": "0"}}}
    made = http.post(url, json=hello, headers=MCP_HEADERS)
    made.raise_for_status()
    headers = {**MCP_HEADERS, "mcp-session-id": made.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers).raise_for_status()
    return headers


def main(repeat: int) -> None:
    scale.control_token()  # the child server inherits it
    with served.server_process("acme") as (base, pid), httpx.Client(base_url=base) as http:
        created = http.post("/v1/episodes", json={"world": "acme"}, headers=scale.control_headers())
        created.raise_for_status()
        url = f"{base}/episodes/{created.json()['id']}/mcp"
        headers, call = handshake(http, url), jsonrpc_call(TOOL, ARGS)
        answer = http.post(url, content=call, headers=headers).json()
        if answer.get("error") or answer["result"].get("isError"):
            raise SystemExit(f"ours_probe: JSON-RPC tools/call in a session answered {answer}")
        out = {
            "health": times(lambda: http.get("/health"), repeat, "GET /health (httpx, keep-alive)", pid),
            "jsonrpc_session_call": times(lambda: http.post(url, content=call, headers=headers), repeat,
                                          "httpx (keep-alive): a JSON-RPC tools/call POSTed to /episodes/{id}/mcp, "
                                          "in the session the MCP handshake made (Mcp-Session-Id)", pid),
            "ts_jsonrpc_session_call": ts_client("jsonrpc", url, TOOL, ARGS, repeat, pid=pid),
            **{key: asyncio.run(python_figure(key, url, repeat, pid)) for key in PYTHON_CLIENTS},
            "ts_sdk_call": ts_client("sdk", url, TOOL, ARGS, repeat, pid=pid),
        }
        out["floor"], out["in_turns_with_floor"] = floors(http, url, pid, repeat)
    print(json.dumps(out))


if __name__ == "__main__":
    main(int(sys.argv[1]))
