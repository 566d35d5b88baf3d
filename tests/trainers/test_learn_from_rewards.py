"""The rewards teach: the example script, seeded and short, run as a user runs it. The tool policy's mean
reward and pass@1 rise from their first round, every reward in the curve is a trajectory file's
footer (the world's verifiers), and the curve is drawn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from statistics import mean

import pytest
from surfaces import ROOT

from simulator.trajectories.files import files_in, read

TASKS = ["docs-star-pricing-policy", "mail-star-release-notes"]
ROUNDS, K = 8, 6   # the last two rounds 0.42 against 0.00 in round 0 (seed 0; six rounds reach 0.17)


@pytest.mark.timeout(600)   # 96 rollouts: under 3 minutes on a shared 2-core CPU
def test_mean_reward_and_pass_rate_rise_from_the_worlds_rewards(tmp_path):
    out = tmp_path / "learn"
    argv = [sys.executable, str(ROOT / "examples" / "learn_from_rewards.py"), "--rounds", str(ROUNDS), "--k", str(K),
            "--seed", "0", "--out", str(out), *(arg for t in TASKS for arg in ("--task", t))]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, timeout=580,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout + done.stderr
    rows = json.loads((out / "curve.json").read_text())
    assert [r["round"] for r in rows] == list(range(ROUNDS))
    first, last = rows[0], rows[-2:]
    assert mean(r["reward_mean"] for r in last) >= first["reward_mean"] + 0.3, rows
    assert mean(r["pass@1"] for r in last) >= first["pass@1"] + 0.3, rows

    # Each round's figures are the finished episodes' rewards, as the server recorded them.
    footers: dict[tuple[int, str], list] = {}
    for path in files_in(out / "trajectories"):
        file = read(path)
        assert file.footer is not None and file.footer.reason == "finish"
        footers.setdefault((file.header.meta["round"], file.header.meta["task"]), []).append(file.footer)
    assert sorted(footers) == sorted((r, t) for r in range(ROUNDS) for t in TASKS)
    for row in rows:
        for task in TASKS:
            got = footers[(row["round"], task)]
            assert len(got) == K
            assert row["tasks"][task]["pass@1"] == round(sum(bool(f.passed) for f in got) / K, 4)
            assert row["tasks"][task]["reward_mean"] == round(mean(f.total or 0.0 for f in got), 4)
    assert (out / "learning-curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"round {ROUNDS - 1:>3}" in done.stdout


def test_the_same_rounds_run_through_an_openai_compatible_endpoint(tmp_path):
    """``--model``: the rounds go through the agent runner; the curve is the endpoint's, from finish's rewards.
    The scripted endpoint solves the task on sample 0 (the oracle's call) and answers in words on sample 1."""
    from fastapi import FastAPI

    from simulator.service.serve import serve_in_thread
    from simulator.store.episodes import EpisodeStore
    from simulator.tasks.catalog import task_catalog
    from tasks.refs import resolve

    task = "crm-close-globex-renewal"
    catalog = task_catalog(EpisodeStore(trajectory_dir=None))
    oracle = catalog.tasks[task].oracle[0]
    fix = json.dumps(resolve(oracle.args, catalog.start(task).scope))
    script = [("crm_update_opportunity", fix), ("task_submit_answer", '{"answer": "Done"}')]
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(body: dict):
        turn = sum(m["role"] == "assistant" for m in body["messages"])
        if body.get("seed") != 0:
            return {"choices": [{"index": 0, "message": {"role": "assistant", "content": "No."}}]}
        name, arguments = script[turn]
        call = {"id": "c", "type": "function", "function": {"name": name, "arguments": arguments}}
        return {"choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}

    out = tmp_path / "endpoint"
    with serve_in_thread(app) as url:
        argv = [sys.executable, str(ROOT / "examples" / "learn_from_rewards.py"), "--model", f"{url}/v1",
                "--rounds", "2", "--k", "2", "--task", task, "--out", str(out)]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, timeout=280,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout + done.stderr
    rows = json.loads((out / "curve.json").read_text())
    assert [(r["round"], r["pass@1"], r["reward_mean"]) for r in rows] == [(0, 0.5, 0.5), (1, 0.5, 0.5)]
    assert rows[0]["tasks"][task]["pass@1"] == 0.5
    assert (out / "learning-curve.png").is_file() and len(files_in(out / "trajectories")) == 4
