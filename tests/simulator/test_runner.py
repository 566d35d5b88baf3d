"""The agent runner against a scripted OpenAI-compatible model served on loopback: successes, tool
errors, malformed tool calls, an endpoint timeout (not scored), a context overflow and a broken reply,
and a resumed run."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from surfaces import ROOT

from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from simulator.trajectories.files import files_in, read
from tasks.refs import resolve

TASK = "crm-close-globex-renewal"


def _reply(*calls, content=None) -> dict:
    tool_calls = [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}}
                  for i, (n, a) in enumerate(calls)]
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content,
                                                   **({"tool_calls": tool_calls} if tool_calls else {})}}]}


def scripted_model(update: dict, seen: list) -> FastAPI:
    """Seed (the rollout's sample index) picks the script; the turn is the number of assistant messages so far."""
    fix = json.dumps(update)
    submit = ("task_submit_answer", json.dumps({"answer": "Marked the Globex renewal Closed Won"}))
    scripts = {
        0: [_reply(("crm_search", '{"text": "globex renewal"}')), _reply(("crm_update_opportunity", fix)), _reply(submit)],
        1: [_reply(("crm_update_opportunity", "{not json"), ("crm_teleport", "{}")),
            _reply(("crm_update_opportunity", fix)), _reply(submit)],
        2: [_reply(("crm_update_opportunity", '{"opportunity_id": 999999999, "stage": "Closed Won"}')),
            _reply(content="I could not do it.")],
    }
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(body: dict):
        seed, messages = body.get("seed", 0), body["messages"]
        turn = sum(m["role"] == "assistant" for m in messages)
        replies = [m["content"] for m in messages[-3:] if m["role"] == "tool"]
        seen.append({"seed": seed, "turn": turn, "tools": len(body["tools"]), "last_tool": " ".join(replies)})
        if seed == 3:   # past the run's --timeout: an endpoint timeout, however slow the machine (the others
            await asyncio.sleep(12)   # answer at once; the timeout leaves them 8 s, a loaded box's worst by far)
        if seed == 4:
            return JSONResponse({"error": {"code": "context_length_exceeded",
                                           "message": "This model's maximum context length is 8 tokens"}}, 400)
        if seed == 5:
            return {"nope": True}
        return scripts[seed][turn]
    return app


@pytest.fixture(scope="module")
def update() -> dict:
    """The oracle's resolved arguments: what a policy that knows the answer sends."""
    catalog = task_catalog(EpisodeStore(trajectory_dir=None))
    run = catalog.start(TASK)
    return resolve(catalog.tasks[TASK].oracle[0].args, run.scope)


def _run(model_url: str, out: Path, k: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    argv = [sys.executable, "-m", "simulator.cli", "run", "--model", f"{model_url}/v1", "--task", TASK, "--k", str(k),
            "--concurrency", "6", "--timeout", "8", "--retries", "0", "--max-turns", "5", "--out", str(out)]
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


def test_failures_count_against_the_policy_and_an_interrupted_run_resumes(update, tmp_path):
    seen: list = []
    out = tmp_path / "run"
    with serve_in_thread(scripted_model(update, seen)) as model_url:
        first = _run(model_url, out, k=4)
        assert first.returncode == 0, first.stdout + first.stderr
        results = json.loads((out / "results.json").read_text())
        by_sample = {r["sample"]: r for r in results["rollouts"]}
        assert [by_sample[s]["passed"] for s in range(4)] == [True, True, False, False]
        assert by_sample[1]["counts"] == {"malformed_tool_call": 2}
        assert (by_sample[2]["failure"], by_sample[2]["counts"]) == ("no_answer", {"tool_error": 1})
        assert by_sample[3]["failure"] == "endpoint_timeout" and by_sample[3]["infrastructure"]
        assert any(s["seed"] == 2 and s["turn"] == 1 and "not_found" in s["last_tool"] for s in seen)
        malformed = next(s["last_tool"] for s in seen if s["seed"] == 1 and s["turn"] == 1)
        assert "not valid JSON" in malformed and "no tool named 'crm_teleport'" in malformed
        assert all(s["tools"] > 10 for s in seen)

        # Kill the record of sample 0 mid-way (its footer lost): the next run redoes it, and the new samples.
        files = {read(p).header.meta["sample"]: p for p in files_in(out / "trajectories")}
        assert len(files) == 4 and {s: read(p).footer.reason for s, p in files.items()} == {
            0: "finish", 1: "finish", 2: "finish", 3: "delete"}   # the endpoint's timeout: deleted ungraded
        lines = files[0].read_text().splitlines()
        files[0].write_text("\n".join(lines[:-1]) + "\n")
        seen.clear()
        second = _run(model_url, out, k=6)
        assert second.returncode == 0, second.stdout + second.stderr
    assert {s["seed"] for s in seen} == {0, 3, 4, 5}, "the endpoint's timeout is run again on resume"
    results = json.loads((out / "results.json").read_text())
    failures = {r["sample"]: r["failure"] for r in results["rollouts"]}
    assert failures == {0: None, 1: None, 2: "no_answer", 3: "endpoint_timeout", 4: "context_overflow",
                        5: "model_error"}
    assert results["infrastructure"] == {"endpoint_timeout": 1}, "a timeout is the endpoint's, not scored"
    metrics = results["tasks"][TASK]
    assert (metrics["samples"], metrics["passed"], metrics["pass@1"], metrics["pass@6"], metrics["pass^6"]) == (
        5, 2, 0.4, 1.0, 0.0)
    assert results["learnable"] == [TASK] and results["suite"]["pass@1"] == 0.4
    assert TASK in second.stdout and "learnable" in second.stdout
