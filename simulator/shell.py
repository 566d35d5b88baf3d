"""A jail for a shell agent acting in one episode: the ``ow`` CLI works, nothing else is reachable."""

from __future__ import annotations

import sys
from pathlib import Path

import apps
import simulator
import worlds
from sandbox.jail import SOCKET_IN_JAIL, Jail, Limits


def episode_jail(gateway_url: str, episode_id: str, limits: Limits | None = None) -> Jail:
    """A jail whose bridge forwards only this episode's REST and MCP to the gateway.

    Read-only inside: the interpreter, the virtual environment (for ``ow``), the packages ``ow``
    imports (``apps``, ``simulator``, and the Python files of ``worlds``, without any world's data);
    not the tasks or anything else of the host.
    """
    prefixes = [f"/episodes/{episode_id}/api", f"/episodes/{episode_id}/mcp"]
    venv_bin = Path(sys.executable).parent
    env = {"OW_SOCKET": SOCKET_IN_JAIL, "OW_EPISODE": episode_id, "OW_URL": "http://127.0.0.1:8000",
           "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin"}
    world_code = sorted(p for root in worlds.__path__ for p in Path(root).rglob("*.py"))
    binds = [Path(sys.prefix), Path(sys.base_prefix), *map(Path, apps.__path__), *map(Path, simulator.__path__),
             *world_code]
    return Jail(gateway_url, prefixes, env=env, ro_binds=binds, limits=limits or Limits())
