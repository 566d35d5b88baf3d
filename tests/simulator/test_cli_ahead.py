"""``officeworld up`` starts the stamp of its world's files before its imports: which world it reads from
the command line, and that nothing is started for any other command or for a world it cannot find yet."""

import pytest

from simulator.cli import ahead


@pytest.mark.parametrize("argv, env, world", [
    (["officeworld", "up"], {}, "acme"),
    (["officeworld", "up"], {"OFFICEWORLD_WORLD": "harbor-legal"}, "harbor-legal"),
    (["officeworld", "up", "--world", "/w/x", "--port", "8001"], {"OFFICEWORLD_WORLD": "acme"}, "/w/x"),
    (["officeworld", "up", "--port=8001", "--world=/w/y"], {}, "/w/y"),
    (["officeworld", "up", "--backend", "processes"], {}, None),
    (["officeworld", "up", "--world", "acme", "--backend=inprocess"], {}, "acme"),
    (["officeworld", "up", "--help"], {}, None),
    (["officeworld", "bench", "--world", "acme"], {}, None),
    (["officeworld"], {}, None),
])
def test_the_world_up_serves_is_read_from_its_command_line(argv, env, world):
    assert ahead.world_of(argv, env) == world


def test_a_stamp_is_started_only_for_a_world_folder_it_finds(monkeypatch, tmp_path):
    started = []
    monkeypatch.setattr("worlds.digest.stamp_ahead", lambda root: started.append(root) or True)
    assert ahead.stamp_world_ahead(["officeworld", "up", "--world", "acme"], {})
    assert started[-1].name == "acme" and (started[-1] / "world.yaml").is_file()
    (tmp_path / "world.yaml").write_text("name: w\n")
    assert ahead.stamp_world_ahead(["officeworld", "up", f"--world={tmp_path}"], {}) and started[-1] == tmp_path
    assert not ahead.stamp_world_ahead(["officeworld", "up", "--world", "generated-xl"], {})  # found after imports
    assert not ahead.stamp_world_ahead(["officeworld", "tasks", "check"], {})
    assert len(started) == 2


def test_the_collector_is_held_for_up_only_and_released_once():
    import gc

    assert gc.isenabled()
    try:
        assert not ahead.hold_collector(["officeworld", "bench"], {}) and gc.isenabled()
        assert not ahead.hold_collector(["officeworld", "up", "--backend", "docker"], {}) and gc.isenabled()
        assert ahead.hold_collector(["officeworld", "up", "--world", "acme"], {}) and not gc.isenabled()
        ahead.release_collector()
        assert gc.isenabled()
        gc.disable()   # the caller's own choice: neither held nor released
        assert not ahead.hold_collector(["officeworld", "up"], {})
        ahead.release_collector()
        assert not gc.isenabled()
    finally:
        gc.enable()


_BEFORE_EXEC = """
import os, sys
before = set(sys.modules)
def execve(path, argv, env):
    print(" ".join(sorted(set(sys.modules) - before)), env["PYTHONMALLOC"])
    sys.stdout.flush()
    os._exit(0)
os.execve = execve
sys.orig_argv = [sys.executable, "-m", "simulator.cli", "up", "--world", "acme"]
import simulator.cli
"""


def test_a_server_runs_again_before_it_imports_anything_it_would_throw_away():
    """What the first process of ``officeworld up`` imports before it executes itself again with the system
    allocator is lost: only the package and ``ahead``, no asyncio, ctypes, pathlib or typing."""
    import os
    import subprocess
    import sys

    from simulator.cli.ahead import _glibc

    if not _glibc():
        pytest.skip("the system allocator is chosen on glibc only")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONMALLOC"}
    done = subprocess.run([sys.executable, "-c", _BEFORE_EXEC], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    *imported, allocator = done.stdout.split()
    assert allocator == "malloc"
    assert set(imported) <= {"simulator", "simulator.cli", "simulator.cli.ahead", "__future__", "gc"}, imported
