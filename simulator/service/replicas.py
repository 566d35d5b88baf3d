"""compose's scaled gateway (``compose.scale.yaml``): replicas that claim a worker tag, HAProxy in front.

The replicas of one compose service are alike: same command, same environment, no index of their own. Each
one claims a tag when it starts (``claim_slot``): the first of ``w0..w<N-1>`` whose lock file, in the
trajectory volume they all mount, it can lock (``flock``, held for the life of the process; the kernel lets
go of it when the process ends, however it ends). It then runs as that worker of ``up --workers N`` does:
its episodes are ``ep_<tag>_...``, its trajectory files are in ``<volume>/<tag>``, its peers are the other
tags, reached through the router. A restarted replica takes a free tag again, the one it left when the
others still hold theirs, and resumes that tag's episodes from their files (``OFFICEWORLD_RESUME``). A
replica beyond N finds every tag held and waits, without serving, until one is let go: a standby.

The router (``officeworld router``, HAProxy) finds the replicas by DNS (``server-template ... resolvers``):
every replica is a server of every tag's backend, and each backend's health check asks ``/health`` with
``x-officeworld-local: <tag>``, which only the replica holding that tag answers 200 (the others 421,
``simulator.gateway.peers.misdirected``). So a request naming an episode of ``w1`` (its path, or that header,
which the peers' questions carry) reaches the replica holding ``w1`` and no other; with none up it gets the
same shaped 503 as ``up --workers N``'s router. Anything else goes to any replica. HAProxy counts a server DNS
just gave as up until its first check: in that window a replica asked for another tag's episode refuses it
unanswered (421) and the router turns that into a shaped 503.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Callable, MutableMapping
from pathlib import Path

from apps.kit.settings import settings

SLOTS = ".slots"   # the lock files' folder in the trajectory volume
_held: list[int] = []   # the claimed tag's lock, open until the process ends


def try_claim(root: Path, count: int) -> tuple[str, int] | None:
    """Lock the first free tag of ``w0..w<count-1>`` under ``root``: (tag, the lock's descriptor), or None."""
    folder = root / SLOTS
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(count):
        descriptor = os.open(folder / f"w{k}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            continue
        return f"w{k}", descriptor
    return None


def claim_slot(root: Path, count: int, wait_s: float = 2.0, say: Callable[[str], None] | None = None) -> str:
    """Claim a tag under ``root``, waiting (a standby) while all ``count`` are held; the lock is kept."""
    waiting = False
    while True:
        claimed = try_claim(root, count)
        if claimed is not None:
            _held.append(claimed[1])
            return claimed[0]
        if not waiting and say is not None:
            say(f"officeworld: all {count} gateway tags are held; waiting for one to be let go")
            waiting = True
        time.sleep(wait_s)


def become_replica(env: MutableMapping[str, str] = os.environ) -> str | None:
    """With ``OFFICEWORLD_WORKER_SLOTS``: claim a tag and set this process's worker settings from it
    (``OFFICEWORLD_WORKER``, ``_TRAJECTORY_DIR``, ``_PEERS``); the tag, or None when not a replica."""
    current = settings()
    if not current.worker_slots:
        return None
    if current.trajectory_dir is None or not current.router_url.startswith("http"):
        raise ValueError("OFFICEWORLD_WORKER_SLOTS needs OFFICEWORLD_TRAJECTORY_DIR (the volume the replicas share) "
                         "and OFFICEWORLD_ROUTER_URL (the router they reach each other through)")
    root, count, router = current.trajectory_dir, current.worker_slots, current.router_url.rstrip("/")
    tag = claim_slot(root, count, say=lambda line: print(line, file=sys.stderr, flush=True))
    env["OFFICEWORLD_WORKER"] = tag
    env["OFFICEWORLD_TRAJECTORY_DIR"] = str(root / tag)
    env["OFFICEWORLD_PEERS"] = ",".join(f"w{k}={router}" for k in range(count) if f"w{k}" != tag)
    print(f"officeworld: this gateway is worker {tag} of {count}", file=sys.stderr, flush=True)
    return tag
