"""What ``officeworld up`` can start before its imports: the stamp of its world's files, taken by a child
process (``worlds.digest.stamp_ahead``) while this one imports the apps and the server (seconds). On an
``xl`` world (105,000 files and 34,000 folders stat'ed) that costs half a second of a start, spent on
another core. And the cyclic collector held off until ``up`` freezes its startup objects (``hold_collector``).

Before all that, a serving command runs itself again with the system allocator (``serve_with_system_malloc``),
so this module imports nothing the interpreter has not loaded already (``gc``, ``os``, ``sys``): whatever the
first process imports before it re-executes is thrown away (asyncio and ctypes, ~0.1 s, did so before)."""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:   # typing itself is not loaded at this point of a start
    from collections.abc import Mapping, Sequence

SERVING = ("up", "app-service")   # the commands that hold episodes (``simulator.store.memory``)


def world_of(argv: Sequence[str], env: Mapping[str, str]) -> str | None:
    """The world ``officeworld up`` serves in-process for the command line ``argv`` (the program, then its
    arguments): ``--world``, else ``OFFICEWORLD_WORLD``, else acme; None for any other command."""
    args = list(argv[1:])
    if not args or args[0] != "up" or "--help" in args:
        return None
    world, backend = env.get("OFFICEWORLD_WORLD") or "acme", "inprocess"
    for i, arg in enumerate(args):
        for name in ("--world", "--backend"):
            if arg == name and i + 1 < len(args):
                value = args[i + 1]
            elif arg.startswith(name + "="):
                value = arg.split("=", 1)[1]
            else:
                continue
            world, backend = (value, backend) if name == "--world" else (world, value)
    return world if backend == "inprocess" else None


def stamp_world_ahead(argv: Sequence[str], env: Mapping[str, str] = os.environ) -> bool:
    """Start the stamp of the world's files for ``officeworld up`` (a folder or a shipped world; a generated
    one by name is found only after the apps are imported); False when nothing was started."""
    world = world_of(argv, env)
    if world is None:
        return False
    from pathlib import Path

    from worlds.digest import stamp_ahead
    from worlds.loader import WORLDS_DIR

    for root in (Path(world), WORLDS_DIR / world):
        if (root / "world.yaml").is_file():
            return stamp_ahead(root)
    return False


_HELD = False   # ``hold_collector`` turned the collector off: ``release_collector`` turns it on again


def hold_collector(argv: Sequence[str], env: Mapping[str, str] = os.environ) -> bool:
    """Turn the cyclic collector off for ``officeworld up``'s start (``world_of``): its imports and world
    make ~230,000 objects that all stay alive, and the ~300 collections they set off walked them for
    0.2-0.3 s and freed next to nothing. ``up`` collects once and freezes them (``memory.freeze_startup``),
    then calls ``release_collector``. False when not held (another command, or the collector already off)."""
    global _HELD
    if world_of(argv, env) is None or not gc.isenabled():
        return False
    gc.disable()
    _HELD = True
    return True


def release_collector() -> None:
    """The collector on again if ``hold_collector`` turned it off (else left as it is)."""
    global _HELD
    if _HELD:
        _HELD = False
        gc.enable()


def serve_with_system_malloc(argv: Sequence[str] | None = None) -> None:
    """Run this ``officeworld`` command again with ``PYTHONMALLOC=malloc`` when it serves episodes
    (``SERVING``), the variable is unset and the C library is glibc (whose ``malloc_trim`` gives the freed
    pages back: ``simulator/store/memory.py`` says why); the process (its pid) stays the same. ``argv`` is
    the interpreter's command line (``sys.orig_argv``)."""
    argv = list(sys.orig_argv if argv is None else argv)
    if os.environ.get("PYTHONMALLOC") or not _glibc():
        return
    for i, arg in enumerate(argv[1:], 1):   # the command follows ``-m simulator.cli`` or the officeworld script
        if (arg == "simulator.cli" and argv[i - 1] == "-m") or os.path.basename(arg) == "officeworld":
            if i + 1 < len(argv) and argv[i + 1] in SERVING and "--help" not in argv[i + 1:]:
                os.execve(sys.executable, argv, {**os.environ, "PYTHONMALLOC": "malloc"})
            return


def _glibc() -> bool:
    """Whether this interpreter runs on glibc, asked without ctypes (``memory`` loads its ``malloc_trim``)."""
    try:
        return bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (ValueError, OSError):   # another C library, or a system without the name
        return False
