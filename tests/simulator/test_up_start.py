"""What ``officeworld up`` says at start. It claims its port before anything else: a port in use is said plainly,
with a non-zero exit, and nothing is announced or created (no episode, no trajectory file a later ``--resume``
would revive). A control token it makes is printed as a line to copy."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx
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


def test_a_claim_is_let_go_for_the_server_to_bind_and_a_listening_one_is_in_use():
    from simulator.service.serve import PortInUse, claimed

    with claimed("127.0.0.1", 0) as claim:
        port = claim.getsockname()[1]
        with pytest.raises(ConnectionRefusedError):   # a client during the start is refused, not reset later
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    with socket.socket() as server:   # the server binds where the claim was, as uvicorn does, and listens
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen()
        with pytest.raises(PortInUse, match=f"port {port} is in use"), claimed("127.0.0.1", port):
            pass


def test_a_token_made_at_start_is_printed_as_an_export_line_that_works(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "OFFICEWORLD_TOKEN"} | {"PYTHONPATH": str(ROOT)}
    up = subprocess.Popen([sys.executable, "-m", "simulator.cli", "up", "--port", str(port), "--no-episode"],
                          cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        said, deadline = "", time.monotonic() + 120   # bounded wait for the banner; no time is asserted
        assert up.stderr is not None
        while "control API:" not in said:
            assert up.poll() is None and time.monotonic() < deadline, said
            said += up.stderr.readline()
        [line] = [x.strip() for x in said.splitlines() if x.strip().startswith("export OFFICEWORLD_TOKEN=")]
        token = line.split("=", 1)[1]
        while True:
            try:
                made = httpx.post(f"http://127.0.0.1:{port}/v1/episodes", json={"world": "acme"}, timeout=60,
                                  headers={"authorization": f"Bearer {token}"})
                break
            except httpx.ConnectError:
                assert up.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        assert made.status_code == 201, made.text
    finally:
        up.terminate()
        up.wait(timeout=60)
