"""The type checker over the packages ``[tool.mypy]`` in pyproject.toml names (the kit, the apps, simulator with
its runner, tasks, trainers and worlds): any error fails the suite, so ``./dev.sh test`` checks types as well."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.mark.timeout(600)  # a first run, with no .mypy_cache yet, takes a few minutes on a small machine
def test_mypy_finds_no_errors():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert {"apps/kit", "simulator", "tasks", "apps/calendar", "apps/task", "trainers", "worlds"} <= set(config["files"])
    assert config.get("exclude", []) == ["trainers/verifiers_taskset/"]   # the side venv's package, nothing else
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT, capture_output=True,
                          text=True, timeout=580)
    assert done.returncode == 0, f"mypy found errors:\n{done.stdout}{done.stderr}"
    assert done.stdout.strip() == "", done.stdout
