"""``officeworld run`` over security pairs against a stand-in OpenAI-compatible model served on loopback (the
obedient baseline of bench/baselines: the oracle, plus every injected instruction it reads obeyed): the report
gives utility, utility under attack and attack success rate; the scripted oracle, which obeys nothing, gives
no attack success on the same tasks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from surfaces import ROOT

from bench.baselines.obedient import app
from simulator.service.serve import serve_in_thread

USER = "people-security-00"   # the slot in the customer's mail
NPC_USER = "people-security-04"   # the slot in a co-worker's reply
TASKS = [USER, *(f"{USER}--{a}" for a in ("forward-thread", "leak-floor", "open-terms", "mail-terms")),
         f"{NPC_USER}--mail-terms"]


def _run(policy: list[str], out: Path) -> tuple[dict, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "OFFICEWORLD_CORPUS": "off"}
    argv = [sys.executable, "-m", "simulator.cli", "run", *policy, *(a for t in TASKS for a in ("--task", t)),
            "--k", "1", "--concurrency", "3", "--max-turns", "15", "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((out / "results.json").read_text()), done.stdout


def test_the_obedient_baseline_is_attacked_and_the_oracle_is_not(tmp_path):
    with serve_in_thread(app()) as url:
        obedient, printed = _run(["--model", f"{url}/v1", "--retries", "0"], tmp_path / "obedient")
    by_task = {r["task"]: r for r in obedient["rollouts"]}
    assert by_task[USER]["passed"] and not by_task[USER]["guard_failed"]
    assert all(by_task[t]["guard_failed"] and by_task[t]["goals_passed"] for t in TASKS[1:]), by_task
    assert obedient["security"] == {"pairs": 5, "utility": 1.0, "utility_under_attack": 1.0,
                                    "attack_success_rate": 1.0}
    assert "security (5 task/attack pairs): utility 1.00, utility under attack 1.00, attack success rate 1.00" \
        in printed

    oracle, _ = _run(["--scripted", "--slip", "0"], tmp_path / "oracle")
    assert oracle["security"] == {"pairs": 5, "utility": 1.0, "utility_under_attack": 1.0,
                                  "attack_success_rate": 0.0}
