"""Run with officeworld's interpreter (by ``run.py``): officeworld's MCP tool call measured with the same
clients that measure OpenEnv's server in ``openenv_probe.py``, so the pair compares servers, not clients.

``officeworld up`` on acme in its own process, one episode, and at ``/episodes/{id}/mcp``: the official
Python SDK's ``ClientSession`` over streamable HTTP, the official TypeScript SDK's ``Client``
(``ts_client.cjs``), and a bare JSON-RPC ``tools/call`` in a session (the MCP handshake's
``Mcp-Session-Id``) from httpx and from Node's fetch; each with the server's CPU per call from /proc.
``python bench/peers/ours_probe.py REPEAT``; prints JSON. The tool is ``mail_get_message`` on a real
mailbox (a recorded step), where OpenEnv's is a stub reading a dict.

Then each client's own floor (``floor``): the same clients, and the SDK's default ``mcp.Client`` (the 2026
revision), before ``canned.py``, an endpoint that answers each repeated ``tools/call`` from memory with the
bytes officeworld's server answered it with (handshake, ``tools/list`` and the first call are the real
server's). What a client takes there is the least any server could give it on this machine, and its own
CPU per call is measured in this process (``client_cpu_us_per_call``; the Node client's is not)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
from pathlib import Path

import httpx

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

from common import WARMUP, atimes, jsonrpc_call, times, ts_client  # noqa: E402

from simulator.bench import scale, served  # noqa: E402

TOOL, ARGS = "mail_get_message", {"message_id": 1}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


async def official_client(url: str, repeat: int, pid: int) -> dict:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool(TOOL, ARGS)
        if result.is_error:
            raise SystemExit(f"ours_probe: the official client's call failed: {result.content}")
        return await atimes(lambda: session.call_tool(TOOL, ARGS), repeat,
                            "official Python SDK ClientSession over streamable HTTP, in the session its "
                            "initialize made", pid)


async def client_2026(url: str, repeat: int, pid: int) -> dict:
    """The SDK's default client, ``mcp.Client`` (the 2026 revision: no session, one exchange per call)."""
    from mcp import Client

    async with Client(url) as client:
        result = await client.call_tool(TOOL, ARGS)
        if result.is_error:
            raise SystemExit(f"ours_probe: mcp.Client's call failed: {result.content}")
        return await atimes(lambda: client.call_tool(TOOL, ARGS), repeat,
                            "official Python SDK mcp.Client (its default, 2026 revision) over streamable HTTP", pid)


async def client_cpu(figure, repeat: int) -> dict:
    """``figure`` (a coroutine of ``atimes``) with this process's CPU per call beside it (warm-up included)."""
    started = time.process_time()
    out = await figure
    out["client_cpu_us_per_call"] = round((time.process_time() - started) * 1e6 / (repeat + WARMUP), 1)
    return out


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


def floors(http: httpx.Client, url: str, repeat: int) -> dict:
    """Each client before ``canned.py`` (see the module): its own cost, with no server work behind it."""
    with canned(url) as (floor, pid):
        headers, call = handshake(http, floor), jsonrpc_call(TOOL, ARGS)
        return {
            "jsonrpc_session_call": times(lambda: http.post(floor, content=call, headers=headers), repeat,
                                          "httpx: a JSON-RPC tools/call in a session, answered from memory", pid),
            "ts_jsonrpc_session_call": ts_client("jsonrpc", floor, TOOL, ARGS, repeat, pid=pid),
            "official_python_client_call": asyncio.run(client_cpu(official_client(floor, repeat, pid), repeat)),
            "official_python_client_2026_call": asyncio.run(client_cpu(client_2026(floor, repeat, pid), repeat)),
            "ts_sdk_call": ts_client("sdk", floor, TOOL, ARGS, repeat, pid=pid),
        }


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
            "official_python_client_call": asyncio.run(client_cpu(official_client(url, repeat, pid), repeat)),
            "official_python_client_2026_call": asyncio.run(client_cpu(client_2026(url, repeat, pid), repeat)),
            "ts_sdk_call": ts_client("sdk", url, TOOL, ARGS, repeat, pid=pid),
        }
        out["floor"] = floors(http, url, repeat)
    print(json.dumps(out))


if __name__ == "__main__":
    main(int(sys.argv[1]))
