"""NeMo Gym's resources server (``trainers.nemo_gym``) driven by NeMo Gym's own ``SimpleAgent`` and ``ServerClient``
(nemo-gym 0.4.0) against a world on loopback, with a stand-in model server: the world's reward at verify, a
rollout that calls nothing, a world that is down kept apart from rewards, and no episode left open.

nemo-gym pins MCP SDK 1.x and needs Python >= 3.12, so it runs in a venv of its own: ``.venv-nemo`` (``./dev.sh
setup --trainers`` makes it) or ``$OFFICEWORLD_NEMO_PYTHON``; without one these tests are skipped. The driver,
``nemo_gym_driver.py``, runs there and reports what happened as JSON; the assertions are here."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from surfaces import ROOT, TOKEN
from trainer_oracles import oracle_actions

from simulator.gateway.client import Client
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore

TASK = "crm-close-globex-renewal"
DRIVER = Path(__file__).with_name("nemo_gym_driver.py")


def _nemo_python() -> str:
    python = os.environ.get("OFFICEWORLD_NEMO_PYTHON") or str(ROOT / ".venv-nemo" / "bin" / "python")
    if not Path(python).exists() or subprocess.run([python, "-c", "import nemo_gym"], capture_output=True).returncode:
        pytest.skip(f"nemo-gym needs its own Python 3.12 venv ({python}; ./dev.sh setup --trainers makes it)")
    return python


@pytest.fixture(scope="module")
def report():
    python = _nemo_python()
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token=TOKEN)) as world:
        scenario = json.dumps({"task": TASK, "calls": oracle_actions(TASK)})
        done = subprocess.run([python, str(DRIVER), world, TOKEN, scenario], capture_output=True, text=True,
                              timeout=240, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr[-3000:]
        with Client(world, TOKEN) as ow:
            left = ow.episodes()
    yield {**json.loads(done.stdout.strip().splitlines()[-1]), "left_in_world": left}


def test_nemo_gyms_agent_earns_the_worlds_reward_at_verify(report):
    run = report["agent"]
    assert run["status"] == 200 and run["task_id"] == TASK
    assert run["calls"] == [call["tool"] for call in oracle_actions(TASK)]
    assert run["reward"] == 1.0 and run["passed"] and run["gradable"]
    assert report["open_after_agent"] == 0, "verify deleted the episode"


def test_a_rollout_that_calls_no_tool_scores_zero(report):
    run = report["idle_agent"]
    assert run["status"] == 200 and run["calls"] == []
    assert run["reward"] == 0.0 and not run["passed"] and run["gradable"]
    assert report["open_after_idle_agent"] == 0


def test_a_world_that_is_down_fails_the_rollout_instead_of_scoring_it(report):
    assert report["broken_seed"]["status"] == 502 and "the world failed: ConnectError" in report["broken_seed"]["body"]
    run = report["broken_agent"]
    assert run["status"] >= 500 and run["reward"] is None, "NeMo's agent raises on the 502: an error, not a 0"


def test_the_rows_tools_are_the_tasks_apps_in_the_responses_form(report):
    tools = report["row_tools"]
    assert "crm_search" in tools and "task_submit_answer" in tools
    assert not any(name.startswith("mail_") for name in tools)


def test_no_episode_outlives_the_server(report):
    assert report["unseeded_call"] == 400, "a tool call before seed_session is refused"
    assert report["seeded"] == 200 and report["open_before_shutdown"] == 1, "a rollout whose verify never came"
    assert report["open_after_shutdown"] == 0 and report["left_in_world"] == [], "shutdown deleted it"
