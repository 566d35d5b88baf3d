"""The verifiers environment package (environments/officeworld_env) installed the way the Environments Hub
installs one: its wheel and the taskset's, built from copies of their folders, are the index (a folder of
wheels, as the Hub's per-owner index); ``pip install --target`` puts them in a folder of their own, and the
side venv's verifiers, with only that folder added to its path, resolves the Hub id
``OWNER/officeworld-env@VERSION``, loads the environment over a world served here, and runs ``vf-eval`` on it
with a scripted stand-in model. Nothing is published and no index is asked (``--no-index``); the wheels are
built with this interpreter's setuptools (``--no-build-isolation``), since the side venv has no ``wheel``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import pytest
from surfaces import CONTROL, ROOT, TOKEN
from test_verifiers import scripted_model

from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from tasks.refs import resolve

SIDE = ROOT / ".venv-side" / "bin"
PACKAGES = {"officeworld-env": ROOT / "environments" / "officeworld_env",
            "officeworld-verifiers": ROOT / "trainers" / "verifiers_taskset"}
HUB_ID = "someone/officeworld-env@0.1.0"
SOLVED, FAILED = "crm-close-globex-renewal", "crm-answer-largest-open-deal"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the folder of wheels, the folder they were installed into)."""
    if not (SIDE / "vf-eval").exists():
        reason = f"no side venv with verifiers at {SIDE.parent} (./dev.sh builds it from trainers/side-requirements.txt)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason)
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("hub")
    sources = [shutil.copytree(folder, root / "src" / folder.name, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__")) for folder in PACKAGES.values()]   # a build writes into its folder
    wheels, target = root / "wheels", root / "site"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(wheels),
          *map(str, sources)], root)
    _run([str(SIDE / "python"), "-m", "pip", "install", "--no-deps", "--no-index", "--find-links", str(wheels),
          "--target", str(target), *PACKAGES], root)
    return wheels, target


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    store = EpisodeStore(cache_dir=tmp_path_factory.mktemp("world-cache"), trajectory_dir=None)
    catalog = task_catalog(store)
    with serve_in_thread(build_app(store, catalog)) as url:
        yield url, catalog, store


def _run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=600, env={**os.environ, **env})
    assert done.returncode == 0, f"{argv[:3]} failed:\n{done.stdout[-4000:]}\n{done.stderr[-6000:]}"
    return done


def _side_env(target: Path) -> dict[str, str]:
    """The side venv's verifiers plus the installed folder only: not this checkout (our PYTHONPATH)."""
    return {"PYTHONPATH": str(target), "OFFICEWORLD_TOKEN": TOKEN, "SCRIPTED_KEY": "unused",
            "VIRTUAL_ENV": str(SIDE.parent), "PATH": f"{SIDE}{os.pathsep}{os.environ['PATH']}"}


def test_the_wheel_names_the_taskset_and_verifiers_as_its_requirements(installed):
    wheels, target = installed
    assert sorted(p.name for p in wheels.iterdir()) == ["officeworld_env-0.1.0-py3-none-any.whl",
                                                        "officeworld_verifiers-0.1.0-py3-none-any.whl"]
    with zipfile.ZipFile(wheels / "officeworld_env-0.1.0-py3-none-any.whl") as wheel:
        meta = wheel.read("officeworld_env-0.1.0.dist-info/METADATA").decode()
        assert {n.split("/")[0] for n in wheel.namelist()} == {"officeworld_env", "officeworld_env-0.1.0.dist-info"}
    requires = {line.split(": ", 1)[1] for line in meta.splitlines() if line.startswith("Requires-Dist: ")}
    assert requires == {"verifiers==0.4.0", "officeworld-verifiers==0.1.0"}
    assert {p.name for p in target.iterdir() if not p.name.endswith(".dist-info")} == {"officeworld_env",
                                                                                      "officeworld_verifiers"}


LOAD = """
import json, sys
import verifiers.v1 as vf
from verifiers.v1.utils.loaders import harness_class, taskset_class
import officeworld_env, officeworld_verifiers

env = officeworld_env.load_environment(world_url=sys.argv[1], suite="crm")
hub = vf.load_environment(vf.resolve_env_config({"taskset": {"id": sys.argv[2], "task": {"world_url": sys.argv[1]},
                                                              "tasks": [sys.argv[3]]}}))
print(json.dumps({"files": [officeworld_env.__file__, officeworld_verifiers.__file__],
                  "taskset": taskset_class(sys.argv[2]).__name__, "harness": harness_class(sys.argv[2]).__name__,
                  "suite": sorted(t.data.id for t in env.taskset.load()),
                  "named": [t.data.id for t in hub.taskset.load()]}))
"""


def test_verifiers_loads_the_installed_environment_by_its_hub_id(installed, world, tmp_path):
    _, target = installed
    url, _, _ = world
    done = _run([str(SIDE / "python"), "-c", LOAD, url, HUB_ID, SOLVED], tmp_path, **_side_env(target))
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert all(Path(f).is_relative_to(target) for f in got["files"]), got["files"]
    assert (got["taskset"], got["harness"]) == ("WorldTaskset", "WorldHarness")
    crm = httpx.get(f"{url}/v1/tasks", params={"suite": "crm"}, headers=CONTROL).json()
    assert got["suite"] == sorted(t["id"] for t in crm) and SOLVED in got["suite"]
    assert got["named"] == [SOLVED]


def test_vf_eval_runs_the_installed_environment_by_its_hub_id(installed, world, tmp_path):
    _, target = installed
    url, catalog, store = world
    run = catalog.start(SOLVED)  # the oracle's arguments, resolved: what a policy that knows the answer sends
    fix = [(c.op.replace(".", "_"), resolve(c.args, run.scope)) for c in catalog.tasks[SOLVED].oracle]
    store.delete(run.episode.id)
    plans = {"Globex renewal": [*fix, ("task_submit_answer", {"answer": "Marked it Closed Won"})],
             "largest amount": [("task_submit_answer", {"answer": "Nothing Such Inc"})]}
    seen: list = []
    with serve_in_thread(scripted_model(plans, seen)) as model:
        _run([str(SIDE / "vf-eval"), HUB_ID, "--env.taskset.task.world-url", url,
              "--env.taskset.tasks", json.dumps([SOLVED, FAILED]), "--model", "scripted",
              "--client.base-url", f"{model}/v1", "--client.api-key-var", "SCRIPTED_KEY",
              "--env.agent.runtime.type", "subprocess", "--env.agent.max-turns", "10", "-r", "1",
              "-o", str(tmp_path), "--run.name", "hub", "--no-push", "--no-rich"], tmp_path, **_side_env(target))
    lines = (tmp_path / "hub" / "traces.jsonl").read_text().splitlines()
    traces = {t["task"]["data"]["id"]: t for line in lines for t in json.loads(line)["traces"]}
    assert set(traces) == {SOLVED, FAILED} and all(t["ok"] and not t["errors"] for t in traces.values())
    assert {task: t["rewards"]["world"]["score"] for task, t in traces.items()} == {SOLVED: 1.0, FAILED: 0.0}
    assert {task: t["metrics"]["passed"] for task, t in traces.items()} == {SOLVED: 1.0, FAILED: 0.0}
    assert {s["phrase"] for s in seen} == set(plans)
    assert httpx.get(f"{url}/v1/episodes", headers=CONTROL).json() == [], "the rollouts' episodes are deleted"
