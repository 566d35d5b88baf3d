"""Figures over HTTP, the way users call: the server in its own process (``officeworld up`` on a free
loopback port), the client here. ``/health`` is the baseline a call cannot beat."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

import httpx

PROBE = ("mail", "get_message", {"message_id": 1})


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory in MB (``/proc/PID/statm``): this process by default; a server's with every process it
    started (``up --workers N``: the supervisor, its workers and HAProxy)."""
    total = 0.0
    for each in ([pid] if pid == "self" else family(int(pid))):
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):   # a child that ended meanwhile
            total += _resident_mb(each)
    return total


def _resident_mb(pid: int | str) -> float:
    """One process's resident memory in MB (``/proc/PID/statm``)."""
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def rss_by_process(pid: int) -> dict[str, float]:
    """``rss_mb`` of a server, process by process (MB): ``server`` (one ``officeworld up``), or ``supervisor``, each
    worker by its tag (``w0``, ``w1``: its ``OFFICEWORLD_WORKER``) and ``haproxy`` (``up --workers N``); any other
    process below it by its name and pid. A process that ended meanwhile is left out."""
    return _by_process(pid, _resident_mb)


def cpu_by_process(pid: int) -> dict[str, float]:
    """``cpu_s`` of a server, process by process (CPU seconds so far), labelled as ``rss_by_process`` labels them."""
    return _by_process(pid, cpu_s)


def _by_process(pid: int, figure) -> dict[str, float]:
    found = family(pid)
    out: dict[str, float] = {}
    for each in found:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError, PermissionError):
            label = _label(each, pid, len(found) > 1)
            out[label] = out.get(label, 0.0) + figure(each)
    return out


def _label(pid: int, root: int, workers: bool) -> str:
    with open(f"/proc/{pid}/environ", "rb") as f:
        tags = [v.split(b"=", 1)[1] for v in f.read().split(b"\0") if v.startswith(b"OFFICEWORLD_WORKER=")]
    if tags and tags[-1]:
        return tags[-1].decode()
    if pid == root:
        return "supervisor" if workers else "server"
    name = Path(f"/proc/{pid}/comm").read_text().strip()
    return name if name == "haproxy" else f"{name}-{pid}"


def family(pid: int) -> list[int]:
    """``pid`` and every process below it (``/proc/PID/task/*/children``)."""
    found, todo = [], [pid]
    while todo:
        each = todo.pop()
        found.append(each)
        for task in Path(f"/proc/{each}/task").glob("*/children"):
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                todo.extend(int(child) for child in task.read_text().split())
    return found


def cpu_s(pid: int) -> float:
    """A process's CPU seconds so far, to the nanosecond: the sum of its threads' time on a CPU
    (``/proc/PID/task/*/schedstat``), else utime + stime from ``/proc/PID/stat`` (clock ticks, 10 ms)."""
    total, tasks = 0, Path(f"/proc/{pid}/task")
    try:
        for task in tasks.iterdir():
            with contextlib.suppress(FileNotFoundError):  # a thread that ended meanwhile
                total += int((task / "schedstat").read_text().split()[0])
        return total / 1e9
    except (FileNotFoundError, PermissionError, ValueError, IndexError):
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(samples_us: list[float]) -> dict:
    samples_us = sorted(samples_us)
    return {"median_us": round(samples_us[len(samples_us) // 2], 1),
            "p90_us": round(samples_us[int(len(samples_us) * 0.9) - 1], 1), "samples": len(samples_us)}


def times(fn: Callable[[], object], repeat: int, warmup: int = 10) -> dict:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1e6)
    return summary(samples)


class Served(NamedTuple):
    url: str
    pid: int


@contextlib.contextmanager
def server_process(world: str, timeout: float = 120.0, env: dict | None = None) -> Iterator[Served]:
    """``officeworld up`` for ``world`` in a child process on a free loopback port; its base URL and pid."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "simulator.cli", "up", "--world", world, "--host", "127.0.0.1",
               "--port", str(port), "--no-episode"]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env=env if env is not None else os.environ.copy())
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if child.poll() is not None:
                assert child.stderr is not None  # stderr=PIPE
                raise RuntimeError(f"the server exited: {child.stderr.read().decode()[-2000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start in time")
            time.sleep(0.05)
        yield Served(url, child.pid)
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


async def _mcp_call(url: str, repeat: int, session: bool = False) -> dict:
    """The official client's tool call: ``mcp.Client`` (it speaks the 2026 revision, one exchange per call), or with
    ``session`` a ``ClientSession`` over ``streamable_http_client`` (the 2025 handshake and a session, as the
    load run and most trainers' MCP clients speak; the gateway answers its calls itself, ``gateway/mcp_calls.py``)."""
    from mcp import Client, ClientSession
    from mcp.client.streamable_http import streamable_http_client

    if session:
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as in_session:
            await in_session.initialize()
            return await _tool_calls(in_session, repeat)
    async with Client(url) as client:
        return await _tool_calls(client, repeat)


async def _tool_calls(client, repeat: int) -> dict:
    app, name, args = PROBE
    for _ in range(10):
        await client.call_tool(f"{app}_{name}", args)
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = await client.call_tool(f"{app}_{name}", args)
        samples.append((time.perf_counter() - started) * 1e6)
    if result.is_error:
        raise RuntimeError(f"the MCP probe failed: {result.content}")
    return summary(samples)


def run(world: str, repeat: int) -> dict:
    """``/health``, a REST call and an MCP tool call (both official clients) on a server in its own process."""
    from simulator.bench import scale

    scale.control_token()  # the child server inherits it
    app, name, args = PROBE
    with server_process(world) as (url, _), httpx.Client(base_url=url) as http:
        created = http.post("/v1/episodes", json={"world": world}, headers=scale.control_headers())
        created.raise_for_status()
        episode = created.json()["id"]
        rest = f"/episodes/{episode}/api/{app}/{name}"
        if http.post(rest, json=args).status_code != 200:
            raise RuntimeError(f"the REST probe failed: {http.post(rest, json=args).text}")
        health = times(lambda: http.get("/health"), repeat)
        call = times(lambda: http.post(rest, json=args), repeat)
        mcp = asyncio.run(_mcp_call(f"{url}/episodes/{episode}/mcp", repeat))
        in_session = asyncio.run(_mcp_call(f"{url}/episodes/{episode}/mcp", repeat, session=True))
    return {"health": health, f"rest_{app}_{name}": call, f"mcp_{app}_{name}": mcp,
            f"mcp_session_{app}_{name}": in_session,
            "rest_above_health_us": round(call["median_us"] - health["median_us"], 1)}
