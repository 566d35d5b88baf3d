"""The type checker over the packages ``[tool.mypy]`` in pyproject.toml names (the kit, the apps, simulator with
its runner, tasks, trainers and worlds): any error fails the suite, so ``./dev.sh test`` checks types as well."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


# a first run, with no .mypy_cache yet, reads torch, transformers, trl and ray too: about 2.5 CPU minutes, over
# 8 minutes of wall time on a small machine busy with other work
@pytest.mark.timeout(900)
def test_mypy_finds_no_errors():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert {"apps/kit", "simulator", "tasks", "apps/calendar", "apps/task", "trainers", "worlds"} <= set(config["files"])
    # the side venv's package and the OpenEnv package's template (its client imports openenv), nothing else
    assert config.get("exclude", []) == ["trainers/verifiers_taskset/", "trainers/openenv_env/"]
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT, capture_output=True,
                          text=True, timeout=880)
    assert done.returncode == 0, f"mypy found errors:\n{done.stdout}{done.stderr}"
    assert done.stdout.strip() == "", done.stdout


@pytest.mark.timeout(600)
def test_the_side_venvs_package_checks_against_the_side_venv(tmp_path):
    """``trainers/verifiers_taskset`` runs in the side venv (verifiers pins another MCP SDK), so the check above
    leaves it out; here mypy reads that venv's libraries instead. verifiers ships no type information, so
    its imports are taken as untyped (``import-untyped`` off); the package's own code is checked."""
    side = ROOT / ".venv-side" / "bin" / "python"
    if not side.exists():
        pytest.skip(f"the side venv is not built ({side}; ./dev.sh builds it)")
    done = subprocess.run([sys.executable, "-m", "mypy", "--python-executable", str(side), "--cache-dir",
                           str(tmp_path), "--check-untyped-defs", "--disable-error-code", "import-untyped",
                           "--no-error-summary", "-p", "officeworld_verifiers"],
                          cwd=ROOT / "trainers" / "verifiers_taskset", capture_output=True, text=True, timeout=580)
    assert done.returncode == 0, f"mypy found errors:\n{done.stdout}{done.stderr}"


def test_ruff_finds_nothing():
    """The linter with ``[tool.ruff]``'s rules (pycodestyle, pyflakes, import order) over the whole tree."""
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"ruff found problems:\n{done.stdout}{done.stderr}"
