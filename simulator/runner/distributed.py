"""A run's rollouts over Ray: world servers as actors, rollouts scheduled over them with back-pressure.

Each actor (``WorldServer``) is one world server: an episode store of its own, in the actor's process,
served through the gateway's ASGI app in memory (no port), or, given ``server``, a client of an
officeworld gateway running elsewhere. The driver compiles each world the tasks need once and puts
its pristine images into Ray's object store once; every actor on a node reads them from that node's
copy (``EpisodeStore.adopt``), and each episode clones its databases locally from them.

The driver keeps the queue: at most ``ceil(concurrency / actors)`` rollouts in flight per actor, the
rest wait at the driver (back-pressure; a slow actor is never handed more). A finished rollout comes
back with its trajectory file's text, which the driver writes to the run's trajectory folder, and
its result, logged to ``rollouts.jsonl``: the same files as one machine writes, so ``report``,
resume and ``officeworld grade`` work the same. A rollout whose actor dies (killed, node lost) is put
back in the queue and the actor replaced; only results that came back count, so none is lost or
counted twice (the dead actor's partial file stays on its node, never gathered).
"""

from __future__ import annotations

import asyncio
import functools
import math
import os
import secrets
import shutil
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from simulator.runner.model import model_http
from simulator.runner.policy import Policy
from simulator.runner.rollout import Rollout
from simulator.runner.run import RunSettings, guarded, log_result, plan

if TYPE_CHECKING:
    from ray import ObjectRef

    from simulator.gateway.client import AsyncClient


class WorldServer:
    """One world server (a Ray actor's body): rollouts against its own episode store, or ``server``."""

    def __init__(self, server: str | None = None, token: str | None = None):
        self.server, self.token, self.folder, self.app, self.store = server, token, None, None, None
        if server is None:
            from simulator.gateway.server import build_app
            from simulator.store.episodes import EpisodeStore

            self.folder = Path(tempfile.mkdtemp(prefix="officeworld-actor-"))
            self.store = EpisodeStore(trajectory_dir=self.folder)
            self.token = "ow_" + secrets.token_urlsafe(16)
            self.app = build_app(self.store, token=self.token)
        self._clients: tuple[AsyncClient, httpx.AsyncClient] | None = None

    def adopt(self, world: str, images: dict[str, bytes]) -> None:
        """The world's pristine images, read from this node's object store (shipped there once)."""
        if self.store is not None:
            self.store.adopt(world, images)

    def _open(self) -> tuple[AsyncClient, httpx.AsyncClient]:
        from simulator.gateway.client import AsyncClient

        if self._clients is None:
            transport = httpx.ASGITransport(self.app) if self.app is not None else None
            ow = AsyncClient(self.server or "http://world", self.token, transport=transport, max_connections=64)
            self._clients = (ow, model_http(64))
        return self._clients

    async def rollout(self, policy: Policy, settings: RunSettings, task: str, sample: int) -> dict:
        """The rollout's result, and its trajectory file's text when this actor keeps the store."""
        ow, http = self._open()
        result = await guarded(ow, http, policy, task, sample, settings)
        text = None
        if self.folder is not None and result.get("episode"):
            path = self.folder / f"{result['episode']}.jsonl"
            text = await asyncio.to_thread(path.read_text, encoding="utf-8") if path.is_file() else None
            path.unlink(missing_ok=True)
        return {"result": result, "trajectory": text}

    def where(self) -> dict:
        """Where this actor runs (answered once it is ready)."""
        return {"pid": os.getpid(), "node": _node_id()}

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


