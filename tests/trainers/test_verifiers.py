"""The verifiers v1 taskset (trainers/verifiers_taskset) as its users run it: the real ``vf-validate`` and
``vf-eval`` from the side venv (verifiers pins another MCP SDK), as subprocesses, against a world served on
loopback and, for ``vf-eval``, a scripted OpenAI-compatible model that solves one task and fails another."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from surfaces import CONTROL, ROOT, TOKEN

from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from simulator.trajectories.export import SYSTEM_PROMPT
from tasks.loader import SUITES_DIR
from tasks.refs import resolve

SIDE = ROOT / ".venv-side" / "bin"
PACKAGE = ROOT / "trainers" / "verifiers_taskset"
SOLVED, FAILED, BROKEN = "crm-close-globex-renewal", "crm-answer-largest-open-deal", "crm-close-globex-broken-oracle"


@pytest.fixture(scope="module")
def side() -> Path:
    if not (SIDE / "vf-eval").exists():
        reason = f"no side venv with verifiers at {SIDE.parent} (./dev.sh builds it from trainers/side-requirements.txt)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason)
        pytest.skip(reason)
    return SIDE


@pytest.fixture(scope="module")
def suites(tmp_path_factory) -> Path:
    """Two shipped tasks and a copy of one whose oracle is wrong (a gold check must catch it)."""
    root = tmp_path_factory.mktemp("suites")
    (root / "crm").mkdir()
    for name in ("close-globex-renewal.yaml", "answer-largest-open.yaml"):
        shutil.copy(SUITES_DIR / "crm" / name, root / "crm" / name)
    text = (SUITES_DIR / "crm" / "close-globex-renewal.yaml").read_text()
    broken = text.replace(f"id: {SOLVED}", f"id: {BROKEN}").replace("stage: Closed Won, close_date: $today",
                                                                    "stage: Closed Won, close_date: '2025-01-02'")
    assert broken.count("2025-01-02") == 1
    (root / "crm" / "broken.yaml").write_text(broken)
    return root


@pytest.fixture(scope="module")
def world(suites, tmp_path_factory):
    store = EpisodeStore(cache_dir=tmp_path_factory.mktemp("world-cache"), trajectory_dir=None)
    catalog = task_catalog(store, suites)
    with serve_in_thread(build_app(store, catalog)) as url:
        yield url, catalog, store


def _sse(message: dict) -> str:
    delta = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(message["tool_calls"])]
    chunk = {"id": "s", "object": "chat.completion.chunk", "created": 0, "model": "scripted"}
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    events = [{**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
              {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
              {**chunk, "choices": [], "usage": usage}]
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"


def scripted_model(plans: dict[str, list[tuple[str, dict]]], seen: list) -> FastAPI:
    """Per task (found by a phrase of its prompt), its tool calls one per turn, then a reply without tools."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(body: dict):
        messages = body["messages"]
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        plan = next(calls for phrase, calls in plans.items() if phrase in prompt)
        turn = sum(m["role"] == "assistant" for m in messages)
        seen.append({"phrase": next(p for p in plans if p in prompt), "turn": turn,
                     "system": messages[0]["content"] if messages[0]["role"] == "system" else None,
                     "tools": {t["function"]["name"] for t in body.get("tools") or []},
                     "results": [m["content"] for m in messages if m["role"] == "tool"]})
        if turn < len(plan):
            name, arguments = plan[turn]
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call{turn}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}
        else:
            message = {"role": "assistant", "content": "Done."}
        if body.get("stream"):
            return StreamingResponse(iter([_sse(message)]), media_type="text/event-stream")
        return {"id": "s", "object": "chat.completion", "created": 0, "model": "scripted",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
    return app


def _vf(side: Path, tool: str, world_url: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE), "OFFICEWORLD_TOKEN": TOKEN, "SCRIPTED_KEY": "unused",
           "VIRTUAL_ENV": str(side.parent), "PATH": f"{side}{os.pathsep}{os.environ['PATH']}"}
    argv = [str(side / tool), "officeworld-verifiers", f"--{'env.' if tool == 'vf-eval' else ''}taskset.task.world-url",
            world_url, *args]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    assert done.returncode == 0, f"{tool} failed:\n{done.stdout[-4000:]}\n{done.stderr[-6000:]}"
    return done


def test_the_system_prompt_is_the_runners():
    tree = ast.parse((PACKAGE / "officeworld_verifiers" / "taskset.py").read_text())
    value = next(n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "SYSTEM_PROMPT")
    assert ast.literal_eval(value) == SYSTEM_PROMPT


def test_vf_validate_runs_gold_and_noop_and_catches_a_wrong_oracle(side, world, tmp_path):
    url, _, _ = world
    _vf(side, "vf-validate", url, ["--taskset.suite", "crm", "-o", str(tmp_path),
                                   "--run.dir", "validate", "--runtime.type", "subprocess", "--no-rich"], tmp_path)
    rows = {r["name"]: r for r in map(json.loads, (tmp_path / "validate" / "results.jsonl").read_text().splitlines())}
    assert set(rows) == {SOLVED, FAILED, BROKEN}
    for task in (SOLVED, FAILED):
        assert (rows[task]["gold"]["reason"], rows[task]["noop"]["reason"]) == ("valid", "valid"), rows[task]
        assert rows[task]["noop"]["reward"] == 0.0 and rows[task]["valid"] is True
    assert rows[BROKEN]["gold"]["reason"] == "invalid" and rows[BROKEN]["valid"] is False
    summary = json.loads((tmp_path / "validate" / "summary.json").read_text())
    assert summary["outcomes"]["valid"] == 2 and summary["outcomes"]["invalid"] == 1
    left = httpx.get(f"{url}/v1/episodes", headers=CONTROL).json()
    assert left == [], "every episode a check opened is deleted"


