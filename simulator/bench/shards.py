"""``officeworld bench --load --workers N``: saturation over REST and MCP with one server, then with
``officeworld up --workers N`` (N gateway processes behind HAProxy), and the ratio of the two.

Each setup gets the same clients as ``--load``'s saturation runs (``simulator.bench.load``: one lean
keep-alive connection per episode, each episode in a tight loop) for the same seconds: first over REST,
then over MCP (a session per episode). One server is ``officeworld up`` on a loopback port, no router;
N workers are reached through HAProxy, which sends each episode's calls to the worker holding it (the
episodes were spread over the workers as they were created). The clients run in ``clients`` processes (default
1: this one), each with its share of the episodes, their runs started together; their figures add up (calls/s,
calls, errors, client CPU) or take the worst (p99). On a machine with few cores the clients compete with the
workers for CPU (``client_cpu_pct`` says how much they used); one client process saturates near one core's
worth of calls, so on a many-core machine give it several. The ratio approaches N only with N cores free for
the workers, and more for the clients and the router: ``server_cpu_ms_per_call`` (by process: ``server``, or each
worker, ``haproxy`` and the ``supervisor``) and ``client_cpu_ms_per_call`` say what each call cost where, so that
on a machine whose cores all of them share, the ratio the costs allow can be read off: with everything saturated,
2 cores over the sum of the costs per call, against one core over the one server's. The run stops by itself;
nothing here asserts a figure.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from typing import Iterator

import httpx

from simulator.bench.load import Agent, each, measure, say
from simulator.bench.served import Served, cpu_by_process, server_process
from simulator.bench.wire import Connection, on_uvloop
from simulator.store.episodes import worker_of

KEPT = ("achieved_per_s", "calls", "p50_ms", "p99_ms", "errors", "dropped", "client_cpu_pct", "client_cpu_ms_per_call",
        "server_cpu_ms_per_call")
# What each client process gives back: the server's CPU as seconds spent during its runs, made per call once the
# processes' calls are added up (``_combined``).
_PER_CLIENT = tuple(k for k in KEPT if k != "server_cpu_ms_per_call") + ("server_cpu_s",)


@contextlib.contextmanager
def workers_process(world: str, workers: int, env: dict, timeout: float = 300.0) -> Iterator[Served]:
    """``officeworld up --workers N`` in a child process on a free loopback port (HAProxy's); its URL and pid."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = tempfile.TemporaryFile()
    child = subprocess.Popen([sys.executable, "-m", "simulator.cli", "up", "--workers", str(workers), "--world", world,
                              "--host", "127.0.0.1", "--port", str(port), "--no-episode"],
                             stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while not _all_up(url, workers):
            if child.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"up --workers {workers} did not start: {log.read().decode()[-2000:]}")
            time.sleep(0.2)
        yield Served(url, child.pid)
    finally:
        child.terminate()   # the supervisor stops its workers and HAProxy
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        log.close()


def _all_up(url: str, workers: int) -> bool:
    try:
        health = httpx.get(f"{url}/health", timeout=5).json()
    except (httpx.HTTPError, ValueError):
        return False
    return health.get("status") == "ok" and len(health.get("workers", {})) == workers


async def _saturate(url: str, pid: int, token: str, world: str, episodes: int, seconds: float,
                    together=None) -> dict:
    """One client process's runs; ``together`` (a barrier shared by the client processes) starts each run in all
    of them at once."""
    def start() -> None:
        if together is not None:
            together.wait(timeout=300)

    pool = [Connection.to(url, {"authorization": f"Bearer {token}"}) for _ in range(16)]

    async def create(_: int, conn: Connection) -> Agent:
        response = await conn.request("POST", "/v1/episodes", {"world": world})
        if response.status != 201:
            raise RuntimeError(f"creating an episode answered {response.status}: {response.body[:300]!r}")
        return Agent(url, response.json()["id"])

    agents = await each(range(episodes), create, pool)
    start()
    await measure(agents, Agent.rest, min(seconds, 3.0), pid, None)   # warm: first calls clone each app's image
    start()
    rest = await _measured(agents, Agent.rest, seconds, pid)
    opened = await each(agents, lambda agent, _: agent.open_mcp())
    live = [a for a, ok in zip(agents, opened) if ok]
    start()
    mcp = await _measured(live, Agent.mcp, seconds, pid)
    mcp["dropped"] += len(agents) - len(live)
    await each(live, lambda agent, _: agent.close_mcp())
    for agent in agents:
        agent.conn.close()
    await each(agents, lambda agent, conn: conn.request("DELETE", f"/v1/episodes/{agent.episode}"), pool)
    for conn in pool:
        conn.close()
    spread: dict[str, int] = {}
    for agent in agents:
        tag = worker_of(agent.episode) or "w0"
        spread[tag] = spread.get(tag, 0) + 1
    return {"rest": {k: rest[k] for k in _PER_CLIENT}, "mcp": {k: mcp[k] for k in _PER_CLIENT},
            "episodes_per_worker": spread}


async def _measured(agents: list[Agent], call, seconds: float, pid: int) -> dict:
    """``measure`` in a tight loop, with the CPU seconds each process of the server spent meanwhile."""
    before = cpu_by_process(pid)
    figures = await measure(agents, call, seconds, pid, None)
    after = cpu_by_process(pid)
    return figures | {"server_cpu_s": {label: after[label] - before.get(label, 0.0) for label in after}}


def _client(args: tuple[str, int, str, str, int, float], together, results) -> None:
    results.put(on_uvloop(_saturate(*args, together=together)))


def _saturate_with(clients: int, url: str, pid: int, token: str, world: str, episodes: int, seconds: float) -> dict:
    """``_saturate`` from ``clients`` processes at once, their figures put together."""
    if clients <= 1:
        return _combined([on_uvloop(_saturate(url, pid, token, world, episodes, seconds))])
    spawn = multiprocessing.get_context("spawn")
    together, results = spawn.Barrier(clients), spawn.Queue()
    shares = [episodes // clients + (i < episodes % clients) for i in range(clients)]
    children = [spawn.Process(target=_client, args=((url, pid, token, world, share, seconds), together, results))
                for share in shares]
    for child in children:
        child.start()
    parts = [results.get(timeout=600 + 4 * seconds) for _ in children]
    for child in children:
        child.join(timeout=30)
    return _combined(parts)


def _combined(parts: list[dict]) -> dict:
    """The client processes' figures put together: counts add up, p50 and p99 are the worst process's, CPU per call
    is over every process's calls (the server's CPU is what it spent during the runs, which started together)."""
    out: dict = {"clients": len(parts)}
    for surface in ("rest", "mcp"):
        each = [part[surface] for part in parts]
        out[surface] = {key: sum(figures[key] for figures in each)
                        for key in ("achieved_per_s", "calls", "errors", "dropped", "client_cpu_pct")}
        calls = max(out[surface]["calls"], 1)
        out[surface]["achieved_per_s"] = round(out[surface]["achieved_per_s"], 1)
        out[surface] |= {"p50_ms": max(f["p50_ms"] for f in each), "p99_ms": max(f["p99_ms"] for f in each)}
        out[surface]["client_cpu_ms_per_call"] = round(sum(f["client_cpu_ms_per_call"] * f["calls"] for f in each)
                                                       / calls, 3)
        spent = [f["server_cpu_s"] for f in each]
        out[surface]["server_cpu_ms_per_call"] = {
            label: round(sum(s.get(label, 0.0) for s in spent) / len(spent) / calls * 1000, 3)
            for label in sorted(set().union(*spent))}
    spread: dict[str, int] = {}
    for part in parts:
        for tag, count in part["episodes_per_worker"].items():
            spread[tag] = spread.get(tag, 0) + count
    return out | {"episodes_per_worker": spread}


def run(world: str = "acme", workers: int | list[int] = 2, episodes: int = 100, seconds: float = 10.0,
        clients: int = 1) -> dict:
    """Saturation with one server and with ``workers`` workers behind HAProxy (or each count of a list, for a
    scaling table), and the ratio to one server per surface. With ``clients`` > 1 the clients run in that many
    processes (p50 and p99 are then the worst process's)."""
    counts = [workers] if isinstance(workers, int) else workers
    token = "ow_bench_" + secrets.token_hex(8)
    env = {**os.environ, "OFFICEWORLD_TOKEN": token, "OFFICEWORLD_IDLE_TIMEOUT": "0"}
    env.pop("OFFICEWORLD_TRAJECTORY_DIR", None)   # measured without trajectory files, as --load is
    out: dict = {"episodes": episodes, "seconds_per_run": seconds, "client_processes": clients, "cores": os.cpu_count(),
                 "load_average_at_start": [round(x, 1) for x in os.getloadavg()]}
    say(f"saturation with one server: {episodes} episodes, {seconds:g} s over REST then MCP")
    with server_process(world, env=env) as server:
        out["workers_1"] = _saturate_with(clients, server.url, server.pid, token, world, episodes, seconds)
    for count in counts:
        say(f"saturation with {count} workers behind HAProxy: the same")
        with workers_process(world, count, env) as served:
            out[f"workers_{count}"] = _saturate_with(clients, served.url, served.pid, token, world, episodes, seconds)
    ratios = {count: {surface: round(out[f"workers_{count}"][surface]["achieved_per_s"]
                                     / max(out["workers_1"][surface]["achieved_per_s"], 0.1), 2)
                      for surface in ("rest", "mcp")} for count in counts}
    return out | ({"ratio": ratios[counts[0]]} if isinstance(workers, int) else {"ratios": ratios})


if __name__ == "__main__":   # a scaling table on a many-core machine: python -m simulator.bench.shards 2,4,8 --clients 6
    import argparse
    import json

    parser = argparse.ArgumentParser(description="saturation with one server and with N workers behind HAProxy")
    parser.add_argument("workers", help="worker counts, comma-separated (e.g. 2,4,8)")
    parser.add_argument("--world", default="acme")
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=1)
    options = parser.parse_args()
    print(json.dumps(run(options.world, [int(n) for n in options.workers.split(",")], options.episodes,
                         options.seconds, options.clients), indent=2))
