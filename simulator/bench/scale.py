"""Figures over HTTP that ``served`` leaves out, the server in its own process as users run it:
a tool call through the control plane (``POST /v1/episodes/{id}/call``), and many live episodes in one
server (its memory, and a call's latency while they all live). Nothing here asserts a timing; every
loop is bounded (a count and a deadline) and deletes what it made.

``world_size`` times a world's size end to end (generate, compile, a server ready on it), each stage
in CPU and wall seconds, in a temporary folder and cache: ``python -m simulator.bench.scale --size xl``.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Mapping, TypeVar
from unittest import mock

import httpx

from simulator.bench import served
from simulator.gateway.auth import TOKEN_ENV

PROBE = ("mail", "get_message", {"message_id": 1})
TOUCH = ("mail", "star", {"message_ids": [1]})  # a write: the episode's mail database is cloned and changed
T = TypeVar("T")


def control_token() -> str:
    """The token the benchmark's servers take (the environment's, else one made for this run)."""
    return os.environ.setdefault(TOKEN_ENV, "ow_bench_" + secrets.token_hex(8))


def control_headers() -> dict:
    return {"authorization": f"Bearer {control_token()}"}


def _pid_listening_on(url: str) -> int | None:
    """The pid of the ``officeworld up`` child serving ``url`` (found by its ``--port`` argument)."""
    port = url.rsplit(":", 1)[1]
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"up" in argv and b"--port" in argv and argv[argv.index(b"--port") + 1:][:1] == [port.encode()]:
            return int(proc.name)
    return None


def _rss_mb(pid: int | None) -> float | None:
    return None if pid is None else round(served.rss_mb(pid), 1)


def control_call(http: httpx.Client, world: str, repeat: int, pid: int | None = None) -> dict:
    """A direct tool call through the control plane, next to ``/health`` and the same operation over REST
    on the same server, taking turns call by call (``_interleaved``); with ``pid``, each one's server CPU
    per call (``served.cpu_s``, a median). Every request carries the same headers
    (the client's, the token among them), so the client's work differs only by the bytes each one sends."""
    created = http.post("/v1/episodes", json={"world": world}, headers=control_headers())
    created.raise_for_status()
    episode = created.json()["id"]
    app, name, args = PROBE
    body, path, rest = {"tool": f"{app}_{name}", "arguments": args}, f"/v1/episodes/{episode}/call", \
        f"/episodes/{episode}/api/{app}/{name}"
    answer = http.post(path, json=body, headers=control_headers())
    if answer.status_code != 200 or answer.json().get("error"):
        raise RuntimeError(f"the control probe failed: {answer.text[:500]}")
    with httpx.Client(base_url=str(http.base_url), headers=control_headers()) as client:
        calls = {"health": lambda: client.get("/health"), f"rest_{app}_{name}": lambda: client.post(rest, json=args),
                 f"control_call_{app}_{name}": lambda: client.post(path, json=body)}
        out = _interleaved(calls, repeat, pid)
    http.delete(f"/v1/episodes/{episode}", headers=control_headers())
    health, call, by_rest = out["health"], out[f"control_call_{app}_{name}"], out[f"rest_{app}_{name}"]
    out["control_above_health_us"] = round(call["median_us"] - health["median_us"], 1)
    out["control_above_rest_us"] = round(call["median_us"] - by_rest["median_us"], 1)
    if pid is not None:
        out["server_cpu_control_above_rest_us"] = round(
            call["server_cpu_us_per_call"] - by_rest["server_cpu_us_per_call"], 1)
    return out


def _interleaved(calls: Mapping[str, Callable[[], object]], repeat: int, pid: int | None) -> dict:
    """Each call timed ``repeat`` times, taking turns call by call (so a busy moment of a shared machine
    falls on all alike); with ``pid``, the server's CPU during each call too (the client waits for the
    answer, so what the server spent meanwhile is that call's), as a median per call."""
    wall: dict[str, list[float]] = {key: [] for key in calls}
    cpu: dict[str, list[float]] = {key: [] for key in calls}
    for _ in range(10):  # warm-up: the connection, the caches
        for call in calls.values():
            call()
    for _ in range(repeat):
        for key, call in calls.items():
            before = served.cpu_s(pid) if pid is not None else 0.0
            started = time.perf_counter()
            call()
            wall[key].append((time.perf_counter() - started) * 1e6)
            if pid is not None:
                cpu[key].append((served.cpu_s(pid) - before) * 1e6)
    out = {}
    for key, taken in wall.items():
        out[key] = served.summary(taken)
        if pid is not None:
            out[key]["server_cpu_us_per_call"] = served.summary(cpu[key])["median_us"]
    return out


def live_episodes(http: httpx.Client, url: str, world: str, count: int, repeat: int,
                  deadline_s: float = 180.0) -> dict:
    """``count`` episodes live in one server, each touched (one write); memory and a REST call's
    latency among them. Stops making episodes at ``deadline_s`` and says how many it reached."""
    headers, pid = control_headers(), _pid_listening_on(url)
    app, name, args = PROBE
    ids: list[str] = []
    rss_before, started = _rss_mb(pid), time.monotonic()
    try:
        while len(ids) < count and time.monotonic() - started < deadline_s:
            created = http.post("/v1/episodes", json={"world": world}, headers=headers)
            created.raise_for_status()
            ids.append(created.json()["id"])
            touch_app, touch_name, touch_args = TOUCH
            http.post(f"/episodes/{ids[-1]}/api/{touch_app}/{touch_name}", json=touch_args).raise_for_status()
        made_s = time.monotonic() - started
        rss_after = _rss_mb(pid)
        turn = iter(range(10**9))
        call = served.times(
            lambda: http.post(f"/episodes/{ids[next(turn) % len(ids)]}/api/{app}/{name}", json=args), repeat)
    finally:
        for episode in ids:
            http.delete(f"/v1/episodes/{episode}", headers=headers)
    grew = None if rss_before is None or rss_after is None else round(rss_after - rss_before, 1)
    return {"asked": count, "live_episodes": len(ids), "create_and_touch_s": round(made_s, 1),
            "server_rss_mb_before": rss_before, "server_rss_mb_after": rss_after, "server_rss_mb_grew": grew,
            "mb_per_episode": round(grew / len(ids), 3) if grew is not None and ids else None,
            f"rest_{app}_{name}_among_them": call}


def run(world: str, repeat: int, live: int = 1000) -> dict:
    """Both figures on one server in its own process; ``live=0`` leaves the live-episodes figure out."""
    control_token()  # the child server inherits it
    with served.server_process(world) as (url, pid), httpx.Client(base_url=url) as http:
        out = {"control_plane": control_call(http, world, repeat, pid)}
        if live > 0:
            out["live_episodes"] = live_episodes(http, url, world, live, repeat)
    return out


def _timed(fn: Callable[[], T]) -> tuple[T, dict]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return result, {"cpu_s": round(time.process_time() - cpu, 2), "wall_s": round(time.perf_counter() - wall, 2)}


def _child_cpu_s(pid: int) -> float:
    """A process's CPU seconds, with those of the children it has waited for (``up`` stats a world's files in one)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return round(sum(int(n) for n in fields[11:15]) / os.sysconf("SC_CLK_TCK"), 2)  # utime, stime, cutime, cstime


def world_size(size: str = "xl", seed: int = 1, starts: int = 2) -> dict:
    """Generate a world of ``size`` (a temporary folder), compile it as a server does on first use (the
    world's digest, loading and checking it, each app's image built and written to a temporary cache),
    make the compiled world ready in a fresh process ``starts`` times (``world_ready``) and start
    ``officeworld up`` on it ``starts`` times: each stage's CPU and wall seconds (the server's CPU read
    from /proc when it first answers)."""
    from simulator.store.compile import compile_world
    from simulator.store.registry import APPS, world_sections
    from worlds import content_hash, load_world
    from worlds.generate import generate

    with tempfile.TemporaryDirectory(prefix="ow-size-") as scratch:
        root, cache = Path(scratch) / f"generated-{size}", Path(scratch) / "cache"
        # The digest's memo goes to the temporary cache, for the server started here too.
        with mock.patch.dict(os.environ, {"OFFICEWORLD_CACHE_DIR": str(cache)}):
            _, generated = _timed(lambda: generate(seed, size, root, sections=world_sections()))
            files = sum(len(names) for _, _, names in os.walk(root))
            digest, hashed = _timed(lambda: content_hash(root))
            world, loaded = _timed(lambda: load_world(root, world_sections(), digest))
            built = {name: _timed(lambda: compile_world(world, {name: app}, cache))[1] for name, app in APPS.items()}
            made = [_world_ready_once(str(root)) for _ in range(starts)]
            ready = [_ready(str(root)) for _ in range(starts)]
    stages = [hashed, loaded, *built.values()]
    return {"size": size, "seed": seed, "files": files, "generate": generated,
            "compile": {"cpu_s": round(sum(s["cpu_s"] for s in stages), 2),
                        "wall_s": round(sum(s["wall_s"] for s in stages), 2),
                        "digest": hashed, "load_world": loaded, "build": built},
            "world_ready": made, "server_ready": ready}


def _ready(world: str) -> dict:
    """``officeworld up`` on a compiled world: seconds until ``/health`` answers, and its CPU by then."""
    started = time.perf_counter()
    with served.server_process(world) as (_, pid):
        return {"wall_s": round(time.perf_counter() - started, 2), "cpu_s": _child_cpu_s(pid)}


# The world made ready in a fresh process once its imports are done: what ``officeworld up`` spends on the
# world itself (the freshness check of its files, its kept ``world.yaml``, its cached images opened).
_WORLD_READY = """
import json, sys, time
from simulator.store.episodes import EpisodeStore
store = EpisodeStore()
cpu, wall = time.process_time(), time.perf_counter()
store.world(sys.argv[1])
print(json.dumps({"wall_s": round(time.perf_counter() - wall, 3), "cpu_s": round(time.process_time() - cpu, 3)}))
"""


def _world_ready_once(world: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _WORLD_READY, world], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"making the world ready failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def world_ready(world: str, starts: int = 3) -> dict:
    """``store.world(world)`` timed in a fresh process after its imports, ``starts`` times (the first run before
    them compiles the world when its images are not in the cache yet): each, and the best."""
    _world_ready_once(world)
    runs = [_world_ready_once(world) for _ in range(starts)]
    return {"best_wall_s": min(r["wall_s"] for r in runs), "best_cpu_s": min(r["cpu_s"] for r in runs), "starts": runs}


def server_ready(world: str, starts: int = 3) -> dict:
    """``officeworld up`` started ``starts`` times on ``world`` (compiled by the first start when it is not
    yet): each start after the first, and the best of them (the machine may be shared); and how many of the
    project's modules each start compiled from source (``modules_without_bytecode``)."""
    _ready(world)   # compiles the world when its images are not in the cache yet
    runs = [_ready(world) for _ in range(starts)]
    return {"best_wall_s": min(r["wall_s"] for r in runs), "best_cpu_s": min(r["cpu_s"] for r in runs), "starts": runs,
            "modules_without_bytecode": modules_without_bytecode()}


