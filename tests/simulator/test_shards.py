"""``officeworld up --workers 2``: two gateway processes behind a real HAProxy, on loopback. Each episode lives
in the worker its id names, answers over REST and MCP through the router, and the listing and /health span
both. A worker killed with SIGKILL: its episodes answer a shaped 503 (never the other worker's state) while it
is down, the other worker's carry on, and once the supervisor restarts it they come back with every answered
step. The restart is held by a file the test removes (``OFFICEWORLD_RESTART_HOLD``), so nothing here depends
on how fast a worker starts."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from factories import make_world
from surfaces import CONTROL, ROOT, mcp_session
from typer.testing import CliRunner

from simulator.service.router import haproxy_binary

needs_haproxy = pytest.mark.skipif(haproxy_binary() is None,
                                   reason="haproxy is not installed (./dev.sh setup installs it when run as root)")
WAIT_S = 300   # a bound on each wait for a start, never an asserted time


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    def __init__(self, tmp: Path, world_cache: Path, resume: bool = False):
        self.port, self.hold = _free_port(), tmp / "hold-restarts"
        self.base = f"http://127.0.0.1:{self.port}"
        self.world = tmp / "worlds" / "small" if resume else make_world(tmp / "worlds")
        self.trajectories = tmp / "trajectories"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OFFICEWORLD_TRAJECTORY_DIR": str(self.trajectories),
               "OFFICEWORLD_CACHE_DIR": str(world_cache), "OFFICEWORLD_RESTART_HOLD": str(self.hold)}
        self.log = open(tmp / ("resumed.log" if resume else "up.log"), "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "simulator.cli", "up", "--workers", "2", "--world",
                                      str(self.world), "--port", str(self.port), "--no-episode",
                                      *(["--resume"] if resume else [])],
                                     cwd=tmp, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.wait_until(lambda: self.get("/health").json()["status"] == "ok")

    def get(self, path: str, **kw) -> httpx.Response:
        return httpx.get(self.base + path, headers=CONTROL, timeout=60, **kw)

    def post(self, path: str, body: dict) -> httpx.Response:
        return httpx.post(self.base + path, json=body, headers=CONTROL, timeout=60)

    def wait_until(self, ready) -> None:
        deadline = time.monotonic() + WAIT_S
        while True:
            assert self.proc.poll() is None, Path(self.log.name).read_text()
            try:
                if ready():
                    return
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            assert time.monotonic() < deadline, Path(self.log.name).read_text()
            time.sleep(0.2)

    def worker_pid(self, tag: str) -> int:
        """The pid of the supervisor's child serving as ``tag`` (its environment names it)."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        for pid in map(int, children):
            try:
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except (ProcessLookupError, FileNotFoundError):   # a child that ended meanwhile
                continue
            if f"OFFICEWORLD_WORKER={tag}".encode() in environ:
                return pid
        raise AssertionError(f"no worker {tag} among {children}")

    def worker_port(self, tag: str) -> int:
        """The loopback port worker ``tag`` serves on (its command line's ``--port``)."""
        command = Path(f"/proc/{self.worker_pid(tag)}/cmdline").read_bytes().decode().split("\0")
        return int(command[command.index("--port") + 1])

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)
        self.log.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, world_cache):
    made = Cluster(tmp_path_factory.mktemp("shards"), world_cache)
    try:
        yield made
    finally:
        made.stop()


def _episodes_on_both(cluster: Cluster) -> dict[str, list[str]]:
    """Episodes made through the router until each worker holds two (leastconn alternates between idle ones;
    one may get a third first, when the other is still busy answering)."""
    by_worker: dict[str, list[str]] = {"w0": [], "w1": []}
    for _ in range(12):
        made = cluster.post("/v1/episodes", {"world": str(cluster.world)})
        assert made.status_code == 201, made.text
        episode_id = made.json()["id"]
        by_worker[episode_id.split("_")[1]].append(episode_id)
        if all(len(ids) >= 2 for ids in by_worker.values()):
            return by_worker
    raise AssertionError(f"the router did not place episodes on both workers: {by_worker}")


