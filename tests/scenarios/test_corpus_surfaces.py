"""The corpus where users meet it: GET /v1/tasks by split, family and difficulty (a bad split is a shaped
422), and the officeworld tasks list / corpus / export commands, run as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from fastapi.testclient import TestClient
from surfaces import CONTROL, ROOT, TOKEN

from simulator.gateway.server import build_app
from simulator.store.episodes import EpisodeStore


def test_the_control_api_lists_the_corpus_by_split_family_and_difficulty(monkeypatch):
    monkeypatch.setenv("OFFICEWORLD_CORPUS", "acme:2")
    with TestClient(build_app(EpisodeStore(), token=TOKEN)) as api:
        every = api.get("/v1/tasks", headers=CONTROL).json()
        generated = [t for t in every if t["family"]]
        assert generated and all(t["split"] in ("train", "validation", "test") for t in every)
        assert all("criteria" not in t and "oracle" not in t and "bindings" not in t for t in every)
        family = generated[0]["family"]
        only = api.get(f"/v1/tasks?family={family}&split={generated[0]['split']}", headers=CONTROL).json()
        assert only and {t["family"] for t in only} == {family}
        hard = api.get("/v1/tasks?difficulty=hard", headers=CONTROL).json()
        assert hard and all(t["difficulty"] == "hard" and t["figures"]["oracle_calls"] for t in hard)
        bad = api.get("/v1/tasks?split=holdout", headers=CONTROL)
        assert bad.status_code == 422 and bad.json()["error"]["field"] == "split"


def _ow(*args: str, corpus: str = "acme:1") -> subprocess.CompletedProcess:
    env = {**os.environ, "OFFICEWORLD_CORPUS": corpus}
    return subprocess.run([sys.executable, "-m", "simulator.cli", "tasks", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)


def test_the_tasks_commands_list_report_and_export_the_corpus(tmp_path):
    listed = _ow("list", "--split", "train")
    assert listed.returncode == 0, listed.stderr[-500:]
    assert "crm-pipeline-total-acme-0000" in listed.stdout
    held = _ow("corpus")
    assert held.returncode == 0 and json.loads(held.stdout)["held"]["tasks"] >= 4
    out = tmp_path / "train.jsonl"
    done = _ow("export", str(out), "--split", "train")
    assert done.returncode == 0, done.stderr[-500:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and {"id", "world", "split", "prompt", "apps", "difficulty", "figure_oracle_calls"} <= set(rows[0])
    assert all(r["split"] == "train" for r in rows) and not any("oracle" in r for r in rows)
    wrong = _ow("list", corpus="acme")
    assert wrong.returncode == 1 and "OFFICEWORLD_CORPUS: 'acme' is not WORLD:COUNT" in wrong.stderr
