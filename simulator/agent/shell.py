"""Where a shell agent acting in one episode can reach only that episode.

``episode_jail`` runs it under bubblewrap on this machine; ``episode_proxy`` is what compose's
agent-shell container talks to instead of the gateway (its image, the Dockerfile's ``agent`` stage,
holds the same: the interpreter and ``ow``'s files).
"""

from __future__ import annotations

import sys
from pathlib import Path

import simulator
from sandbox.bridge import Bridge
from sandbox.jail import SOCKET_IN_JAIL, Jail, Limits

OW_FILES = ("__init__.py", "agent/__init__.py", "agent/ow.py", "agent/output.py")  # of simulator/: all ``ow`` imports
OW_HOME = "/opt/ow"  # inside the jail: ``ow``'s files, its launcher and ``python``
LAUNCHER = f"#!{OW_HOME}/bin/python\nimport sys\nfrom simulator.agent.ow import main\nsys.exit(main())\n"


def episode_paths(episode_id: str) -> list[str]:
    """The gateway paths of one episode's agent surfaces: its REST and its MCP."""
    return [f"/episodes/{episode_id}/api", f"/episodes/{episode_id}/mcp"]


def episode_proxy(gateway_url: str, episode_id: str, host: str = "127.0.0.1", port: int = 0) -> Bridge:
    """An HTTP proxy on ``host:port`` that forwards only this episode's REST and MCP to the gateway."""
    return Bridge((host, port), gateway_url, episode_paths(episode_id))


def episode_jail(gateway_url: str, episode_id: str, limits: Limits | None = None) -> Jail:
    """A jail whose bridge forwards only this episode's REST and MCP to the gateway.

    Read-only inside: the base interpreter and its standard library, and the four files ``ow``
    runs from (it imports nothing else), placed under ``/opt/ow``. Not the virtual environment,
    not any site-packages (an installed officeworld ships its task definitions and grader-only
    facts as package data there: they are hidden under an empty tmpfs), not the apps, the worlds,
    the tasks or anything else of the host. The environment inside is this episode's and nothing
    else (see ``sandbox.jail.MINIMAL_ENV``).
    """
    package = Path(simulator.__file__).parent
    python = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    env = {"OW_SOCKET": SOCKET_IN_JAIL, "OW_EPISODE": episode_id, "OW_URL": "http://127.0.0.1:8000",
           "PATH": f"{OW_HOME}/bin:/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": OW_HOME, "PYTHONNOUSERSITE": "1"}
    mounts = {package / name: f"{OW_HOME}/simulator/{name}" for name in OW_FILES}
    return Jail(gateway_url, episode_paths(episode_id), env=env, ro_binds=[Path(sys.base_prefix)], mounts=mounts,
                hide=package_dirs(), links={str(python): f"{OW_HOME}/bin/python"},
                files={f"{OW_HOME}/bin/ow": LAUNCHER}, limits=limits or Limits())


def package_dirs() -> list[Path]:
    """Every directory where an interpreter on this machine keeps installed packages (to hide them)."""
    prefixes = {Path(sys.base_prefix), Path(sys.prefix), Path("/usr"), Path("/usr/local")}
    found = {Path(p) for prefix in prefixes for pattern in ("lib*/python3*/site-packages", "lib*/python3*/dist-packages",
                                                            "lib/python3/dist-packages") for p in prefix.glob(pattern)}
    return sorted(found)
