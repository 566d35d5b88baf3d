"""``worlds`` holds data and a generator that writes data: importing any of it loads no app and no scenario
(the stories that write several apps' records live in ``scenarios/`` and are handed to the generator)."""

from __future__ import annotations

import subprocess
import sys

from surfaces import ROOT


def test_importing_worlds_loads_no_app_and_no_scenario():
    modules = [p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
               for p in (ROOT / "worlds").rglob("*.py") if "__pycache__" not in p.parts]
    check = (f"import sys, importlib; [importlib.import_module(m.removesuffix('.__init__')) for m in {modules!r}]; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('apps', 'scenarios', 'tasks', 'simulator')))")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "[]"
