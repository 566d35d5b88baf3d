"""Clients for the real surfaces, shared by tests: the control API, the MCP client and ``ow``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
from mcp import Client

ROOT = Path(__file__).parents[1]
TOKEN = "ow_test_control_token"  # conftest puts it in OFFICEWORLD_TOKEN, so every server the tests start takes it
CONTROL = {"Authorization": f"Bearer {TOKEN}"}

# A raw MCP session over streamable HTTP, for probes the official client would not send.
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
MCP_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}


def open_session(http: httpx.Client, url: str) -> dict:
    """Initialise a raw MCP session at ``url``; the headers that carry its session id."""
    response = http.post(url, json=MCP_INIT, headers=MCP_HEADERS)
    assert response.status_code == 200, response.text
    headers = {**MCP_HEADERS, "mcp-session-id": response.headers["mcp-session-id"]}
    http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return headers


def call(api, episode: dict, app: str, op: str, **arguments):
    """Call an operation over REST through a TestClient; returns the response (status and JSON)."""
    return api.post(f"/episodes/{episode['id']}/api/{app}/{op}", json=arguments)


def new_episode(base: str, world_dir, actor: str | None = None) -> dict:
    """Create an episode over the control API at ``base``; fails the test on anything but 201."""
    body = {"world": str(world_dir), **({"as": actor} if actor else {})}
    response = httpx.post(f"{base}/v1/episodes", json=body, headers=CONTROL, timeout=30)
    assert response.status_code == 201, response.text
    return response.json()


async def mcp_session(url: str, calls: list[tuple[str, dict]]):
    """List the tools at ``url`` and make ``calls`` in one session; returns (tools, results)."""
    async with Client(url) as client:
        tools = (await client.list_tools()).tools
        results = [await client.call_tool(name, args) for name, args in calls]
        return tools, results


def run_ow(base: str, episode_id: str, *args: str) -> subprocess.CompletedProcess:
    """Run the agent CLI as a subprocess acting in ``episode_id`` on the server at ``base``."""
    env = {**os.environ, "OW_URL": base, "OW_EPISODE": episode_id}
    return subprocess.run([sys.executable, "-m", "simulator.agent.ow", *args], capture_output=True, text=True,
                          env=env, timeout=60, cwd=ROOT)