def _search(cluster: Cluster, episode_id: str) -> httpx.Response:
    return httpx.post(f"{cluster.base}/episodes/{episode_id}/api/mail/search", json={"query": "Globex"}, timeout=60)


def _mcp_search(cluster: Cluster, episode_id: str):
    _, [result] = asyncio.run(mcp_session(f"{cluster.base}/episodes/{episode_id}/mcp",
                                          [("mail_search", {"query": "Globex"})]))
    return result


@needs_haproxy
def test_episodes_on_both_workers_answer_over_rest_and_mcp_and_the_listing_spans_them(cluster):
    by_worker = _episodes_on_both(cluster)
    for episode_id in by_worker["w0"] + by_worker["w1"]:
        assert _search(cluster, episode_id).json()["total"] >= 1
        result = _mcp_search(cluster, episode_id)
        assert not result.is_error and result.structured_content["total"] >= 1
        shown = cluster.get(f"/v1/episodes/{episode_id}").json()
        assert shown["id"] == episode_id and shown["steps"] == 2   # both calls reached this episode's worker
        assert shown["mcp_url"] == f"{cluster.base}/episodes/{episode_id}/mcp"
    for _ in range(3):   # whichever worker answers the listing, it holds every episode
        listed = {e["id"] for e in cluster.get("/v1/episodes").json()}
        assert set(by_worker["w0"] + by_worker["w1"]) <= listed
    health = cluster.get("/health").json()
    assert health["status"] == "ok" and set(health["workers"]) == {"w0", "w1"}
    assert health["episodes"] == sum(w["episodes"] for w in health["workers"].values()) >= 4
    assert {p.name for p in cluster.trajectories.iterdir()} == {"w0", "w1"}   # each worker's own folder
    assert (cluster.trajectories / "w1" / f"{by_worker['w1'][0]}.jsonl").exists()


@needs_haproxy
def test_the_viewer_of_either_worker_lists_every_workers_episodes(cluster):
    """Each worker's files are in its own folder; its viewer (``/v1/view``) lists both folders, asked of each
    worker directly (not through the router, which may pick either), and shows an episode of either worker."""
    by_worker = _episodes_on_both(cluster)
    every = by_worker["w0"] + by_worker["w1"]
    for episode_id in every:
        assert _search(cluster, episode_id).status_code == 200
    for tag in ("w0", "w1"):
        listing = httpx.get(f"http://127.0.0.1:{cluster.worker_port(tag)}/v1/view", params={"diffs": "false"},
                            headers=CONTROL, timeout=60)
        assert listing.status_code == 200, listing.text
        assert all(episode_id in listing.text for episode_id in every), tag
    for episode_id in (by_worker["w0"][0], by_worker["w1"][0]):
        shown = cluster.get("/v1/view", params={"episode": episode_id, "diffs": "false"})
        assert shown.status_code == 200 and f"episode {episode_id}" in shown.text
        assert "mail.search" in shown.text   # its step, from the file in its worker's folder


@needs_haproxy
def test_an_id_no_worker_holds_is_not_found_and_a_fork_stays_in_its_parents_worker(cluster):
    missing = cluster.get("/v1/episodes/ep_w7_0123456789abcdef")
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "episode_id"
    by_worker = _episodes_on_both(cluster)
    for tag, ids in by_worker.items():
        forked = cluster.post(f"/v1/episodes/{ids[0]}/fork", {})
        assert forked.status_code == 201 and forked.json()["id"].startswith(f"ep_{tag}_")


