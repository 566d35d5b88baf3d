"""Every adapter ends its episodes on every path: a training process that crashes mid-rollout (TRL,
Gymnasium), an OpenEnv client that vanishes without closing its session. Each test counts the world's
open episodes afterwards."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time

import pytest
from surfaces import ROOT, TOKEN

from simulator.gateway.client import AsyncClient, Client
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore

TASK = "crm-close-globex-renewal"

CRASHING = {
    "trl": "from trainers.trl import CrmWorld\n"
           "envs = [CrmWorld(URL, TOKEN) for _ in range(3)]\n"
           "for env in envs: env.reset(task=TASK)\n"
           "envs[0].crm_search(text='globex')\n",
    "gym": "from trainers.gym import OfficeWorldEnv\n"
           "env = OfficeWorldEnv(task=TASK, server=URL, token=TOKEN)\n"
           "env.reset(seed=0)\n"
           "env.step('{\"tool\": \"crm_search\", \"arguments\": {\"text\": \"globex\"}}')\n",
}


@pytest.fixture(scope="module")
def world():
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token=TOKEN)) as url:
        yield url


def _open(world: str) -> list[dict]:
    with Client(world, TOKEN) as ow:
        return ow.episodes()


@pytest.mark.parametrize("adapter", sorted(CRASHING))
def test_a_training_process_that_crashes_mid_rollout_leaves_no_episode(world, adapter):
    script = (f"URL, TOKEN, TASK = {world!r}, {TOKEN!r}, {TASK!r}\n" + CRASHING[adapter]
              + "print(len(__import__('simulator.gateway.client', fromlist=['Client']).Client(URL, TOKEN).episodes()))\n"
              + "raise RuntimeError('the trainer crashed')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1 and "the trainer crashed" in done.stderr, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) == (3 if adapter == "trl" else 1), "the rollouts had opened their episodes"
    assert _open(world) == []


def test_an_openenv_client_that_vanishes_leaves_no_episode(world):
    from websockets.sync.client import connect

    from trainers.openenv import build_openenv_app

    with serve_in_thread(build_openenv_app(AsyncClient(world, TOKEN), task=TASK)) as base:
        with contextlib.suppress(OSError, ConnectionError), connect(base.replace("http", "ws") + "/ws") as ws:
            ws.send(json.dumps({"type": "reset", "data": {}}))
            assert json.loads(ws.recv())["type"] == "observation"
            assert len(_open(world)) == 1
            ws.socket.close()   # no close frame: the client process died
        deadline = time.monotonic() + 60   # a bound on waiting for the server to notice, not a timing claim
        while _open(world) and time.monotonic() < deadline:
            time.sleep(0.1)
    assert _open(world) == []
