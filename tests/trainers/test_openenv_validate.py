"""The OpenEnv server against OpenEnv's own validator (``openenv validate --url``, openenv 0.10, the version
``pip install openenv`` gives), and its ``POST /mcp`` JSON-RPC endpoint driven as OpenEnv's clients do.

openenv 0.10 cannot share the side venv (verifiers pins openenv 0.4): the validator is the ``openenv`` command
at ``$OFFICEWORLD_OPENENV_CLI`` or ``.venv-openenv/bin/openenv`` (``python -m venv .venv-openenv &&
.venv-openenv/bin/pip install openenv==0.10.0``); without one the validator test is skipped."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx
import pytest
from surfaces import ROOT, TOKEN
from trainer_oracles import oracle_actions

from simulator.gateway.client import AsyncClient, Client
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from trainers.openenv import build_openenv_app

TASK = "crm-close-globex-renewal"


@pytest.fixture(scope="module")
def servers():
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token=TOKEN)) as world:
        with serve_in_thread(build_openenv_app(AsyncClient(world, TOKEN), task=TASK)) as openenv:
            yield world, openenv


def _validator() -> str:
    cli = os.environ.get("OFFICEWORLD_OPENENV_CLI") or str(ROOT / ".venv-openenv" / "bin" / "openenv")
    if not Path(cli).exists():
        pytest.skip(f"no openenv 0.10 validator at {cli} (set OFFICEWORLD_OPENENV_CLI)")
    return cli


def test_openenvs_own_validator_passes_the_running_server(servers):
    _, openenv = servers
    done = subprocess.run([_validator(), "validate", "--url", openenv, "--json"], capture_output=True, text=True,
                          timeout=120)
    report = json.loads(done.stdout)
    failed = [c for c in report["criteria"] if not c["passed"]]
    assert report["passed"] and not failed and done.returncode == 0, json.dumps(failed, indent=1)
    assert report["mode"] == "simulation" and {c["id"] for c in report["criteria"]} >= {"mcp_endpoint", "schema_endpoint"}


def _rpc(url: str, method: str, request_id: int = 1, **params) -> dict:
    response = httpx.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": request_id, "method": method, "params": params},
                          timeout=60)
    assert response.status_code == 200
    return response.json()


def test_post_mcp_runs_an_episode_as_a_session(servers):
    world, openenv = servers
    made = _rpc(openenv, "openenv/session/create")["result"]
    session = made["session_id"]
    assert made["observation"]["observation"]["task_id"] == TASK
    tools = _rpc(openenv, "tools/list", session_id=session)["result"]["tools"]
    names = {t["name"] for t in tools}
    assert {"crm_search", "task_submit_answer"} <= names and all("inputSchema" in t for t in tools)
    assert not any(n.startswith("mail_") for n in names), "the task's apps' tools"
    wrong = _rpc(openenv, "tools/call", session_id=session, name="crm_get_opportunity", arguments={"opportunity_id": -5})
    assert wrong["result"]["isError"] and not wrong["result"]["observation"]["done"]
    for action in oracle_actions(TASK):
        last = _rpc(openenv, "tools/call", session_id=session, name=action["tool"], arguments=action["arguments"])
    assert last["result"]["observation"]["done"] and last["result"]["observation"]["reward"] == 1.0
    assert _rpc(openenv, "openenv/session/close", session_id=session)["result"]["closed"] is True
    with Client(world, TOKEN) as ow:
        assert ow.episodes() == [], "closing the session deleted its episode"


def test_post_mcp_answers_json_rpc_errors(servers):
    _, openenv = servers
    assert httpx.post(f"{openenv}/mcp", content=b"{nope").json()["error"]["code"] == -32700
    assert httpx.post(f"{openenv}/mcp", json={}).json()["error"]["code"] == -32600
    assert _rpc(openenv, "resources/list")["error"]["code"] == -32601
    missing = _rpc(openenv, "tools/list")["error"]
    assert missing["code"] == -32602 and "session_id" in missing["message"]
    bad = _rpc(openenv, "openenv/session/create", task="no-such-task")["error"]
    assert bad["code"] == -32602 and "no-such-task" in bad["message"]
