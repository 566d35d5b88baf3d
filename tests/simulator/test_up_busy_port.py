"""``officeworld up`` claims its port before anything else: a port in use is said plainly, with a non-zero exit,
and nothing is announced or created (no episode, no trajectory file a later ``--resume`` would revive)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
from surfaces import ROOT


@pytest.mark.parametrize("backend", ["inprocess", "processes"])
def test_a_port_in_use_is_named_and_nothing_is_created(backend, tmp_path):
    with socket.socket() as taken:   # another server holds the port
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        trajectories = tmp_path / "trajectories"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OFFICEWORLD_TOKEN": "t0k",
               "OFFICEWORLD_TRAJECTORY_DIR": str(trajectories), "OFFICEWORLD_CACHE_DIR": str(tmp_path / "cache")}
        up = subprocess.run([sys.executable, "-m", "simulator.cli", "up", "--backend", backend, "--port", str(port)],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert up.returncode != 0
    assert f"port {port} is in use" in up.stderr and "Traceback" not in up.stderr
    assert "episode" not in up.stderr and "gateway at" not in up.stderr   # no banner
    assert not trajectories.exists() or not any(trajectories.iterdir())   # (processes: this is ./trajectories)


def test_a_free_port_is_let_go_for_the_server_to_bind():
    from simulator.service.serve import PortInUse, claimed

    with claimed("127.0.0.1", 0) as claim:
        port = claim.getsockname()[1]
        with pytest.raises(PortInUse, match=f"port {port} is in use"), claimed("127.0.0.1", port):
            pass
    with claimed("127.0.0.1", port):   # let go on leaving: free again
        pass
