"""``officeworld up --workers N``: N gateway processes behind HAProxy, restarted when they die.

Each worker is an ``officeworld up`` of its own (``w0``, ``w1``...) on a free loopback port, told its tag
(``OFFICEWORLD_WORKER``: every episode it makes is ``ep_<tag>_...``) and its peers (``OFFICEWORLD_PEERS``:
the listing and ``/health`` ask them too, ``simulator.gateway.peers``). Each keeps its trajectory files in
its own subfolder (``<OFFICEWORLD_TRAJECTORY_DIR>/<tag>``): resume, idle drop and memory release are each
worker's own, as with one server. HAProxy (``simulator.service.router``) listens on the user's port and
routes by the id. This process, the supervisor, restarts a worker that exits, on the same port, with
``--resume`` when there is a trajectory folder, so its episodes come back with every answered step; until
it is healthy again HAProxy answers its episodes' requests with a shaped 503. If HAProxy itself exits, the
supervisor stops everything and exits 1.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from apps.kit.settings import settings
from simulator.gateway.auth import control_token
from simulator.gateway.peers import LOCAL_HEADER
from simulator.service.router import HAPROXY_FIX, haproxy_binary, write_config

START_TIMEOUT_S = 600.0   # a worker's first start compiles the world when the cache has not got it
QUICK_DEATH_S = 30.0      # a worker that dies sooner after its start waits longer before the next (backoff)


@dataclass
class Worker:
    tag: str
    port: int
    env: dict[str, str]
    args: list[str]
    proc: subprocess.Popen | None = None
    started: float = 0.0
    quick_deaths: int = 0
    due: float = 0.0   # when a dead worker is started again
    restarts: int = field(default=0)

    def start(self, resume: bool) -> None:
        command = [sys.executable, "-m", "simulator.cli", "up", *self.args, "--port", str(self.port),
                   "--no-episode", *(["--resume"] if resume else [])]
        self.proc = subprocess.Popen(command, env=self.env)
        self.started = time.monotonic()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_shards(count: int, world: str, host: str, port: int, first_episode: bool, resume: bool, claim) -> int:
    """Serve with ``count`` workers behind HAProxy on ``host:port`` (held by ``claim`` until HAProxy binds it)
    until interrupted; 2 when HAProxy is missing or the options cannot work."""
    haproxy = haproxy_binary()
    if haproxy is None:
        print(f"error: {HAPROXY_FIX}", file=sys.stderr)
        return 2
    env = settings()
    if resume and env.trajectory_dir is None:
        print("error: --resume rebuilds episodes from their trajectory files: set OFFICEWORLD_TRAJECTORY_DIR",
              file=sys.stderr)
        return 2
    token = control_token()
    workers = _workers(count, world, token, env.trajectory_dir)
    folder = Path(tempfile.mkdtemp(prefix="officeworld-router-"))
    config = write_config(folder, host, port, {w.tag: w.port for w in workers})
    checked = subprocess.run([haproxy, "-c", "-q", "-f", str(config)], capture_output=True, text=True)
    if checked.returncode != 0:
        print(f"error: HAProxy refused its configuration ({config}): {checked.stderr.strip()}", file=sys.stderr)
        return 2
    for worker in workers:
        worker.start(resume)
    router: subprocess.Popen | None = None
    stop = _stopper()
    try:
        if not all(_healthy(w, stop) for w in workers):
            print("error: a worker did not start (its output is above)", file=sys.stderr)
            return 1
        claim.close()   # HAProxy binds it next
        router = subprocess.Popen([haproxy, "-db", "-f", str(config)])
        base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
        if not _router_up(base, router):
            print(f"error: HAProxy did not start (code {router.returncode}; its output is above)", file=sys.stderr)
            return 1
        _announce(base, count, world, token, first_episode, env.trajectory_dir)
        return _supervise(workers, router, stop, env.trajectory_dir is not None)
    finally:
        _stop_all([*(w.proc for w in workers), router])


def _workers(count: int, world: str, token: str, trajectories: Path | None) -> list[Worker]:
    ports = {f"w{i}": free_port() for i in range(count)}
    out = []
    for tag, worker_port in ports.items():
        peers = ",".join(f"{t}=http://127.0.0.1:{p}" for t, p in ports.items() if t != tag)
        env = {**os.environ, "OFFICEWORLD_WORKER": tag, "OFFICEWORLD_PEERS": peers, "OFFICEWORLD_TOKEN": token}
        if trajectories is not None:
            env["OFFICEWORLD_TRAJECTORY_DIR"] = str(trajectories / tag)
        out.append(Worker(tag, worker_port, env, ["--world", world, "--host", "127.0.0.1"]))
    return out


def _healthy(worker: Worker, stop: dict, timeout: float = START_TIMEOUT_S) -> bool:
    """Wait until the worker answers its own ``/health`` (False if it exits, or on Ctrl-C)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not stop["now"]:
        assert worker.proc is not None
        if worker.proc.poll() is not None:
            return False
        try:
            if httpx.get(f"http://127.0.0.1:{worker.port}/health", headers={LOCAL_HEADER: "1"},
                         timeout=5).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    return False


