"""Where a shell agent acting in one episode can reach only that episode.

``episode_jail`` runs it under bubblewrap on this machine; ``episode_proxy`` is what compose's
agent-shell container talks to instead of the gateway.
"""

from __future__ import annotations

import sys
from pathlib import Path

import simulator
from sandbox.bridge import Bridge
from sandbox.jail import SOCKET_IN_JAIL, Jail, Limits

OW_FILES = ("__init__.py", "agent/__init__.py", "agent/ow.py", "agent/output.py")  # of simulator/: all ``ow`` imports


def episode_paths(episode_id: str) -> list[str]:
    """The gateway paths of one episode's agent surfaces: its REST and its MCP."""
    return [f"/episodes/{episode_id}/api", f"/episodes/{episode_id}/mcp"]


def episode_proxy(gateway_url: str, episode_id: str, host: str = "127.0.0.1", port: int = 0) -> Bridge:
    """An HTTP proxy on ``host:port`` that forwards only this episode's REST and MCP to the gateway."""
    return Bridge((host, port), gateway_url, episode_paths(episode_id))


def episode_jail(gateway_url: str, episode_id: str, limits: Limits | None = None) -> Jail:
    """A jail whose bridge forwards only this episode's REST and MCP to the gateway.

    Read-only inside: the interpreter, the virtual environment (for ``ow``) and the files ``ow``
    runs from (it imports nothing else of the project); not the apps, the worlds, the tasks or
    anything else of the host.
    """
    prefixes = episode_paths(episode_id)
    venv_bin = Path(sys.executable).parent
    package = Path(simulator.__file__).parent
    env = {"OW_SOCKET": SOCKET_IN_JAIL, "OW_EPISODE": episode_id, "OW_URL": "http://127.0.0.1:8000",
           "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": str(package.parent)}
    binds = [Path(sys.prefix), Path(sys.base_prefix), *(package / name for name in OW_FILES)]
    return Jail(gateway_url, prefixes, env=env, ro_binds=binds, limits=limits or Limits())
