"""``officeworld bench --load``: many concurrent episodes against one server in its own process.

The server is ``officeworld up`` on a free loopback port (``served.server_process``); this
process is the clients. N episodes are created and each makes its first call into mail and the CRM
(which clones those apps' images; timed apart); then for a fixed time each episode has one client
calling in a loop over REST; then each opens one MCP session (raw JSON-RPC over streamable HTTP,
``initialize``; timed apart) and calls in a loop for the same time; then every episode is deleted. Reported per
surface: calls/s, p50/p99 latency, errors and dropped MCP sessions; and the server's resident
memory at start (world compiled, no episode), at its peak, and after every episode was deleted.
The run stops by itself (``seconds`` per surface). Nothing here asserts a figure.

Targets (issue 14, one server on a 2-core machine, 500 episodes): 500 calls/s over REST, 300 over
MCP, p99 under 200 ms, no dropped session, memory back within 10% of the start after deletion.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import secrets
import sys
import time
from typing import Any, Sequence

import httpx

from simulator.bench.served import server_process

# Without sniffio installed, httpcore tries to import it on every async request: a failed import
# searches the path each time (~0.5 ms of the client's CPU a call here). Marking it absent makes
# that import fail at once; httpcore then assumes asyncio, which this is.
if importlib.util.find_spec("sniffio") is None:
    # None in sys.modules is the import system's "not importable"; typeshed admits modules only.
    sys.modules.setdefault("sniffio", None)  # type: ignore[arg-type]

# What each client cycles through: reads and a write, over mail and the CRM.
CALLS = [("mail", "get_message", {"message_id": 1}), ("mail", "search", {"query": "renewal"}),
         ("crm", "get_opportunity", {"opportunity_id": 1}), ("mail", "star", {"message_ids": [1]})]
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _figures(samples: list[float], errors: int, seconds: float) -> dict:
    samples = sorted(samples)

    def at(q: float) -> float | None:
        return round(samples[min(len(samples) - 1, int(len(samples) * q))] * 1000, 1) if samples else None
    return {"calls": len(samples), "calls_per_s": round(len(samples) / seconds, 1), "p50_ms": at(0.5),
            "p99_ms": at(0.99), "errors": errors}


async def _open_mcp(http: httpx.AsyncClient, episode: str) -> dict | None:
    """Open an MCP session at the episode (``initialize``, then ``initialized``); its headers, or None."""
    url = f"/episodes/{episode}/mcp"
    try:
        opened = await http.post(url, headers=MCP_HEADERS, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        headers = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
        await http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    except (httpx.HTTPError, KeyError):
        return None
    return headers


class Dropped(Exception):
    """The client lost its MCP session (its connection failed, or the server no longer knows it)."""


async def _rest_call(http: httpx.AsyncClient, episode: str, i: int, app: str, op: str, args: dict) -> bool:
    try:
        return (await http.post(f"/episodes/{episode}/api/{app}/{op}", json=args)).status_code == 200
    except httpx.HTTPError:
        return False


async def _mcp_call(http: httpx.AsyncClient, session: tuple[str, dict], i: int, app: str, op: str, args: dict) -> bool:
    episode, headers = session
    try:
        response = await http.post(f"/episodes/{episode}/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": f"{app}_{op}", "arguments": args}})
    except httpx.HTTPError:
        raise Dropped from None   # the session's connection failed: a client would lose its session
    if response.status_code == 404:
        raise Dropped   # the server no longer knows the session
    return response.status_code == 200 and '"isError":true' not in response.text


async def _client(http: httpx.AsyncClient, target, until: float, out: dict, call) -> None:
    """One client: ``call`` over ``CALLS`` in turn at ``target`` (an episode id, or an MCP session) until time is up."""
    if isinstance(target, tuple) and target[1] is None:
        out["dropped"] += 1   # the session could not be opened
        return
    i = 0
    try:
        while time.monotonic() < until:
            app, op, args = CALLS[i % len(CALLS)]
            i += 1
            started = time.perf_counter()
            if await call(http, target, i, app, op, args):
                out["samples"].append(time.perf_counter() - started)
            else:
                out["errors"] += 1
    except Dropped:
        out["dropped"] += 1
        return
    if isinstance(target, tuple):   # the MCP session ends as a client ends it
        await _control(http.delete, f"/episodes/{target[0]}/mcp", headers=target[1])


async def _control(method, url: str, **kwargs) -> httpx.Response:
    """A control call, sent again once if a pooled connection the server had closed fails (its keep-alive
    ran out between phases): the episodes must all exist, and all be deleted, whatever the load."""
    try:
        return await method(url, **kwargs)
    except httpx.TransportError:
        return await method(url, **kwargs)


async def _phase(http: httpx.AsyncClient, call, targets: Sequence[object], seconds: float) -> dict:
    """A client per entry of ``targets`` (episode ids over REST, sessions over MCP) until time is up."""
    out: dict[str, Any] = {"samples": [], "errors": 0, "dropped": 0}
    started = time.monotonic()
    await asyncio.gather(*(_client(http, t, started + seconds, out, call) for t in targets))
    figures = _figures(out["samples"], out["errors"], time.monotonic() - started)
    return figures | ({"dropped_sessions": out["dropped"]} if call is _mcp_call else {})


async def _sampler(pid: int, peak: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], rss_mb(pid))
        await asyncio.sleep(0.1)


async def _settled(pid: int, start: float, limit_s: float = 15.0) -> float:
    """The server's resident memory once it has given back what the deletions freed (``simulator.store.memory``
    does so a couple of seconds after the last one, longer on a loaded machine): at least 5 s, then
    until it is back within 10% of ``start`` or has stopped falling for 3 s; at most ``limit_s``."""
    started, low, low_at = time.monotonic(), rss_mb(pid), time.monotonic()
    while time.monotonic() - started < limit_s:
        await asyncio.sleep(0.5)
        now = rss_mb(pid)
        if now < low * 0.99:
            low, low_at = now, time.monotonic()
        waited = time.monotonic() - started
        if waited >= 5.0 and (now <= start * 1.1 or time.monotonic() - low_at >= 3.0):
            break
    return rss_mb(pid)


async def _load(url: str, pid: int, token: str, world: str, episodes: int, seconds: float) -> dict:
    control = {"authorization": f"Bearer {token}"}
    limits = httpx.Limits(max_connections=episodes + 16, max_keepalive_connections=episodes + 16)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as http:
        # Warm the world (its first episode pays the clone of each app's image), then measure from there.
        first = (await http.post("/v1/episodes", json={"world": world}, headers=control)).json()["id"]
        for app, op, args in CALLS:
            await http.post(f"/episodes/{first}/api/{app}/{op}", json=args)
        await http.delete(f"/v1/episodes/{first}", headers=control)
        await asyncio.sleep(3.0)   # as after deletion below: the server has returned what it freed
        start = rss_mb(pid)
        peak, stop = [start], asyncio.Event()
        sampler = asyncio.create_task(_sampler(pid, peak, stop))
        gate = asyncio.Semaphore(32)

        async def create() -> str:
            async with gate:
                response = await _control(http.post, "/v1/episodes", json={"world": world}, headers=control)
                response.raise_for_status()
                return response.json()["id"]

        async def warm(episode: str) -> None:   # each app's first call in an episode clones its image
            async with gate:
                for app, op, args in CALLS[:3:2]:
                    await _control(http.post, f"/episodes/{episode}/api/{app}/{op}", json=args)

        async def open_session(episode: str) -> tuple[str, dict | None]:
            async with gate:
                return episode, await _open_mcp(http, episode)
        clock = time.monotonic()
        ids = await asyncio.gather(*(create() for _ in range(episodes)))
        setup = {"create_episodes_s": round(time.monotonic() - clock, 2)}
        clock = time.monotonic()
        await asyncio.gather(*(warm(e) for e in ids))
        setup["first_call_per_app_s"] = round(time.monotonic() - clock, 2)
        rest = await _phase(http, _rest_call, ids, seconds)
        clock = time.monotonic()
        sessions = await asyncio.gather(*(open_session(e) for e in ids))
        setup["open_mcp_sessions_s"] = round(time.monotonic() - clock, 2)
        mcp = await _phase(http, _mcp_call, sessions, seconds)
        loaded = rss_mb(pid)
    # The N clients are gone (their connections closed), as after a training run; then every episode goes.
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        async def delete(episode: str) -> None:
            async with gate:
                await _control(http.delete, f"/v1/episodes/{episode}", headers=control)
        await asyncio.gather(*(delete(e) for e in ids))
        left = (await http.get("/health")).json()["episodes"]
        stop.set()
        await sampler
        after = await _settled(pid, start)
    return {"episodes": episodes, "seconds_per_surface": seconds, "calls": [f"{a}.{o}" for a, o, _ in CALLS],
            "setup": setup, "rest": rest, "mcp": mcp, "episodes_left": left,
            "memory_mb": {"start": round(start, 1), "peak": round(peak[0], 1), "loaded": round(loaded, 1),
                          "after_delete": round(after, 1),
                          "after_vs_start_pct": round((after - start) / start * 100, 1)},
            "targets_met": {"rest_500_per_s": rest["calls_per_s"] >= 500, "mcp_300_per_s": mcp["calls_per_s"] >= 300,
                            "p99_under_200ms": all((s["p99_ms"] or 1e9) < 200 for s in (rest, mcp)),
                            "no_dropped_session": mcp["dropped_sessions"] == 0,
                            "memory_within_10pct": after <= start * 1.1}}


def run(world: str = "acme", episodes: int = 500, seconds: float = 10.0) -> dict:
    """The load run; the server is started and stopped here."""
    token = "ow_bench_" + secrets.token_hex(8)
    env = {**os.environ, "OFFICEWORLD_TOKEN": token, "OFFICEWORLD_IDLE_TIMEOUT": "0"}
    env.pop("OFFICEWORLD_TRAJECTORY_DIR", None)   # measured without trajectory files
    with server_process(world, env=env) as server:
        result = asyncio.run(_load(server.url, server.pid, token, world, episodes, seconds))
    return {"world": world, **result}