@needs_haproxy
def test_a_killed_worker_answers_503_until_restarted_then_resumes_with_its_steps(cluster):
    by_worker = _episodes_on_both(cluster)
    down, up = by_worker["w0"][0], by_worker["w1"][0]
    for episode_id in (down, up):
        assert _search(cluster, episode_id).status_code == 200
    steps = cluster.get(f"/v1/episodes/{down}").json()["steps"]
    cluster.hold.touch()
    os.kill(cluster.worker_pid("w0"), signal.SIGKILL)
    for answer in (_search(cluster, down), cluster.get(f"/v1/episodes/{down}"),
                   httpx.post(f"{cluster.base}/episodes/{down}/mcp", json={}, timeout=60)):
        assert answer.status_code == 503 and answer.headers["content-type"] == "application/json"
        error = answer.json()["error"]
        assert error["type"] == "unavailable" and error["field"] == "episode_id" and "w0" in error["message"]
    assert _search(cluster, up).status_code == 200   # the other worker carries on
    assert not _mcp_search(cluster, up).is_error
    listing = cluster.get("/v1/episodes")
    assert listing.headers["x-officeworld-workers-down"] == "w0"   # whichever worker answered, w0 cannot
    assert up in {e["id"] for e in listing.json()} and down not in {e["id"] for e in listing.json()}
    cluster.wait_until(lambda: cluster.get("/health").json()["workers"]["w0"]["status"] == "down")
    made = {cluster.post("/v1/episodes", {"world": str(cluster.world)}).json()["id"][:6] for _ in range(3)}
    assert made == {"ep_w1_"}   # new episodes go to the worker that is up
    cluster.hold.unlink()
    cluster.wait_until(lambda: cluster.get(f"/v1/episodes/{down}").status_code == 200)
    assert cluster.get(f"/v1/episodes/{down}").json()["steps"] == steps   # every answered step, resumed
    assert _search(cluster, down).status_code == 200
    assert not _mcp_search(cluster, down).is_error
    assert cluster.get(f"/v1/episodes/{down}").json()["steps"] == steps + 2


def test_several_workers_without_haproxy_exit_naming_the_fix(monkeypatch):
    from simulator.cli.main import cli
    from simulator.service import shards

    monkeypatch.setattr(shards, "haproxy_binary", lambda: None)
    said = CliRunner().invoke(cli, ["up", "--workers", "2", "--port", str(_free_port())])
    assert said.exit_code == 2
    assert "haproxy is not installed" in said.output and "apt-get install haproxy" in said.output


def test_one_worker_makes_untagged_ids_and_a_worker_tags_its_own(monkeypatch, world_cache):
    from simulator.store.episodes import EpisodeStore

    assert EpisodeStore(cache_dir=world_cache, trajectory_dir=None).worker == ""
    monkeypatch.setenv("OFFICEWORLD_WORKER", "w3")
    assert EpisodeStore(cache_dir=world_cache, trajectory_dir=None).worker == "w3"
    from simulator.store.episodes import _new_id
    assert _new_id().count("_") == 1 and _new_id("w3").startswith("ep_w3_")


@needs_haproxy
def test_up_resume_brings_each_episode_back_in_the_worker_that_held_it(tmp_path, world_cache):
    first = Cluster(tmp_path, world_cache)
    try:
        by_worker = _episodes_on_both(first)
        for ids in by_worker.values():
            assert _search(first, ids[0]).status_code == 200
        steps = {i: first.get(f"/v1/episodes/{i}").json()["steps"] for ids in by_worker.values() for i in ids}
    finally:
        first.stop()   # the workers stop; their episodes' files have no footer
    again = Cluster(tmp_path, world_cache, resume=True)
    try:
        for episode_id, count in steps.items():
            assert again.get(f"/v1/episodes/{episode_id}").json()["steps"] == count
        health = again.get("/health").json()
        assert {tag: w["episodes"] for tag, w in health["workers"].items()} == {t: len(ids) for t, ids in by_worker.items()}
        again.hold.touch()   # each episode lives in its own worker: with w1 down, w0's still answer
        os.kill(again.worker_pid("w1"), signal.SIGKILL)
        assert _search(again, by_worker["w0"][0]).status_code == 200
        assert _search(again, by_worker["w1"][0]).status_code == 503
    finally:
        again.stop()


def test_the_router_runs_a_thread_per_four_cores_and_at_least_one(tmp_path):
    from simulator.service.router import threads, write_config

    assert [threads(cores) for cores in (1, 2, 3, 4, 8, 16, 64)] == [1, 1, 1, 1, 2, 4, 16]
    config = write_config(tmp_path, "127.0.0.1", 8000, {"w0": 8001, "w1": 8002}).read_text()
    assert f"    nbthread {threads()}\n" in config
