"""The simulator's layout: every module lives in a room (a subpackage), and the ``officeworld``
command imports nothing of the layer above it (``trainers``) until a command needs it."""

import subprocess
import sys

from surfaces import ROOT

SIMULATOR = ROOT / "simulator"


def test_every_module_of_the_simulator_is_in_a_room():
    assert sorted(p.name for p in SIMULATOR.glob("*.py")) == ["__init__.py"]
    rooms = {p.parent.name for p in SIMULATOR.glob("*/__init__.py")}
    assert {"store", "gateway", "agent", "cli", "tasks", "bench", "service", "gui", "runner", "trajectories", "viewer"} <= rooms


def test_the_officeworld_command_imports_the_trainers_only_for_openenv():
    check = ("import sys; import simulator.cli.main; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'trainers'))")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "[]"
    helped = subprocess.run([sys.executable, "-m", "simulator.cli", "openenv", "--help"], capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    assert helped.returncode == 0, helped.stderr[-500:]
    assert "officeworld openenv" in helped.stdout and "--max-sessions" in helped.stdout
    wrong = subprocess.run([sys.executable, "-m", "simulator.cli", "openenv", "--max-steps", "0"],
                           capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert wrong.returncode == 2 and "--max-steps" in wrong.stderr
