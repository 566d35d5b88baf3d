"""What a shell agent can read in the jail when officeworld is installed as a wheel (not editable).

The wheel ships ``tasks/suites/*.yaml`` and ``worlds/*/FACTS.md`` as package data (the control plane
reads them); none of it may be readable inside ``officeworld shell``, nor the operator's environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sandbox.jail import unavailable_reason

ROOT = Path(__file__).resolve().parents[2]
REASON = unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None and not os.environ.get("CI"), reason=REASON or "")
SECRETS = {"OFFICEWORLD_TOKEN": "tok-operator-1", "OFFICEWORLD_ADMIN_TOKEN": "tok-admin-2",
           "OPENAI_API_KEY": "sk-judge-3"}
LIST = textwrap.dedent("""
    import json, os, sys
    from simulator.agent.shell import episode_jail
    find = "find / -xdev -type f -readable 2>/dev/null; cat /proc/*/environ 2>/dev/null | tr '\\\\0' '\\\\n'"
    with episode_jail("http://127.0.0.1:9", "ep_listing") as jail:
        files = jail.run(["sh", "-c", "find / \\\\( -path /proc -o -path /sys -o -path /dev \\\\) -prune -o -type f -print"])
        environ = jail.run(["sh", "-c", "cat /proc/*/environ | tr '\\\\0' '\\\\n'"])
        ow = jail.run(["ow", "--help"])
    print(json.dumps({"files": files.stdout.splitlines(), "environ": environ.stdout.splitlines(),
                      "ow": [ow.returncode, ow.stdout], "base": sys.base_prefix}))
""")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment with officeworld installed from a wheel built from this tree."""
    if REASON is not None:
        pytest.fail(f"the jail cannot run here and CI needs it: {REASON}")
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for name in ("apps", "simulator", "sandbox", "tasks", "trainers", "worlds"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", work / "dist", source],
                   check=True, cwd=work, timeout=240)
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True, timeout=120)
    wheel = next((work / "dist").glob("officeworld-*.whl"))
    subprocess.run([*pip, "--python", venv / "bin" / "python", "install", "--no-deps", wheel], check=True, timeout=240)
    site = next(venv.glob("lib/python3*/site-packages"))
    assert (site / "tasks" / "suites").is_dir() and (site / "worlds" / "harbor-legal" / "FACTS.md").is_file()
    # the bridge's own dependencies (httpx, uvicorn) from the test's environment, after the wheel's packages
    deps = next(Path(sys.prefix).glob("lib/python3*/site-packages"))
    (site / "zz-deps.pth").write_text(f"{deps}\n")
    return venv


def test_the_jail_of_an_installed_package_shows_python_and_ow_only(installed):
    import json

    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), **SECRETS}
    done = subprocess.run([installed / "bin" / "python", "-c", LIST], env=env, cwd="/",
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    files, base = seen["files"], seen["base"]
    assert seen["ow"][0] == 0 and "usage: ow" in seen["ow"][1]
    assert sorted(f for f in files if f.startswith("/opt/ow")) == [
        "/opt/ow/bin/ow", "/opt/ow/simulator/__init__.py", "/opt/ow/simulator/agent/__init__.py",
        "/opt/ow/simulator/agent/output.py", "/opt/ow/simulator/agent/ow.py"]
    # everything else is the system (/usr, a few files of /etc) and the interpreter's standard library
    others = [f for f in files if not f.startswith(("/opt/ow/", "/usr/", "/etc/", f"{base}/"))]
    assert others == [], others[:20]
    # no file of the installed package, wherever it lies (the venv's site-packages or any other)
    site = next(installed.glob("lib/python3*/site-packages"))
    shipped = {str(f.relative_to(site)) for top in ("apps", "simulator", "sandbox", "tasks", "trainers", "worlds")
               for f in (site / top).rglob("*") if f.is_file() and "__pycache__" not in f.parts}
    assert "worlds/harbor-legal/FACTS.md" in shipped and any(rel.startswith("tasks/suites/") for rel in shipped)
    suffixes = tuple("/" + rel for rel in shipped if not rel.endswith("__init__.py"))  # a name common elsewhere
    readable = [f for f in files if not f.startswith("/opt/ow/") and f.endswith(suffixes)]
    assert readable == [], readable[:20]
    assert str(installed) not in "\n".join(files)
    leaked = [line for line in seen["environ"] if any(value in line for value in SECRETS.values())]
    assert leaked == [] and seen["environ"], seen["environ"]


def test_tasks_check_probes_the_jail_for_task_files():
    from sandbox.jail import Jail
    from simulator.tasks.sandbox_probe import readable_grader_files
    from tasks.loader import SUITES_DIR

    if REASON is not None:
        pytest.fail(f"the jail cannot run here and CI needs it: {REASON}")
    assert readable_grader_files(SUITES_DIR) == []
    leaky = readable_grader_files(SUITES_DIR, lambda: Jail("http://127.0.0.1:9", [], ro_binds=[ROOT / "tasks", ROOT / "worlds"]))
    assert leaky and any(f.endswith("/tasks/suites/legal/memo-ridgeway.yaml") for f in leaky)
    assert any(f.endswith("/worlds/harbor-legal/FACTS.md") for f in leaky)
