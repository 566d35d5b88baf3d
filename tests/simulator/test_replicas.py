"""compose's scaled gateway (compose.scale.yaml) without containers: replicas that claim a tag, and the router.

Two `officeworld up` replicas alike but for their address (127.0.0.1 and 127.0.0.2, one port), sharing a
trajectory folder, each claim a tag; a real HAProxy with `officeworld router`'s configuration finds both by DNS
(a small DNS server here stands in for compose's, naming both addresses `gateway`) and routes each episode to
the replica holding its tag. A killed replica's episodes answer a shaped 503; started again, it takes its tag
back and resumes them with their steps. The live stack (tests/deploy/test_compose_scale_live.py) repeats it
under Podman.
"""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from factories import make_world
from fastapi.testclient import TestClient
from surfaces import CONTROL, ROOT
from typer.testing import CliRunner

from simulator.service import replicas
from simulator.service.router import haproxy_binary, write_replica_config

needs_haproxy = pytest.mark.skipif(haproxy_binary() is None,
                                   reason="haproxy is not installed (./dev.sh setup installs it when run as root)")
WAIT_S = 300   # a bound on each wait for a start, never an asserted time
ADDRESSES = ("127.0.0.1", "127.0.0.2")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_each_claim_takes_the_first_free_tag_and_a_let_go_tag_is_taken_again(tmp_path):
    first, second = replicas.try_claim(tmp_path, 2), replicas.try_claim(tmp_path, 2)
    assert first is not None and second is not None and (first[0], second[0]) == ("w0", "w1")
    assert replicas.try_claim(tmp_path, 2) is None   # both held: a third replica waits
    os.close(first[1])   # the process holding w0 ended
    again = replicas.try_claim(tmp_path, 2)
    assert again is not None and again[0] == "w0"
    for held in (second, again):
        os.close(held[1])


def test_a_replica_beyond_the_tags_waits_and_takes_the_first_one_let_go(tmp_path):
    held = replicas.try_claim(tmp_path, 1)
    said: list[str] = []
    got: list[str] = []
    waiting = threading.Thread(target=lambda: got.append(replicas.claim_slot(tmp_path, 1, 0.01, said.append)))
    waiting.start()
    deadline = time.monotonic() + WAIT_S
    while not said:   # it said it waits: every tag is held
        assert time.monotonic() < deadline and waiting.is_alive()
        time.sleep(0.01)
    assert got == [] and "waiting" in said[0]
    os.close(held[1])
    waiting.join(WAIT_S)
    assert got == ["w0"]
    os.close(replicas._held.pop())


def test_a_replica_takes_its_settings_from_its_tag(tmp_path, monkeypatch):
    env = {}
    monkeypatch.setenv("OFFICEWORLD_WORKER_SLOTS", "3")
    monkeypatch.setenv("OFFICEWORLD_TRAJECTORY_DIR", str(tmp_path))
    monkeypatch.setenv("OFFICEWORLD_ROUTER_URL", "http://router:8000/")
    taken = replicas.try_claim(tmp_path, 1)   # w0 is another replica's
    assert replicas.become_replica(env) == "w1"
    assert env == {"OFFICEWORLD_WORKER": "w1", "OFFICEWORLD_TRAJECTORY_DIR": str(tmp_path / "w1"),
                   "OFFICEWORLD_PEERS": "w0=http://router:8000,w2=http://router:8000"}
    os.close(taken[1])
    os.close(replicas._held.pop())


def test_a_replica_without_a_shared_folder_or_a_router_is_refused_naming_both(monkeypatch):
    from simulator.cli.main import cli

    monkeypatch.setenv("OFFICEWORLD_WORKER_SLOTS", "2")
    monkeypatch.delenv("OFFICEWORLD_TRAJECTORY_DIR", raising=False)
    said = CliRunner().invoke(cli, ["up", "--port", str(_free_port())])
    assert said.exit_code == 2
    assert "OFFICEWORLD_TRAJECTORY_DIR" in said.output and "OFFICEWORLD_ROUTER_URL" in said.output


def test_the_router_without_haproxy_exits_naming_the_fix(monkeypatch):
    from simulator.cli.main import cli
    from simulator.service import router

    monkeypatch.setattr(router, "haproxy_binary", lambda: None)
    said = CliRunner().invoke(cli, ["router", "--port", str(_free_port())])
    assert said.exit_code == 2 and "apt-get install haproxy" in said.output


