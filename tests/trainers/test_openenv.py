"""The OpenEnv server (``officeworld openenv``) against OpenEnv's own client: ``GenericEnvClient`` over its
WebSocket session, run from the side venv (openenv pins another MCP SDK), and the HTTP routes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import httpx
import pytest
from surfaces import ROOT, TOKEN
from trainer_oracles import SUBMIT, oracle_actions

from simulator.gateway.client import AsyncClient, Client
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore

TASK = "crm-close-globex-renewal"
SIDE_PYTHON = ROOT / ".venv-side" / "bin" / "python"
MAX_STEPS = 4

# Runs in the side venv: each plan entry is one session (reset, steps); prints what the client got, as JSON.
CLIENT = r"""
import asyncio, json, sys
from openenv import GenericEnvClient

def seen(r):
    # metadata: on the StepResult in newer openenv; in the observation in every version
    metadata = getattr(r, "metadata", None) or r.observation.get("metadata")
    return {"observation": r.observation, "reward": r.reward, "done": r.done, "metadata": metadata}

async def session(url, plan):
    async with GenericEnvClient(base_url=url) as env:
        out = {"reset": seen(await env.reset(**plan["reset"])), "steps": []}
        for action in plan["actions"]:
            out["steps"].append(seen(await env.step(action)))
        out["state"] = await env.state()
        try:
            await env.step({"tool": "crm_search", "arguments": {}})
        except RuntimeError as exc:
            out["after_done"] = str(exc)
        return out

async def main(url, plans):
    return [await session(url, plan) for plan in plans]

