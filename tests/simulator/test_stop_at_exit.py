"""A server started in a thread and stopped by an ``atexit`` handler (``trainers``' ``local_world()``) shuts down
cleanly. From Python 3.12 no thread may start once the interpreter is finalizing, and the gateway's shutdown
handed the browser's close to a worker thread, a new one once a memory release had retired the idle ones:
"Application shutdown failed" at the exit of trainer scripts that used an in-process world. Runs on whatever
Python runs the suite (``.ci/py312`` runs it on 3.12 too)."""

from __future__ import annotations

import os
import subprocess
import sys

from surfaces import ROOT

SCRIPT = """
import atexit, contextlib, httpx
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore

stack = contextlib.ExitStack()   # as trainers.gym.local_world and trainers.trl.local_world do
url = stack.enter_context(serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token="t0k")))
atexit.register(stack.close)
made = httpx.post(url + "/v1/episodes", json={"world": "acme"}, headers={"authorization": "Bearer t0k"}, timeout=120)
print(made.status_code)
httpx.delete(url + "/v1/episodes/" + made.json()["id"], headers={"authorization": "Bearer t0k"})
from simulator.store import memory
memory.release_now()   # as a release after deletions does: the serving loop's idle worker threads are retired
"""


def test_a_world_served_in_a_thread_stops_cleanly_at_exit(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "201", done.stderr[-3000:]
    assert "shutdown failed" not in done.stderr.lower() and "Traceback" not in done.stderr, done.stderr[-3000:]