def _router_up(base: str, router: subprocess.Popen, timeout: float = 30.0) -> bool:
    """Wait until HAProxy answers on the user's port (False if it exits)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and router.poll() is None:
        try:
            httpx.get(f"{base}/health", timeout=5)
            return True
        except httpx.HTTPError:
            time.sleep(0.1)
    return False


def _announce(base: str, count: int, world: str, token: str, first_episode: bool, trajectories: Path | None) -> None:
    print(f"officeworld: {count} workers behind HAProxy at {base}   control API: {base}/v1/episodes", file=sys.stderr)
    if trajectories is None:
        print("officeworld: no trajectory folder (OFFICEWORLD_TRAJECTORY_DIR): a worker restarted after a crash "
              "comes back without its episodes", file=sys.stderr)
    if not first_episode:
        return
    made = _first_episode(base, world, token)
    if made is not None:
        print(f"episode {made['id']} as {made['actor']}\n  MCP:  {made['mcp_url']}\n  REST: {made['api_url']}\n"
              f"  CLI:  export OW_URL={base} OW_EPISODE={made['id']}", file=sys.stderr)


def _first_episode(base: str, world: str, token: str) -> dict | None:
    deadline = time.monotonic() + 30   # HAProxy's first check of each worker comes within a second
    while True:
        try:
            made = httpx.post(f"{base}/v1/episodes", json={"world": world}, timeout=60,
                              headers={"Authorization": f"Bearer {token}"})
            if made.status_code == 201:
                return made.json()
        except httpx.HTTPError as exc:
            made = exc   # type: ignore[assignment]
        if time.monotonic() > deadline:
            print(f"error: the router did not create the first episode: {made}", file=sys.stderr)
            return None
        time.sleep(0.2)


def _supervise(workers: list[Worker], router: subprocess.Popen, stop: dict, resumes: bool) -> int:
    """Restart each worker that exits until Ctrl-C or SIGTERM (0); 1 if HAProxy exits."""
    while not stop["now"]:
        if router.poll() is not None:
            print(f"error: HAProxy exited (code {router.returncode}); stopping the workers", file=sys.stderr)
            return 1
        for worker in workers:
            _restart_if_dead(worker, resumes)
        time.sleep(0.2)
    return 0


def _restart_if_dead(worker: Worker, resumes: bool) -> None:
    assert worker.proc is not None
    if worker.proc.poll() is None:
        return
    now = time.monotonic()
    if worker.due == 0.0:   # just found dead
        quick = now - worker.started < QUICK_DEATH_S
        worker.quick_deaths = worker.quick_deaths + 1 if quick else 0
        worker.due = now + min(2.0 ** worker.quick_deaths - 1, 30.0)
        print(f"officeworld: worker {worker.tag} exited (code {worker.proc.returncode}); restarting it"
              + (" with --resume" if resumes else ""), file=sys.stderr)
    hold = settings().restart_hold
    if now < worker.due or (hold is not None and hold.exists()):
        return
    worker.due = 0.0
    worker.restarts += 1
    worker.start(resume=resumes)


def _stopper() -> dict:
    stop = {"now": False}

    def asked(*_) -> None:
        stop["now"] = True
    signal.signal(signal.SIGTERM, asked)
    signal.signal(signal.SIGINT, asked)
    return stop


def _stop_all(procs: list) -> None:
    live = [p for p in procs if p is not None and p.poll() is None]
    for proc in live:
        proc.terminate()
    deadline = time.monotonic() + 15
    for proc in live:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
