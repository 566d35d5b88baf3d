"""``officeworld up --backend processes|docker``: run compose.yaml's services, then wait for Ctrl-C."""

from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path

import httpx

from sandbox.config import open_backend, parse_config
from simulator.gateway.auth import control_token
from simulator.store.compile import cache_dir

COMPOSE_FILE = Path(__file__).resolve().parents[2] / "compose.yaml"   # simulator/service/deploy.py -> the root


def run_backend(kind: str, world: str, port: int, first_episode: bool, claim: socket.socket | None = None) -> int:
    """Start the services with backend ``kind``, print the gateway's address, serve until interrupted. ``claim``
    holds the gateway's port until the services start (``simulator.service.serve.claimed``)."""
    token = control_token()  # the gateway takes it from the environment; made and printed here when unset
    env, extra = {"OFFICEWORLD_WORLD": world, "OFFICEWORLD_TOKEN": token}, {}
    if kind == "processes":
        extra = {"ports": {"gateway": port}}  # the containers' /cache and /trajectories are this user's folders here
        env |= {"OFFICEWORLD_CACHE_DIR": str(cache_dir()), "OFFICEWORLD_TRAJECTORY_DIR": str(Path("trajectories").resolve())}
    else:
        env |= {"OFFICEWORLD_PORT": str(port)}
    try:
        config = parse_config({"kind": kind, "compose_file": COMPOSE_FILE, "env": env, **extra})
    except ValueError:
        print(f"error: unknown backend {kind!r} (inprocess, processes or docker)", file=sys.stderr)
        return 2
    if claim is not None:
        claim.close()   # the gateway process binds it next
    with open_backend(config) as backend:
        base = backend.url("gateway")
        print(f"officeworld ({kind}): gateway at {base}   control API: {base}/v1/episodes", file=sys.stderr)
        if first_episode:
            made = httpx.post(f"{base}/v1/episodes", json={"world": world}, timeout=60,
                              headers={"Authorization": f"Bearer {token}"})
            if made.status_code != 201:   # e.g. another server answers there, with another token
                print(f"error: the gateway at {base} did not create the first episode: HTTP {made.status_code} "
                      f"{made.text[:300]}", file=sys.stderr)
                return 1
            ep = made.json()
            print(f"episode {ep['id']} as {ep['actor']}\n  MCP:  {ep['mcp_url']}\n  REST: {ep['api_url']}\n"
                  f"  CLI:  export OW_URL={base} OW_EPISODE={ep['id']}", file=sys.stderr)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
    return 0