def test_a_question_for_another_workers_own_part_is_refused(store, monkeypatch):
    from simulator.gateway.server import build_app

    monkeypatch.setattr(store, "worker", "w1")
    monkeypatch.setenv("OFFICEWORLD_PEERS", "w0=http://127.0.0.1:9")   # never asked: every request here is local
    with TestClient(build_app(store), base_url="http://127.0.0.1:8000", headers=CONTROL) as api:
        assert api.get("/health", headers={"x-officeworld-local": "w1"}).status_code == 200
        assert api.get("/health", headers={"x-officeworld-local": "1"}).status_code == 200
        for path in ("/health", "/v1/episodes"):
            refused = api.get(path, headers={"x-officeworld-local": "w0"})
            assert refused.status_code == 421, refused.text
            error = refused.json()["error"]
            assert error["type"] == "misdirected" and error["field"] == "x-officeworld-local" and "w0" in error["message"]
        # A request naming another worker's episode is refused before anything is done; its own are looked up.
        other, own = "ep_w0_0123456789abcdef", "ep_w1_0123456789abcdef"
        for refused in (api.get(f"/v1/episodes/{other}"), api.get(f"/v1/view?episode={other}"),
                        api.post(f"/episodes/{other}/api/mail/search", json={"query": "x"}),
                        api.post(f"/episodes/{other}/mcp", json={})):
            assert refused.status_code == 421 and refused.json()["error"]["field"] == "episode_id", refused.text
        assert api.get(f"/v1/episodes/{own}").status_code == 404
        assert api.get("/v1/episodes/ep_w7_0123456789abcdef").status_code == 404   # no worker has that tag
    monkeypatch.setattr(store, "worker", "")   # one server: a tagged id is just an id it does not hold
    monkeypatch.delenv("OFFICEWORLD_PEERS")
    with TestClient(build_app(store), base_url="http://127.0.0.1:8000", headers=CONTROL) as api:
        assert api.get(f"/v1/episodes/{other}").status_code == 404


class NameServer:
    """Answers ``A gateway`` with ``ADDRESSES`` (UDP, loopback), any other name with NXDOMAIN."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.address = "127.0.0.1:%d" % self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                query, client = self.sock.recvfrom(512)
            except OSError:   # closed
                return
            self.sock.sendto(self.answer(query), client)

    @staticmethod
    def answer(query: bytes) -> bytes:
        end, labels = 12, []
        while query[end]:
            labels.append(query[end + 1:end + 1 + query[end]].decode())
            end += 1 + query[end]
        question = query[12:end + 5]
        kind = struct.unpack("!H", query[end + 1:end + 3])[0]
        known = ".".join(labels).lower() == "gateway"
        found = [socket.inet_aton(a) for a in ADDRESSES] if known and kind == 1 else []
        header = query[:2] + struct.pack("!HHHHH", 0x8180 if known else 0x8183, 1, len(found), 0, 0)
        records = b"".join(struct.pack("!HHHIH", 0xC00C, 1, 1, 1, 4) + a for a in found)
        return header + question + records

    def close(self) -> None:
        self.sock.close()


class Replicas:
    def __init__(self, tmp: Path, world_cache: Path):
        self.tmp, self.port, self.router_port = tmp, _free_port(), _free_port()
        self.base = f"http://127.0.0.1:{self.router_port}"
        self.world = make_world(tmp / "worlds")
        self.dns = NameServer()
        config = write_replica_config(tmp, self.router_port, 2, f"gateway:{self.port}", 4,
                                      host="127.0.0.1", nameserver=self.dns.address)
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "OFFICEWORLD_TRAJECTORY_DIR": str(tmp / "trajectories"),
                    "OFFICEWORLD_CACHE_DIR": str(world_cache), "OFFICEWORLD_WORKER_SLOTS": "2",
                    "OFFICEWORLD_ROUTER_URL": self.base, "OFFICEWORLD_RESUME": "1"}
        self.procs: dict[str, subprocess.Popen] = {}
        self.router = subprocess.Popen([haproxy_binary(), "-db", "-f", str(config)], stdout=self._log("router"),
                                       stderr=subprocess.STDOUT)
        for address in ADDRESSES:
            self.start(address)
        self.wait_until(self.every_tag_routed)

    def every_tag_routed(self) -> bool:
        """Whether the router has found each tag's holder (its first passing check of each comes within 2 s)."""
        return all(httpx.get(self.base + "/health", headers={"x-officeworld-local": tag}, timeout=10).status_code == 200
                   for tag in ("w0", "w1"))

    def _log(self, name: str):
        return open(self.tmp / f"{name}.log", "a")

    def start(self, address: str) -> None:
        self.procs[address] = subprocess.Popen(
            [sys.executable, "-m", "simulator.cli", "up", "--world", str(self.world), "--host", address,
             "--port", str(self.port), "--no-episode"], cwd=self.tmp, env=self.env,
            stdout=self._log(address), stderr=subprocess.STDOUT)

    def tag_of(self, address: str) -> str:
        said = [line for line in (self.tmp / f"{address}.log").read_text().splitlines() if "this gateway is worker" in line]
        return said[-1].split()[5]

    def wait_until(self, ready) -> None:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                if ready():
                    return
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            logs = "\n".join(f"{p.name}:\n{p.read_text()[-3000:]}" for p in self.tmp.glob("*.log"))
            assert time.monotonic() < deadline, logs
            assert self.router.poll() is None, logs
            time.sleep(0.2)

    def stop(self) -> None:
        for proc in [*self.procs.values(), self.router]:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=60)
        self.dns.close()