def test_vf_eval_reports_the_rewards_the_world_graded(side, world, tmp_path):
    url, catalog, store = world
    run = catalog.start(SOLVED)  # the oracle's arguments, resolved: what a policy that knows the answer sends
    fix = [(c.op.replace(".", "_"), resolve(c.args, run.scope)) for c in catalog.tasks[SOLVED].oracle]
    store.delete(run.episode.id)
    plans = {"Globex renewal": [("crm_search", {"text": "globex renewal"}), *fix,
                                ("task_submit_answer", {"answer": "Marked it Closed Won"})],
             "largest amount": [("task_submit_answer", {"answer": "Nothing Such Inc"})]}
    seen: list = []
    with serve_in_thread(scripted_model(plans, seen)) as model:
        _vf(side, "vf-eval", url, ["--env.taskset.tasks", json.dumps([SOLVED, FAILED]),
                                   "--env.taskset.task.keep-episodes", "true", "--model", "scripted",
                                   "--client.base-url", f"{model}/v1", "--client.api-key-var", "SCRIPTED_KEY",
                                   "--env.agent.runtime.type", "subprocess", "-r", "2", "-o", str(tmp_path),
                                   "--run.name", "eval", "--no-push", "--no-rich"],
            tmp_path)
    lines = (tmp_path / "eval" / "traces.jsonl").read_text().splitlines()
    traces = [trace for line in lines for trace in json.loads(line)["traces"]]
    assert sorted(t["task"]["data"]["id"] for t in traces) == sorted([SOLVED, SOLVED, FAILED, FAILED])
    episodes = [t["info"]["officeworld"]["episode"] for t in traces]
    assert len(set(episodes)) == 4, "each rollout has its own episode"
    for trace, episode in zip(traces, episodes):
        task = trace["task"]["data"]["id"]
        assert trace["ok"] and not trace["errors"], trace["errors"]
        world_reward = httpx.post(f"{url}/v1/episodes/{episode}/finish", headers=CONTROL, timeout=60).json()
        assert trace["rewards"]["world"]["score"] == world_reward["total"] == (1.0 if task == SOLVED else 0.0)
        assert trace["metrics"]["passed"] == float(world_reward["passed"])
        assert trace["metrics"]["criterion/no_collateral_damage"] == 1.0
        # The world recorded this rollout's calls, and only them, through the episode's MCP endpoint.
        steps = httpx.get(f"{url}/v1/episodes/{episode}/trajectory", headers=CONTROL).json()["steps"]
        plan = plans["Globex renewal" if task == SOLVED else "largest amount"]
        calls = [(s["surface"], f"{s['app']}_{s['operation']}") for s in steps if s["surface"] != "setup"]
        assert calls == [("mcp", name) for name, _ in plan]
    assert {s["phrase"] for s in seen} == set(plans) and all(s["system"] == SYSTEM_PROMPT for s in seen)
    # The episode's MCP offers the task's apps' tools (crm) and the answer, not every app's.
    assert all({"crm_search", "task_submit_answer"} <= s["tools"] and "mail_send" not in s["tools"] for s in seen)
    after_update = [s["results"][1] for s in seen if s["phrase"] == "Globex renewal" and s["turn"] == 2]
    assert len(after_update) == 2 and all("Closed Won" in r and "error" not in r.lower() for r in after_update)


def failing_model() -> FastAPI:
    """A model endpoint that refuses every request: each rollout fails before its task's ``finalize``."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(body: dict):
        from fastapi.responses import JSONResponse
        return JSONResponse({"error": {"message": "model not loaded", "type": "invalid_request_error"}}, 400)
    return app


def test_failed_rollouts_leave_no_episode_open(side, world, tmp_path):
    url, _, _ = world
    with serve_in_thread(failing_model()) as model:
        _vf(side, "vf-eval", url, ["--env.taskset.tasks", json.dumps([SOLVED, FAILED]), "--model", "down",
                                   "--client.base-url", f"{model}/v1", "--client.api-key-var", "SCRIPTED_KEY",
                                   "--env.agent.runtime.type", "subprocess", "--env.agent.max-turns", "5",
                                   "-r", "2", "-o", str(tmp_path), "--run.name", "down", "--no-push", "--no-rich"],
            tmp_path)
    lines = (tmp_path / "down" / "traces.jsonl").read_text().splitlines()
    traces = [trace for line in lines for trace in json.loads(line)["traces"]]
    assert len(traces) == 4 and not any(t["ok"] for t in traces), "every rollout failed"
    assert all(t["info"]["officeworld"]["episode"] for t in traces), "each had opened its episode"
    left = {e["id"] for e in httpx.get(f"{url}/v1/episodes", headers=CONTROL).json()}
    assert not left & {t["info"]["officeworld"]["episode"] for t in traces}, "and none is left open"
