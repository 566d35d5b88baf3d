"""The runner and a model endpoint that is down, then fails, then recovers: the endpoint's failures are kept
apart from the policy's (retried, not scored, run again on resume); no rollout leaves its episode open."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from surfaces import ROOT, TOKEN

from simulator.gateway.client import AsyncClient
from simulator.gateway.server import build_app
from simulator.runner.run import RunSettings, run_rollouts
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from simulator.trajectories.files import files_in, read
from tasks.refs import resolve

TASK = "crm-close-globex-renewal"


@pytest.fixture(scope="module")
def solution() -> list[dict]:
    """The oracle's calls, then the answer, as one assistant reply each."""
    catalog = task_catalog(EpisodeStore(trajectory_dir=None))
    scope = catalog.start(TASK).scope
    calls = [(c.op.replace(".", "_"), resolve(c.args, scope)) for c in catalog.tasks[TASK].oracle]
    calls.append(("task_submit_answer", {"answer": "Closed Won"}))
    return [_reply([{"id": "c0", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}])
            for n, a in calls]


def _reply(tool_calls) -> dict:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": tool_calls}}]}


def flaky_model(solution: list[dict], seen: list) -> FastAPI:
    """Seeds 0 and 1: a 503 on their first request, then the solution. Seed 2: a 500 every time. Seed 3: first
    ``tool_calls`` as a string (one malformed call), then the solution."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(body: dict):
        seed, messages = body.get("seed", 0), body["messages"]
        turn = sum(m["role"] == "assistant" for m in messages)
        seen.append((seed, turn))
        if seed == 2 or (seed in (0, 1) and seen.count((seed, 0)) == 1):
            return JSONResponse({"error": {"message": "overloaded"}}, 503 if seed != 2 else 500)
        if seed == 3:
            if turn == 0:
                return _reply('[{"name": "crm_search", "arguments": {"text": "globex"}}]')
            return solution[turn - 1]
        return solution[turn]
    return app


def _run(port: int, out: Path, k: int, retries: int) -> dict:
    argv = [sys.executable, "-m", "simulator.cli", "run", "--model", f"http://127.0.0.1:{port}/v1", "--task", TASK,
            "--k", str(k), "--retries", str(retries), "--backoff", "0", "--timeout", "30", "--max-turns", "6",
            "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"})
    assert done.returncode == 0, done.stdout + done.stderr
    return {"results": json.loads((out / "results.json").read_text()), "stdout": done.stdout}


def test_an_endpoint_down_is_not_scored_and_a_resumed_run_retries_it(solution, tmp_path):
    with socket.socket() as sock:   # a port nothing listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    out = tmp_path / "run"
    down = _run(port, out, k=2, retries=1)["results"]
    assert down["tasks"] == {} and down["failures"] == {}, "nothing is held against the policy"
    assert down["infrastructure"] == {"endpoint_unreachable": 2}
    assert all(r["infrastructure"] and r["reward"] is None for r in down["rollouts"])
    footers = [read(p).footer.reason for p in files_in(out / "trajectories")]
    assert footers == ["delete", "delete"], "ungraded: the episodes were deleted, not finished"

    seen: list = []
    with serve_in_thread(flaky_model(solution, seen), port=port):
        back = _run(port, out, k=4, retries=2)
    results = back["results"]
    by_sample = {r["sample"]: r for r in results["rollouts"]}
    assert [by_sample[s]["passed"] for s in (0, 1, 3)] == [True, True, True]
    assert seen.count((0, 0)) == 2 and seen.count((1, 0)) == 2, "a 503 is tried again"
    assert seen.count((2, 0)) == 3 and by_sample[2]["failure"] == "endpoint_error" and by_sample[2]["infrastructure"]
    assert by_sample[3]["counts"] == {"malformed_tool_call": 1}, "tool_calls as a string is one malformed call"
    assert results["infrastructure"] == {"endpoint_error": 1}
    assert results["failures"] == {"malformed_tool_call": 1}
    assert results["tasks"][TASK]["samples"] == 3 and results["tasks"][TASK]["passed"] == 3
    assert "lost to the infrastructure" in back["stdout"] and "endpoint_error 1" in back["stdout"]


class Broken:
    """A policy with a bug: it raises on its second turn."""

    def __init__(self, solution):
        self.solution = solution

    async def reply(self, http, messages, tools, *, task, sample):
        turn = sum(m["role"] == "assistant" for m in messages)
        if turn == 1:
            raise RuntimeError("a bug in the policy")
        return self.solution[turn]["choices"][0]["message"]

    def describe(self):
        return {"model": "broken"}


class Stuck:
    """A policy that never answers (a hung generation): the run is cancelled around it."""

    def __init__(self):
        self.waiting = 0

    async def reply(self, http, messages, tools, *, task, sample):
        self.waiting += 1
        await asyncio.Event().wait()

    def describe(self):
        return {"model": "stuck"}


def test_no_rollout_leaves_its_episode_open_on_an_error_or_a_cancellation(solution, tmp_path):
    async def main(url: str) -> None:
        async with AsyncClient(url, TOKEN) as ow:
            settings = RunSettings(name="broken", k=3, concurrency=3, max_turns=5)
            results = await run_rollouts(ow, Broken(solution), [TASK], settings, tmp_path / "a", None)
            assert {r["failure"] for r in results} == {"runner_error"}
            assert await ow.episodes() == []

            stuck = Stuck()
            settings = RunSettings(name="stuck", k=3, concurrency=3, max_turns=5)
            run = asyncio.create_task(run_rollouts(ow, stuck, [TASK], settings, tmp_path / "b", None))
            while stuck.waiting < 3:
                await asyncio.sleep(0.05)
            assert len(await ow.episodes()) == 3
            run.cancel()
            with pytest.raises(asyncio.CancelledError):
                await run
            assert await ow.episodes() == []

    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token=TOKEN)) as url:
        asyncio.run(main(url))
