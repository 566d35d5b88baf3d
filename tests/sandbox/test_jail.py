"""A shell agent's jail: ``ow`` works for its own episode; nothing else is reachable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from surfaces import CONTROL

from sandbox.jail import Limits, unavailable_reason
from simulator.agent.shell import episode_jail

ROOT = Path(__file__).resolve().parents[2]
REASON = unavailable_reason()
# Skipped where bubblewrap cannot run, except under CI: there a missing jail must fail, not pass unseen.
pytestmark = pytest.mark.skipif(REASON is not None and not os.environ.get("CI"), reason=REASON or "")


@pytest.fixture(autouse=True)
def bubblewrap_runs():
    if REASON is not None:
        pytest.fail(f"the jail cannot run here and CI needs it: {REASON}")


@pytest.fixture
def episodes(live_server, world_dir) -> tuple[str, dict, dict]:
    create = lambda: httpx.post(f"{live_server}/v1/episodes", json={"world": str(world_dir)}, headers=CONTROL).json()  # noqa: E731
    return live_server, create(), create()


@pytest.fixture
def jail(episodes):
    base, mine, _ = episodes
    with episode_jail(base, mine["id"], Limits(cpu_seconds=5, memory_bytes=1 << 30, wall_seconds=30)) as jail:
        yield jail


def _python(code: str) -> list[str]:
    return ["python", "-c", code]


def test_ow_acts_in_its_own_episode(jail, episodes):
    base, mine, _ = episodes
    done = jail.run(["ow", "mail", "search", "from:sam renewal", "--json"])
    assert done.returncode == 0, done.stderr
    assert [m["subject"] for m in json.loads(done.stdout)["messages"]] == ["Globex renewal pricing"]
    steps = httpx.get(f"{base}/v1/episodes/{mine['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["operation"]) for s in steps] == [("cli", "search")]


def test_another_episode_is_refused(jail, episodes):
    base, _, other = episodes
    done = jail.run(["sh", "-c", f"OW_EPISODE={other['id']} ow mail search Globex"])
    assert done.returncode == 5 and "outside this jail's episode" in done.stderr
    assert httpx.get(f"{base}/v1/episodes/{other['id']}/trajectory", headers=CONTROL).json()["steps"] == []


@pytest.mark.parametrize("path", ["/v1/episodes", "/admin/episodes/x/digest", "/health", "/docs",
                                  "/episodes/{mine}/api/../../{other}/api/mail/search",
                                  "/episodes/{mine}/api/%2e%2e/%2e%2e/{other}/api/mail/search"])
def test_the_bridge_forwards_nothing_but_its_episode(jail, episodes, path):
    _, mine, other = episodes
    path = path.format(mine=mine["id"], other=other["id"])
    code = ("import http.client, socket, sys\n"
            "c = http.client.HTTPConnection('gateway')\n"
            "c.sock = socket.socket(socket.AF_UNIX); c.sock.connect('/run/bridge/http.sock')\n"
            f"c.request('POST', {path!r}, body=b'{{}}'); r = c.getresponse(); print(r.status, r.read().decode())")
    done = jail.run(_python(code))
    assert done.stdout.startswith("403 ") and "forbidden" in done.stdout, done.stdout + done.stderr


def test_no_network_address_is_reachable(jail, live_server):
    port = int(live_server.rsplit(":", 1)[1])
    for host, p in (("127.0.0.1", port), ("10.0.0.1", 80), ("1.1.1.1", 53)):
        done = jail.run(_python(f"import socket; socket.create_connection(({host!r}, {p}), timeout=2)"))
        assert done.returncode != 0
        assert any(e in done.stderr for e in ("ConnectionRefused", "Network is unreachable", "OSError")), done.stderr


def test_host_files_are_out_of_sight_and_the_system_is_read_only(jail, tmp_path):
    marker = tmp_path / "host-secret"
    marker.write_text("secret")
    shown = jail.run(["sh", "-c", f"ls {tmp_path}; ls /tmp; cat /etc/passwd /etc/shadow; ls /root"])
    assert "host-secret" not in shown.stdout and "root:" not in shown.stdout
    # Of the project, only the files ow runs from: no apps, no tasks (the grader), no world data.
    project = jail.run(["sh", "-c", f"ls {ROOT}; ls /opt/ow; ls /opt/ow/simulator /opt/ow/simulator/agent"])
    assert project.stdout.split() == ["bin", "simulator", "/opt/ow/simulator:", "__init__.py", "agent",
                                      "/opt/ow/simulator/agent:", "__init__.py", "output.py", "ow.py"]
    assert "No such file" in project.stderr
    written = jail.run(["sh", "-c", "touch /usr/jailed 2>&1; echo $?; echo hi > /tmp/x && cat /tmp/x"])
    assert written.stdout.split()[-2:] == ["1", "hi"] or written.stdout.strip().endswith("hi")
    assert "Read-only" in written.stdout


def test_cpu_time_and_memory_are_limited(jail):
    spin = jail.run(_python("while True: pass"), timeout=20)
    assert spin.returncode != 0  # killed by SIGXCPU/SIGKILL after 5 CPU seconds, well before the timeout
    hog = jail.run(_python("x = bytearray(2 << 30)"))
    assert hog.returncode != 0 and "MemoryError" in hog.stderr


def test_officeworld_shell_runs_a_command_in_the_episode_jail(episodes):
    base, mine, other = episodes
    env = {**os.environ, "OFFICEWORLD_GATEWAY_URL": base}
    shell = [sys.executable, "-m", "simulator.cli", "shell", "--episode", mine["id"], "--"]
    done = subprocess.run([*shell, "ow", "mail", "search", "from:sam renewal", "--json"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["messages"][0]["subject"] == "Globex renewal pricing"
    crossed = subprocess.run([*shell, "sh", "-c", f"OW_EPISODE={other['id']} ow mail search Globex"], env=env,
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert crossed.returncode == 5 and "outside this jail's episode" in crossed.stderr


def test_the_operators_environment_stays_outside(episodes):
    base, mine, _ = episodes
    secrets = {"OFFICEWORLD_TOKEN": "tok-op-41", "OFFICEWORLD_ADMIN_TOKEN": "tok-admin-42", "OPENAI_API_KEY": "sk-43"}
    env = {**os.environ, "OFFICEWORLD_GATEWAY_URL": base, **secrets}
    shell = [sys.executable, "-m", "simulator.cli", "shell", "--episode", mine["id"], "--"]
    done = subprocess.run([*shell, "sh", "-c", "cat /proc/1/environ /proc/self/environ | tr '\\0' '\\n'"],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"OW_EPISODE={mine['id']}" in done.stdout.splitlines()
    assert not [value for value in secrets.values() if value in done.stdout], done.stdout