class WorldPool:
    """``actors`` world servers, kept across runs (a trainer's loop reuses them). A dead actor is
    replaced in its slot (``replace``), and is given every world shipped so far."""

    def __init__(self, actors: int = 2, *, server: str | None = None, token: str | None = None,
                 actor_cpus: float = 1.0, address: str | None = None):
        import ray

        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        self.server, self.token = server, token
        # ray's typed overloads of remote() leave out the actor options (max_concurrency, max_restarts)
        self._remote = ray.remote(num_cpus=actor_cpus, max_restarts=0,  # type: ignore[call-overload]
                                  max_concurrency=1000)(WorldServer)
        self._tag = secrets.token_hex(3)
        self._images: dict[str, object] = {}     # world -> ObjectRef of its images, put once
        self.replaced = 0
        began = time.perf_counter()
        self.slots = [self._start(n, 0) for n in range(actors)]
        ray.get([handle.where.remote() for handle, _ in self.slots])
        self.startup = time.perf_counter() - began

    def _start(self, slot: int, generation: int):
        name = f"officeworld-{self._tag}-{slot}.{generation}"
        handle = self._remote.options(name=name, scheduling_strategy="SPREAD").remote(self.server, self.token)
        for world, ref in self._images.items():
            handle.adopt.remote(world, ref)
        return handle, name

    def ship(self, worlds: set[str]) -> None:
        """Compile (or read from the compile cache) each world not shipped yet, put it once, adopt it."""
        import ray

        new = sorted(w for w in worlds if w not in self._images)
        if self.server is not None or not new:
            return
        store = _driver()[0]
        for world in new:
            self._images[world] = ray.put(store.world(world).images)
        ray.get([handle.adopt.remote(w, self._images[w]) for handle, _ in self.slots for w in new])

    def replace(self, slot: int) -> None:
        """A fresh actor in ``slot``; the old one is killed (an unavailable one might come back)."""
        import ray

        ray.kill(self.slots[slot][0])
        self.replaced += 1
        self.slots[slot] = self._start(slot, self.replaced)

    def names(self) -> list[str]:
        return [name for _, name in self.slots]

    def nodes(self) -> dict[str, str]:
        """Each live actor's Ray node id, by actor name (one that does not answer is left out)."""
        import ray

        placed = {}
        for handle, name in self.slots:
            try:
                placed[name] = ray.get(handle.where.remote(), timeout=30)["node"]
            except (ray.exceptions.RayError, TimeoutError):
                continue
        return placed

    def close(self) -> None:
        import ray

        try:
            ray.get([handle.close.remote() for handle, _ in self.slots], timeout=30)
        except ray.exceptions.RayError:
            pass
        for handle, _ in self.slots:
            ray.kill(handle)

    def __enter__(self) -> "WorldPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class Gathered:
    """What a Ray run brought back: every result (resumed ones included), and what it took."""

    results: list[dict]
    retried: int = 0                       # rollouts put back in the queue because their actor died
    replaced: int = 0                      # actors started to replace dead ones
    seconds: float = 0.0                   # wall time of the rollouts run now (actors already up)
    ran: int = 0                           # rollouts run now (not resumed)
    actors: list[str] = field(default_factory=list)   # the actors' names at the end, in slot order
    served: dict[str, int] = field(default_factory=dict)   # actor name -> rollouts it ran that came back
    nodes: dict[str, str] = field(default_factory=dict)    # actor name -> its Ray node id (live ones, at the end)


def run_on_ray(policy: Policy, tasks: list[str], settings: RunSettings, out_dir: Path, *,
               actors: int = 2, pool: WorldPool | None = None, server: str | None = None, token: str | None = None,
               trajectories: Path | None = None, progress=None, max_replacements: int | None = None,
               address: str | None = None) -> Gathered:
    """``tasks`` x ``settings.k`` rollouts over the actors of ``pool`` (or of a pool of ``actors`` made
    for this run), resuming a run already begun. A pool made here uses the Ray instance this process is
    connected to, or connects to ``address`` (``auto``, a head's ``host:port``, ``ray://host:10001``;
    none starts a local one). Trajectory files land in ``trajectories`` (default
    ``out_dir/trajectories``; with ``server``, the folder where that server writes them)."""
    server = pool.server if pool is not None else server
    trajectories = trajectories or (None if server else out_dir / "trajectories")
    results, todo = plan(tasks, settings, out_dir, trajectories)
    if progress is not None:
        progress(len(results), len(results) + len(todo))
    gathered = Gathered(results)
    if not todo:
        return gathered
    if pool is None:
        with WorldPool(actors, server=server, token=token, address=address) as own:
            return _gather(own, policy, todo, settings, out_dir, trajectories, progress, max_replacements, gathered)
    return _gather(pool, policy, todo, settings, out_dir, trajectories, progress, max_replacements, gathered)


