"""The README's set-up commands, taken from its "Set-up" block and run as a new user would, in a fresh clone of
this repository's last commit: ``./dev.sh up`` installs what serving needs and serves, ``./dev.sh test`` installs
the rest and runs tests. Minutes and the package index: marked ``slow``, deselected unless ``-m slow``."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).parents[1]
pytestmark = pytest.mark.slow


def _setup_commands() -> list[str]:
    """The command lines of the README's first bash block (its "Set-up" section), without their comments."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Set-up", 1)[1]
    block = re.search(r"^```bash\n(.*?)^```", section, flags=re.S | re.M)
    assert block is not None
    return [re.split(r"\s{2,}#", line)[0].strip() for line in block.group(1).splitlines() if line.strip()]


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("fresh") / "officeworld"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(where)], check=True, timeout=300)
    return where


def _env(home: Path) -> dict:
    """This user's environment, less what points at this checkout or its servers (the clone makes its own)."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER")
    return {k: v for k, v in os.environ.items() if not k.startswith("OFFICEWORLD_") and k not in drop}


def test_the_readmes_set_up_commands_are_the_two_it_names():
    assert _setup_commands() == ["./dev.sh up", "./dev.sh test"]


@pytest.mark.timeout(1800)
def test_dev_sh_up_in_a_fresh_clone_installs_serving_and_serves(clone, tmp_path):
    [up] = [c for c in _setup_commands() if c.endswith(" up")]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = _env(tmp_path) | {"OFFICEWORLD_PORT": str(port)}   # the port by the variable: the command as written
    server = subprocess.Popen(["bash", "-c", up], cwd=clone, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    said = ""
    try:
        assert server.stderr is not None
        deadline = time.monotonic() + 1500   # bounded; no time is asserted
        while "control API:" not in said:
            assert server.poll() is None and time.monotonic() < deadline, said[-3000:]
            said += server.stderr.readline()
        assert re.search(r"^dev\.sh: serving: installing .*\(.*\) \.\.\.$", said, flags=re.M), said[-3000:]
        assert "trainers:" not in said and not (clone / ".venv-side").exists()   # serving only
        token = re.search(r"export OFFICEWORLD_TOKEN=(\S+)", said)
        assert token, said[-3000:]
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=5)
                break
            except httpx.HTTPError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert health.json()["status"] == "ok"
        torch = list((clone / ".venv" / "lib").glob("python3*/site-packages/torch"))
        assert torch == [], "up installed PyTorch"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


@pytest.mark.timeout(3600)
def test_dev_sh_test_in_a_fresh_clone_installs_the_rest_and_runs_tests(clone, tmp_path):
    [test] = [c for c in _setup_commands() if c.endswith(" test")]
    done = subprocess.run(["bash", "-c", f"{test} tests/test_settings.py -n 0 -q"], cwd=clone, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=3500)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    assert "passed" in done.stdout and (clone / ".venv-side" / "bin" / "python").exists()
    assert done.stderr.count("dev.sh: trainers: installing") >= 2