print(json.dumps(asyncio.run(main(sys.argv[1], json.loads(sys.stdin.read())))))
"""


def _side_python() -> str:
    ok = SIDE_PYTHON.exists() and subprocess.run([str(SIDE_PYTHON), "-c", "import openenv"],
                                                 capture_output=True).returncode == 0
    if not ok:
        why = f"openenv's client needs the side venv ({SIDE_PYTHON}; dev.sh builds it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)
    return str(SIDE_PYTHON)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def servers():
    """A world on loopback, and ``officeworld openenv`` in front of it: (world URL, OpenEnv URL)."""
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token=TOKEN)) as world:
        port = _free_port()
        argv = [sys.executable, "-m", "simulator.cli", "openenv", "--port", str(port), "--server", world,
                "--max-steps", str(MAX_STEPS)]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OFFICEWORLD_TOKEN": TOKEN}
        proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, proc.stdout.read()
                assert time.monotonic() < deadline, "officeworld openenv did not start"
                try:
                    if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            yield world, base
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def _run_client(base: str, plans: list[dict]) -> list[dict]:
    done = subprocess.run([_side_python(), "-c", CLIENT, base], input=json.dumps(plans), capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _graded_by_world(world: str, actions: list[dict]) -> dict:
    """The same calls straight through the control plane: what the world grades them."""
    with Client(world, TOKEN) as ow:
        episode = ow.create_episode(TASK)
        try:
            for action in actions:
                ow.call(episode["id"], action["tool"], action["arguments"])
            return ow.finish(episode["id"])
        finally:
            ow.delete(episode["id"])


def _live_episodes(world: str) -> list[dict]:
    with Client(world, TOKEN) as ow:
        return ow.episodes()


def test_openenv_client_gets_the_worlds_rewards_over_its_websocket_session(servers):
    world, base = servers
    oracle = oracle_actions(TASK)
    update = next(a for a in oracle if a["tool"] == "crm_update_opportunity")
    wrong = [{"tool": "crm_update_opportunity", "arguments": {**update["arguments"], "stage": "Closed Lost"}},
             {"tool": SUBMIT, "arguments": {"answer": "Marked it lost"}}]
    searches = [{"tool": "crm_search", "arguments": {"text": "globex"}},
                {"tool": "crm_teleport", "arguments": {}}] + [{"tool": "crm_search", "arguments": {"text": "x"}}] * 2
    plans = [{"reset": {"task": TASK, "episode_id": "mine-1"}, "actions": oracle},
             {"reset": {"task": TASK}, "actions": wrong},
             {"reset": {"suite": "crm", "seed": 7}, "actions": searches},
             {"reset": {"suite": "crm", "seed": 7}, "actions": []}]
    good, bad, cut, again = _run_client(base, plans)

    # The oracle: the prompt and tools on reset, nothing graded until the answer, then the world's 1.0.
    first = good["reset"]
    assert first["done"] is False and first["reward"] is None
    assert first["observation"]["task_id"] == TASK and "Globex renewal" in first["observation"]["prompt"]
    assert "crm_update_opportunity" in {t["function"]["name"] for t in first["observation"]["tools"]}
    assert [s["done"] for s in good["steps"]] == [False] * (len(oracle) - 1) + [True]
    assert all(s["reward"] is None for s in good["steps"][:-1])
    last = good["steps"][-1]
    assert last["reward"] == 1.0 and last["metadata"]["reward"]["passed"] is True
    assert last["metadata"]["truncated"] is False and last["observation"]["error"] is None
    assert good["state"]["episode_id"] == "mine-1" and good["state"]["step_count"] == len(oracle)
    assert good["state"]["task_id"] == TASK and good["state"]["done"] is True
    assert "episode is over" in good["after_done"]

    # A wrong stage: a lower reward, the one the world gives the same calls.
    assert bad["steps"][-1]["done"] is True and bad["steps"][-1]["reward"] < 1.0
    assert bad["steps"][-1]["reward"] == _graded_by_world(world, wrong)["total"]
    assert bad["steps"][-1]["metadata"]["reward"]["passed"] is False

    # A suite and a seed pick the same task each time; an unknown tool is the agent's error; the step limit ends it.
    with Client(world, TOKEN) as ow:
        crm = {t["id"] for t in ow.tasks(suite="crm")}
    assert cut["reset"]["observation"]["task_id"] in crm
    assert again["reset"]["observation"]["task_id"] == cut["reset"]["observation"]["task_id"]
    assert cut["steps"][0]["observation"]["result"] and cut["steps"][0]["observation"]["error"] is None
    assert cut["steps"][1]["observation"]["error"]["field"] == "tool" and cut["steps"][1]["done"] is False
    assert [s["done"] for s in cut["steps"]] == [False, False, False, True]
    assert cut["steps"][-1]["metadata"]["truncated"] is True
    assert cut["steps"][-1]["reward"] == cut["steps"][-1]["metadata"]["reward"]["total"]

    # Every session's episode is gone from the world once its session closed.
    assert _live_episodes(world) == []


def test_openenv_http_routes(servers):
    world, base = servers
    assert httpx.get(f"{base}/health").json() == {"status": "healthy"}
    schema = httpx.get(f"{base}/schema").json()
    assert set(schema) == {"action", "observation", "state"}
    assert schema["action"]["required"] == ["tool"] and "arguments" in schema["action"]["properties"]
    assert {"done", "reward", "result", "error"} <= set(schema["observation"]["properties"])
    assert httpx.get(f"{base}/metadata").json()["name"] == "officeworld"
    assert httpx.get(f"{base}/state").json()["step_count"] == 0

    # HTTP reset is stateless, as in OpenEnv: the prompt comes back and the episode is not kept.
    reset = httpx.post(f"{base}/reset", json={"task": TASK}, timeout=60)
    assert reset.status_code == 200 and reset.json()["observation"]["task_id"] == TASK
    assert reset.json()["done"] is False and _live_episodes(world) == []
    refused = {"unknown": httpx.post(f"{base}/reset", json={"task": TASK, "level": 3}),
               "no task": httpx.post(f"{base}/reset", json={"task": "no-such-task"}),
               "both": httpx.post(f"{base}/reset", json={"task": TASK, "suite": "crm"}),
               "action": httpx.post(f"{base}/step", json={"action": {"tool": "crm_search", "args": {}}})}
    fields = {why: (r.status_code, r.json()["detail"][0]["loc"][-1]) for why, r in refused.items()}
    assert fields == {"unknown": (422, "level"), "no task": (422, "task"), "both": (422, "task"),
                      "action": (422, "args")}
    stateless = httpx.post(f"{base}/step", json={"action": {"tool": "crm_search"}})
    assert stateless.status_code == 409 and "/ws" in stateless.json()["detail"][0]["msg"]


def test_openenv_websocket_refusals_name_the_problem(servers):
    """Raw messages the protocol refuses: answered as OpenEnv's error replies, the session kept."""
    from websockets.sync.client import connect

    world, base = servers
    with connect(base.replace("http", "ws") + "/ws") as ws:
        replies = []
        for message in ["{nope", {"type": "dance"}, {"type": "step", "data": {"tool": "crm_search"}},
                        {"type": "reset", "data": {"task": TASK}},
                        {"type": "step", "data": {"tool": "crm_search", "arguments": {}, "extra": 1}},
                        {"type": "step", "data": {"tool": "crm_search", "arguments": {"text": "globex"}}}]:
            ws.send(message if isinstance(message, str) else json.dumps(message))
            replies.append(json.loads(ws.recv()))
        ws.send(json.dumps({"type": "close"}))
    kinds = [(r["type"], r["data"].get("code")) for r in replies]
    assert kinds == [("error", "INVALID_JSON"), ("error", "UNKNOWN_TYPE"), ("error", "EXECUTION_ERROR"),
                     ("observation", None), ("error", "VALIDATION_ERROR"), ("observation", None)]
    assert "reset first" in replies[2]["data"]["message"] and replies[4]["data"]["field"] == "extra"
    assert replies[5]["data"]["observation"]["result"]
    time.sleep(0.5)  # the server deletes the episode as the socket closes
    assert _live_episodes(world) == []