def _gather(pool: WorldPool, policy, todo, settings, out_dir, trajectories, progress, limit, gathered) -> Gathered:
    import ray

    if hasattr(policy, "prepare"):
        policy.prepare(sorted({t for t, _ in todo}))   # resolved once here, shipped with the policy
    pool.ship(_worlds({t for t, _ in todo}))
    shipped = ray.put(policy)
    count = len(pool.slots)
    per_actor = max(1, math.ceil(settings.concurrency / count))
    limit = limit if limit is not None else 3 * count
    load, first_replaced = [0] * count, pool.replaced
    queue = deque(todo)
    inflight: dict[ObjectRef[Any], tuple[int, Any, str, int, str]] = {}   # -> (slot, handle, task, sample, name)
    if trajectories is not None:
        trajectories.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    with (out_dir / "rollouts.jsonl").open("a", encoding="utf-8") as log:
        while queue or inflight:
            for n in range(count):
                while load[n] < per_actor and queue:
                    task, sample = queue.popleft()
                    handle, name = pool.slots[n]
                    inflight[handle.rollout.remote(shipped, settings, task, sample)] = (n, handle, task, sample, name)
                    load[n] += 1
            ready, _ = ray.wait(list(inflight), num_returns=1)
            n, handle, task, sample, name = inflight.pop(ready[0])
            current = pool.slots[n][0] is handle
            if current:
                load[n] -= 1
            try:
                got = ray.get(ready[0])
            except ray.exceptions.RayActorError:
                gathered.retried += 1
                queue.appendleft((task, sample))
                if current:
                    if pool.replaced - first_replaced >= limit:
                        raise RuntimeError(f"{pool.replaced - first_replaced} world server actors died; giving up") from None
                    pool.replace(n)
                    load[n] = 0
                continue
            except ray.exceptions.RayTaskError as exc:   # a bug in the actor's own code: this rollout is lost
                got = {"result": {**Rollout(task, sample).as_dict(), "failure": "runner_error",
                                  "detail": str(exc)[-300:]}, "trajectory": None}
            result = got["result"]
            if got["trajectory"] is not None and trajectories is not None:
                _write(trajectories / f"{result['episode']}.jsonl", got["trajectory"])
            log_result(log, settings, result)
            gathered.results.append(result)
            gathered.ran += 1
            gathered.served[name] = gathered.served.get(name, 0) + 1
            if progress is not None:
                progress(1, None)
    gathered.seconds = time.perf_counter() - began
    gathered.replaced = pool.replaced - first_replaced
    gathered.actors = pool.names()
    gathered.nodes = pool.nodes()
    return gathered


def suite_tasks(suite: str | None, tasks: list[str]) -> list[str]:
    """The tasks named, then the suite's (quarantined ones left out, as ``GET /v1/tasks`` does)."""
    catalog = _driver()[1]
    unknown = [t for t in tasks if t not in catalog.tasks]
    if unknown:
        raise ValueError(f"no task {unknown[0]!r}")
    return list(tasks) + ([t.id for t in catalog.select(suite)] if suite else [])


@functools.lru_cache(maxsize=1)
def _driver():
    """The driver's own store and task catalog (to list tasks and compile worlds), made once."""
    from simulator.store.episodes import EpisodeStore
    from simulator.tasks.catalog import task_catalog

    store = EpisodeStore(trajectory_dir=None)
    return store, task_catalog(store)


def _worlds(tasks: set[str]) -> set[str]:
    return {_driver()[1].get(t).world for t in tasks}


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a torn file must not look like a finished rollout."""
    partial = path.with_suffix(".part")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def _node_id() -> str:
    import ray

    return ray.get_runtime_context().get_node_id()