_PACKAGES = ("apps", "scenarios", "simulator", "sandbox", "tasks", "trainers", "worlds")   # pyproject.toml's packages


def modules_without_bytecode(root: Path | None = None) -> int:
    """The project's modules a start may compile from source every time: where PYTHONDONTWRITEBYTECODE keeps
    Python from writing their ``.pyc``, those without one that matches the source (0 where it may write: the
    first start writes them). A user's installed package has them all; ``dev.sh setup`` and the image compile
    them, so a figure with this above 0 is slower than what a user gets (~1 ms a module)."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return 0
    root = root or Path(__file__).resolve().parents[2]
    return sum(not _fresh_bytecode(source) for package in _PACKAGES for source in (root / package).rglob("*.py"))


def _fresh_bytecode(source: Path) -> bool:
    """Whether ``source`` has a ``.pyc`` this interpreter reads instead of compiling it: its magic number, and
    the source's time and size as the file now has them (a hash-based one is taken as fresh)."""
    import importlib.util

    try:
        with open(importlib.util.cache_from_source(str(source)), "rb") as f:
            head = f.read(16)
        stat = source.stat()
    except OSError:
        return False
    if len(head) < 16 or head[:4] != importlib.util.MAGIC_NUMBER:
        return False
    if int.from_bytes(head[4:8], "little"):   # hash-based
        return True
    return (int.from_bytes(head[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(head[12:16], "little") == stat.st_size & 0xFFFFFFFF)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Generate, compile and serve a world of one size; print JSON.")
    parser.add_argument("--size", default="xl", choices=["s", "m", "l", "xl"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--starts", type=int, default=2, help="server starts on the compiled world")
    args = parser.parse_args()
    print(json.dumps(world_size(args.size, args.seed, args.starts), indent=2), file=sys.stdout)
