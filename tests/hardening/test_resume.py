"""Crash and restart lose nothing answered: a real server killed with SIGKILL, then ``officeworld up --resume``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from surfaces import CONTROL, ROOT, mcp_session

TASK = "cross-case-from-customer-email"   # a task with a setup step (a mail sent to the actor)


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(port: int, trajectories: Path, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "OFFICEWORLD_TRAJECTORY_DIR": str(trajectories), "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "simulator.cli", "up", "--port", str(port), "--no-episode", *extra],
                             cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while True:
        assert child.poll() is None, child.stderr.read()
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return child
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.1)


def _state(http: httpx.Client, episode_id: str) -> tuple[list, dict]:
    steps = http.get(f"/v1/episodes/{episode_id}/trajectory", headers=CONTROL).json()["steps"]
    return steps, http.get(f"/v1/episodes/{episode_id}/digest", headers=CONTROL).json()


def _rest(http: httpx.Client, episode_id: str, app: str, op: str, **arguments) -> dict:
    response = http.post(f"/episodes/{episode_id}/api/{app}/{op}", json=arguments)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_killed_server_resumes_every_live_episode_with_the_same_state(tmp_path):
    trajectories, port = tmp_path / "trajectories", _port()
    base = f"http://127.0.0.1:{port}"
    server = _start(port, trajectories)
    try:
        with httpx.Client(base_url=base, timeout=60) as http:
            plain = http.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).json()["id"]
            _rest(http, plain, "mail", "send", to=["sofia.marino@acmeanalytics.com"], subject="Before", body="the crash")
            _rest(http, plain, "mail", "search", query="Before")
            _rest(http, plain, "crm", "add_note", related_object="Account", related_id=1, title="N", body="kept")
            assert http.post(f"/v1/episodes/{plain}/clock", json={"seconds": 3600}, headers=CONTROL).status_code == 200
            task = http.post("/v1/episodes", json={"task": TASK}, headers=CONTROL).json()["id"]
            _rest(http, task, "mail", "search", query="Warehouse")
            fork = http.post(f"/v1/episodes/{plain}/fork", headers=CONTROL).json()["id"]
            _rest(http, fork, "mail", "send", to=["kevin.liu@acmeanalytics.com"], subject="Only in the fork", body="x")
            over_mcp = http.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).json()["id"]
            _, results = asyncio.run(mcp_session(f"{base}/episodes/{over_mcp}/mcp", [
                ("docs_create_document", {"name": "Crash notes", "text": "written over MCP"}),
                ("mail_send", {"to": ["kevin.liu@acmeanalytics.com"], "subject": "Over MCP", "body": "y"})]))
            assert not any(r.is_error for r in results)
            done = http.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).json()["id"]
            assert http.delete(f"/v1/episodes/{done}", headers=CONTROL).status_code == 204
            live = [plain, task, fork, over_mcp]
            before = {e: _state(http, e) for e in live}
            clocks = {e: http.get(f"/v1/episodes/{e}", headers=CONTROL).json()["now"] for e in live}
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=30)

    server = _start(port, trajectories, "--resume")
    try:
        with httpx.Client(base_url=base, timeout=60) as http:
            listed = {e["id"] for e in http.get("/v1/episodes", headers=CONTROL).json()}
            assert listed == set(live)   # the deleted one stays deleted
            for episode_id in live:
                steps, digest = _state(http, episode_id)
                assert steps == before[episode_id][0], episode_id   # every answered step, reads included
                assert digest == before[episode_id][1], episode_id
                assert http.get(f"/v1/episodes/{episode_id}", headers=CONTROL).json()["now"] == clocks[episode_id]
            # Clients carry on: the same URLs, new steps appended after the old ones, in the same file.
            after = _rest(http, plain, "mail", "search", query="Before")
            assert after == before[plain][0][1]["result"]
            _, results = asyncio.run(mcp_session(f"{base}/episodes/{over_mcp}/mcp", [("mail_search", {"query": "Over MCP"})]))
            assert not results[0].is_error and "Over MCP" in results[0].content[0].text
            reward = http.post(f"/v1/episodes/{task}/finish", json={"answer": "done"}, headers=CONTROL)
            assert reward.status_code == 200, reward.text
            steps, _ = _state(http, plain)
            assert [s["index"] for s in steps] == list(range(len(before[plain][0]) + 1))
        lines = [json.loads(line) for line in (trajectories / f"{plain}.jsonl").read_text().splitlines()]
        assert [line["kind"] for line in lines].count("header") == 1
        assert lines[-1]["kind"] == "step" and lines[-1]["operation"] == "search"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_torn_last_line_is_cut_before_the_resumed_episode_appends(tmp_path):
    from simulator.store.episodes import EpisodeStore
    from simulator.trajectories.files import read
    from simulator.trajectories.resume import resume

    store = EpisodeStore(trajectory_dir=tmp_path, idle_timeout=None)
    episode = store.create("acme")
    from apps.kit.invoker import invoke
    send = episode.operation("mail", "send")
    invoke(episode, send, {"to": ["kevin.liu@acmeanalytics.com"], "subject": "s", "body": "b"}, "rest")
    digest = episode.digest()
    path = tmp_path / f"{episode.id}.jsonl"
    with path.open("a") as fh:
        fh.write('{"kind":"step","index":1,"surf')   # the process died mid-write
    again = EpisodeStore(trajectory_dir=tmp_path, idle_timeout=None)
    (done,) = resume(again)
    assert done.status == "resumed" and done.steps == 1 and not done.divergences
    rebuilt = again.get(episode.id)
    assert rebuilt.digest() == digest
    invoke(rebuilt, send, {"to": ["kevin.liu@acmeanalytics.com"], "subject": "t", "body": "c"}, "rest")
    assert [s.index for s in read(path).steps] == [0, 1]