@pytest.fixture(scope="module")
def pair(tmp_path_factory, world_cache):
    made = Replicas(tmp_path_factory.mktemp("replicas"), world_cache)
    try:
        yield made
    finally:
        made.stop()


def _one_per_tag(pair: Replicas) -> dict[str, str]:
    """Episodes made through the router until each tag has one. Until the router's first passing check of a
    replica (every 2 s) it sends creations to the other, or answers 503 with none checked yet: so a bounded wait."""
    found: dict[str, str] = {}

    def make() -> bool:
        made = httpx.post(f"{pair.base}/v1/episodes", json={"world": str(pair.world)}, headers=CONTROL, timeout=60)
        assert made.status_code in (201, 503), made.text
        if made.status_code == 201:
            found.setdefault(made.json()["id"].split("_")[1], made.json()["id"])
        return set(found) == {"w0", "w1"}
    pair.wait_until(make)
    return found


def _search(pair: Replicas, episode_id: str) -> httpx.Response:
    return httpx.post(f"{pair.base}/episodes/{episode_id}/api/mail/search", json={"query": "Globex"}, timeout=60)


@needs_haproxy
def test_the_router_finds_both_replicas_by_dns_and_routes_each_episode_to_its_tag(pair):
    assert {pair.tag_of(a) for a in ADDRESSES} == {"w0", "w1"}
    by_tag = _one_per_tag(pair)
    for tag, episode_id in by_tag.items():
        assert _search(pair, episode_id).status_code == 200
        shown = httpx.get(f"{pair.base}/v1/episodes/{episode_id}", headers=CONTROL, timeout=60).json()
        assert shown["steps"] == 1 and shown["mcp_url"] == f"{pair.base}/episodes/{episode_id}/mcp"
    listing = httpx.get(f"{pair.base}/v1/episodes", headers=CONTROL, timeout=60)
    assert set(by_tag.values()) <= {e["id"] for e in listing.json()}
    assert "x-officeworld-workers-down" not in listing.headers
    health = httpx.get(f"{pair.base}/health", timeout=60).json()
    assert health["status"] == "ok" and set(health["workers"]) == {"w0", "w1"}, health


@needs_haproxy
def test_a_killed_replica_answers_503_then_takes_its_tag_back_with_its_episodes_steps(pair):
    by_tag = _one_per_tag(pair)
    for episode_id in by_tag.values():
        assert _search(pair, episode_id).status_code == 200
    address = next(a for a in ADDRESSES if pair.tag_of(a) == "w0")
    pair.procs[address].send_signal(signal.SIGKILL)
    pair.procs[address].wait(timeout=60)
    refused = _search(pair, by_tag["w0"])
    assert refused.status_code == 503 and refused.json()["error"]["type"] == "unavailable", refused.text
    assert "w0" in refused.json()["error"]["message"]
    assert _search(pair, by_tag["w1"]).status_code == 200   # the other replica carries on
    pair.start(address)
    pair.wait_until(pair.every_tag_routed)
    assert pair.tag_of(address) == "w0"
    assert httpx.get(f"{pair.base}/v1/episodes/{by_tag['w0']}", headers=CONTROL, timeout=60).json()["steps"] == 1
    assert _search(pair, by_tag["w0"]).status_code == 200
