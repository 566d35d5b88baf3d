"""``officeworld episode-proxy``: what compose's agent shell talks to, forwarding one episode only."""

import os
import socket
import subprocess
import sys
import time

import httpx
import pytest
from surfaces import ROOT, new_episode, run_ow


@pytest.fixture
def proxy(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "OW_EPISODE": episode["id"], "OFFICEWORLD_GATEWAY_URL": live_server,
           "OFFICEWORLD_PORT": str(port)}
    process = subprocess.Popen([sys.executable, "-m", "simulator.cli", "episode-proxy"], env=env, cwd=ROOT,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", episode
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0


def test_the_episode_acts_through_the_proxy(proxy):
    url, episode = proxy
    done = run_ow(url, episode["id"], "mail", "search", "is:starred", "--json")
    assert done.returncode == 0, done.stderr
    assert "Globex renewal pricing" in done.stdout


def test_everything_else_is_refused(proxy, live_server, world_dir):
    url, _ = proxy
    other = new_episode(live_server, world_dir)
    refused = run_ow(url, other["id"], "mail", "list-labels")
    assert refused.returncode == 5 and "outside" in refused.stderr
    for path in ("/v1/episodes", f"/v1/episodes/{other['id']}/trajectory", "/health", "/docs"):
        assert httpx.get(f"{url}{path}").status_code == 403, path


def test_it_needs_an_episode():
    env = {k: v for k, v in os.environ.items() if k != "OW_EPISODE"}
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "episode-proxy", "--episode", " "], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "OW_EPISODE" in done.stderr
