"""What ``officeworld up`` can start before its imports: the stamp of its world's files, taken by a child
process (``worlds.loader.stamp_ahead``) while this one imports the apps and the server (seconds). On an
``xl`` world (105,000 files) that walk costs one to two seconds of a start, now spent on another core."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Sequence


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
    from worlds.loader import WORLDS_DIR, stamp_ahead

    for root in (Path(world), WORLDS_DIR / world):
        if (root / "world.yaml").is_file():
            return stamp_ahead(root)
    return False
