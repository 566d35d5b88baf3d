"""What every probe here shares (standard library only: each runs in its own venv): timing a call, a
server's CPU per call read from /proc, the TypeScript client (``ts_client.cjs``) and the bare JSON-RPC
``tools/call`` that both servers answer. Used so that the same client measures both servers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Awaitable, Callable, Mapping

HERE = Path(__file__).parent
WARMUP = 10


def summary(samples: list[float], what: str) -> dict:
    samples = sorted(samples)
    return {"median_us": round(samples[len(samples) // 2], 1),
            "p90_us": round(samples[int(len(samples) * 0.9) - 1], 1), "samples": len(samples), "measured": what}


def server_cpu_s(pid: int) -> float:
    """A process's CPU seconds so far: its threads' time on a CPU to the nanosecond (/proc/PID/task/*/schedstat),
    else utime + stime (/proc/PID/stat, in clock ticks). As ``simulator.bench.served.cpu_s`` (not importable
    from a peer's venv)."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except FileNotFoundError:  # a thread that ended meanwhile
                pass
        return total / 1e9
    except (FileNotFoundError, PermissionError, ValueError, IndexError):
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def times(fn: Callable[[], object], repeat: int, what: str, pid: int | None = None) -> dict:
    """Wall µs per call; with ``pid``, also that server's CPU during each call (the client waits for the
    answer, so it is the call's), as a median."""
    return times_in_turns({"": fn}, repeat, {"": what}, {"": pid})[""]


async def atimes(fn: Callable[[], Awaitable[object]], repeat: int, what: str, pid: int | None = None) -> dict:
    """``times`` for an awaited call, with this process's CPU per call too (``client_cpu_us_per_call``)."""
    return (await atimes_in_turns({"": fn}, repeat, {"": what}, {"": pid}))[""]


def times_in_turns(fns: dict[str, Callable[[], object]], repeat: int, what: dict[str, str],
                   pids: Mapping[str, int | None]) -> dict[str, dict]:
    """``times`` for several calls taking turns (one of each, round after round): each under the same load."""
    for fn in fns.values():
        for _ in range(WARMUP):
            fn()
    samples: dict[str, list[float]] = {k: [] for k in fns}
    cpu: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            pid = pids.get(k)
            before = server_cpu_s(pid) if pid else 0.0
            started = time.perf_counter()
            fn()
            samples[k].append((time.perf_counter() - started) * 1e6)
            if pid:
                cpu[k].append((server_cpu_s(pid) - before) * 1e6)
    return {k: _with_cpu(summary(samples[k], what[k]), cpu[k]) for k in fns}


async def atimes_in_turns(fns: dict[str, Callable[[], Awaitable[object]]], repeat: int, what: dict[str, str],
                          pids: Mapping[str, int | None]) -> dict[str, dict]:
    """``atimes`` for several calls taking turns, as ``times_in_turns``; with this process's CPU per call too."""
    for fn in fns.values():
        for _ in range(WARMUP):
            await fn()
    samples: dict[str, list[float]] = {k: [] for k in fns}
    cpu: dict[str, list[float]] = {k: [] for k in fns}
    mine: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            pid = pids.get(k)
            before, own = server_cpu_s(pid) if pid else 0.0, time.process_time()
            started = time.perf_counter()
            await fn()
            samples[k].append((time.perf_counter() - started) * 1e6)
            mine[k].append((time.process_time() - own) * 1e6)
            if pid:
                cpu[k].append((server_cpu_s(pid) - before) * 1e6)
    out = {k: _with_cpu(summary(samples[k], what[k]), cpu[k]) for k in fns}
    for k, figure in out.items():
        figure["client_cpu_us_per_call"] = round(sorted(mine[k])[len(mine[k]) // 2], 1)
    return out


def _with_cpu(figure: dict, cpu: list[float]) -> dict:
    if cpu:
        figure["server_cpu_us_per_call"] = round(sorted(cpu)[len(cpu) // 2], 1)
    return figure


def ts_client(mode: str, url: str, tool: str, args: dict, repeat: int, *flavour: str, pid: int | None = None) -> dict:
    """The TypeScript client's figure (``mode``: "sdk" or "jsonrpc"), or ``{"error": ...}`` saying why not."""
    node = shutil.which("node")
    if node is None:
        return {"error": "node is not installed", "measured": f"{mode} TypeScript client"}
    cpu = server_cpu_s(pid) if pid else 0.0
    done = subprocess.run([node, str(HERE / "ts_client.cjs"), mode, url, tool, json.dumps(args), str(repeat), *flavour],
                          capture_output=True, text=True, timeout=300)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr or done.stdout)[-500:], "measured": f"{mode} TypeScript client"}
    out = json.loads(lines[-1])
    if pid and "error" not in out:  # the handshake and warm-up are a few calls in REPEAT + 10: an upper bound
        out["server_cpu_us_per_call_at_most"] = round((server_cpu_s(pid) - cpu) * 1e6 / (repeat + WARMUP), 1)
    return out


def ts_clients_in_turns(mode: str, urls: dict[str, str], tool: str, args: dict, repeat: int,
                        pids: dict[str, int]) -> dict[str, dict]:
    """The TypeScript client before several servers, its calls taking turns (``ts_client.cjs`` with URLs
    comma-separated): a figure per server, each with that server's CPU per call (an upper bound, as ``ts_client``)."""
    names = list(urls)
    joined = ",".join(urls[name] for name in names)
    before = {name: server_cpu_s(pids[name]) for name in names}
    out = ts_client(mode, joined, tool, args, repeat)
    if "error" in out:
        return {name: out for name in names}
    figures = dict(zip(names, out["runs"]))
    for name, figure in figures.items():
        figure["server_cpu_us_per_call_at_most"] = round(
            (server_cpu_s(pids[name]) - before[name]) * 1e6 / (repeat + WARMUP), 1)
    return figures


def jsonrpc_call(tool: str, args: dict, request_id: int = 1, **extra) -> bytes:
    """A JSON-RPC ``tools/call``, encoded once (``extra``: more params, OpenEnv's ``session_id``)."""
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": tool, "arguments": args, **extra}}).encode()
