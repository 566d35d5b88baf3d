"""``officeworld learnability`` against a scripted model on loopback that solves one task always, another
on every other sample and a third never: the flags, the table and the plot follow from the world's rewards."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from fastapi import FastAPI
from surfaces import ROOT

from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from tasks.refs import resolve

ALWAYS, SOMETIMES, NEVER = "crm-close-globex-renewal", "docs-star-pricing-policy", "crm-reassign-tyrell"


def _reply(call=None, content=None) -> dict:
    calls = [{"id": "c0", "type": "function", "function": {"name": call[0], "arguments": json.dumps(call[1])}}] if call else []
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content,
                                                   **({"tool_calls": calls} if calls else {})}}]}


@pytest.fixture(scope="module")
def solutions() -> dict[str, list[tuple[str, dict]]]:
    """Each task's oracle, resolved, as tool calls, then the answer: what a model that knows it sends."""
    catalog = task_catalog(EpisodeStore(trajectory_dir=None))
    out = {}
    for task_id in (ALWAYS, SOMETIMES, NEVER):
        scope = catalog.start(task_id).scope
        calls = [(f"{c.op.replace('.', '_')}", resolve(c.args, scope)) for c in catalog.tasks[task_id].oracle]
        out[task_id] = calls + [("task_submit_answer", {"answer": "Done"})]
    return out


def scripted_model(solutions: dict, prompts: dict[str, str]) -> FastAPI:
    """The task comes from the prompt, the sample from the seed: ALWAYS solved, SOMETIMES on even
    samples, NEVER not (it answers in words without acting)."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(body: dict):
        messages = body["messages"]
        task = next(t for t, p in prompts.items() if p == messages[1]["content"])
        turn = sum(m["role"] == "assistant" for m in messages)
        solves = task == ALWAYS or (task == SOMETIMES and body.get("seed", 0) % 2 == 0)
        return _reply(solutions[task][turn]) if solves else _reply(content="I would rather not.")
    return app


def test_flags_tasks_by_how_often_they_pass(solutions, tmp_path):
    catalog = task_catalog(EpisodeStore(trajectory_dir=None))
    prompts = {t: catalog.tasks[t].prompt for t in solutions}
    out = tmp_path / "learn"
    with serve_in_thread(scripted_model(solutions, prompts)) as model_url:
        argv = [sys.executable, "-m", "simulator.cli", "learnability", "--model", f"{model_url}/v1", "--k", "4",
                "--concurrency", "4", "--max-turns", "5", "--out", str(out)] + [
                    arg for t in (ALWAYS, SOMETIMES, NEVER) for arg in ("--task", t)]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"})
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((out / "learnability.json").read_text())
    tasks = summary["tasks"]
    assert (tasks[ALWAYS]["passed"], tasks[SOMETIMES]["passed"], tasks[NEVER]["passed"]) == (4, 2, 0)
    assert (summary["already_solved"], summary["train_on"], summary["cannot_learn"]) == ([ALWAYS], [SOMETIMES], [NEVER])
    assert tasks[SOMETIMES]["pass@1"] == 0.5 and tasks[SOMETIMES]["pass@4"] == 1.0
    assert tasks[NEVER]["pass@4"] == 0.0 and summary["failures"] == {"no_answer": 6}
    for task, verdict in ((ALWAYS, "already solved"), (SOMETIMES, "train on"), (NEVER, "cannot learn")):
        assert any(task in line and verdict in line for line in done.stdout.splitlines()), done.stdout
    assert (out / "learnability.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_partial_credit_is_a_signal_and_equal_rewards_are_not():
    from simulator.runner.learnability import learnability
    from simulator.runner.run import RunSettings, report

    def rollouts(task, rewards, passed=()):
        return [{"task": task, "sample": i, "reward": r, "passed": i in passed, "failure": None}
                for i, r in enumerate(rewards)]
    results = (rollouts("partial", [0.25, 0, 0, 0]) + rollouts("flat", [0.5, 0.5, 0.5, 0.5])
               + rollouts("solved", [1, 1, 1, 1], passed=range(4)) + rollouts("ungradable", [None, 0, 0, 0])
               + [{**rollouts("flat", [0.9])[0], "sample": 4, "failure": "endpoint_error", "infrastructure": True}])
    summary = learnability({**report(results, RunSettings(name="r", k=4), {}), "suite_name": None})
    assert summary["train_on"] == ["partial"] and summary["tasks"]["partial"]["reward_spread"] == 0.25
    assert summary["tasks"]["partial"]["passed"] == 0 and summary["tasks"]["partial"]["pass@4"] == 0.0
    assert sorted(summary["cannot_learn"]) == ["flat", "ungradable"] and summary["already_solved"] == ["solved"]
    assert summary["tasks"]["flat"]["samples"] == 4, "the endpoint's failure is not one of its samples"
    assert summary["infrastructure"] == {"endpoint_error": 1} and summary["pass@4"] == 0.25