def test_in_process_world(monkeypatch):
    """Without a world URL the server runs one in its own process (through ASGI, no port)."""
    from fastapi.testclient import TestClient

    from trainers.openenv import build_openenv_app, world_client

    with TestClient(build_openenv_app(world_client(None), task=TASK)) as api:
        reset = api.post("/reset", json={})
        assert reset.status_code == 200 and reset.json()["observation"]["task_id"] == TASK
        with api.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "reset", "data": {}}))
            assert ws.receive_json()["data"]["observation"]["task_id"] == TASK
            for action in oracle_actions(TASK):
                ws.send_text(json.dumps({"type": "step", "data": action}))
                reply = ws.receive_json()["data"]
            assert (reply["done"], reply["reward"]) == (True, 1.0)


def test_sessions_beyond_the_limit_are_refused_and_a_dropped_episode_is_named(servers):
    """Capacity as OpenEnv reports it; an episode the world dropped is a refusal, not the agent's tool error."""
    from websockets.sync.client import connect

    from trainers.openenv import build_openenv_app

    world, _ = servers
    with serve_in_thread(build_openenv_app(AsyncClient(world, TOKEN), task=TASK, max_sessions=1)) as base:
        url = base.replace("http", "ws") + "/ws"
        with connect(url) as first:
            with connect(url) as second:
                refused = json.loads(second.recv())
            assert refused["data"]["code"] == "CAPACITY_REACHED" and refused["data"]["max_sessions"] == 1
            first.send(json.dumps({"type": "reset", "data": {}}))
            json.loads(first.recv())
            [episode] = _live_episodes(world)
            with Client(world, TOKEN) as ow:
                ow.delete(episode["id"])
            first.send(json.dumps({"type": "step", "data": {"tool": "crm_search", "arguments": {"text": "globex"}}}))
            dropped = json.loads(first.recv())
    assert dropped["type"] == "error" and "no longer has this episode" in dropped["data"]["message"]


def test_the_app_openenv_yaml_names_reads_its_settings_from_the_environment(servers, monkeypatch):
    import yaml
    from fastapi.testclient import TestClient

    import trainers.openenv as module

    world, _ = servers
    manifest = yaml.safe_load((ROOT / "trainers" / "openenv.yaml").read_text())
    assert manifest["app"] == "trainers.openenv:app" and manifest["spec_version"] == 1
    monkeypatch.setenv("OFFICEWORLD_SERVER", world)
    monkeypatch.setenv("OFFICEWORLD_TASK", TASK)
    vars(module).pop("app", None)
    try:
        with TestClient(module.app) as api:
            assert api.post("/reset", json={}).json()["observation"]["task_id"] == TASK
    finally:
        vars(module).pop("app", None)
