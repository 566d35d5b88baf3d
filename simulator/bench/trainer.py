"""Figures for trainers: trajectory file overhead, replay speed, offline regrade, control-plane throughput.

Part of ``officeworld bench`` (the ``trainer`` section); ``python -m simulator.bench.trainer`` prints
it alone. Targets: a step written to its file in under 20 µs; nothing here asserts a timing.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from apps.kit.invoker import invoke
from simulator.bench.figures import _summary, _times
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog

TASK = "crm-close-globex-renewal"
CALLS: list[tuple[str, dict[str, Any]]] = [("crm_search", {"text": "globex"}), ("crm_get_opportunity", {"opportunity_id": 1}),
         ("mail_search", {"query": "renewal"})]


def write_overhead(folder: Path, world: str, repeat: int) -> dict:
    """What the recorder adds to one step: the step written as a line and flushed (a write step's
    Step, result included), and a write op's latency with and without a file."""
    plain, recording = EpisodeStore(trajectory_dir=None), EpisodeStore(trajectory_dir=folder)
    star = plain.apps["mail"].operations["star"]
    quiet, recorded = plain.create(world), recording.create(world)
    step = invoke(recorded, star, {"message_ids": [1]}, "python")
    recorder = recorded.recorder
    assert recorder is not None  # the store records to folder
    return {"recorder_per_step": _times(lambda: recorder(step), repeat * 5),
            "mail.star_without_file": _times(lambda: invoke(quiet, star, {"message_ids": [1]}, "python"), repeat),
            "mail.star_with_file": _times(lambda: invoke(recorded, star, {"message_ids": [1]}, "python"), repeat)}


def _recorded_task(store: EpisodeStore, catalog, folder: Path, extra_writes: int) -> Path:
    """A finished task episode's file: ``extra_writes`` writes (each with a read) and then the oracle."""
    task = catalog.tasks[TASK]
    episode = store.create(task.world, task.actor, task=task)
    run = catalog.start(TASK, episode=episode)
    ops = store.apps["mail"].operations
    for i in range(extra_writes):
        invoke(episode, ops["star" if i % 2 else "unstar"], {"message_ids": [1 + i % 20]}, "python")
        invoke(episode, ops["search"], {"query": "renewal"}, "python")
    catalog.engine.run_calls(run, task.oracle)
    store.finished(episode, catalog.finish(episode))
    store.delete(episode.id)
    return folder / f"{episode.id}.jsonl"


def replay_and_regrade(folder: Path, repeat: int) -> dict:
    """Replay speed over a file of alternating writes and reads; the oracle's episode regraded offline."""
    from simulator.trajectories.replay import regrade, replay

    store = EpisodeStore(trajectory_dir=folder)
    catalog = task_catalog(store)
    long, oracle = _recorded_task(store, catalog, folder, repeat), _recorded_task(store, catalog, folder, 0)
    offline = EpisodeStore(trajectory_dir=None)
    offline_catalog = task_catalog(offline)
    replay(oracle, offline, offline_catalog)  # warm: the first replay of a task learns its initial state
    started = time.perf_counter()
    done = replay(long, offline, offline_catalog)
    seconds = time.perf_counter() - started
    regrade(oracle, offline, offline_catalog)  # the task's shared part (initial state, allowance) is learnt once
    samples = []
    for _ in range(5):
        started = time.perf_counter()
        regrade(oracle, offline, offline_catalog)
        samples.append((time.perf_counter() - started) * 1e6)
    return {"replay": {"writes": done.replayed, "reads_skipped": done.skipped_reads, "divergences": len(done.divergences),
                       "seconds": round(seconds, 3), "writes_per_s": round(done.replayed / seconds, 1)},
            "regrade_oracle_episode": _summary(samples)}


def control_plane(levels=(1, 8, 64), calls: int = 10) -> dict:
    """Episodes per second through the control API over loopback HTTP, a scripted policy per client:
    create a task episode, ``calls`` tool calls, finish with an answer, delete."""
    from simulator.gateway.client import AsyncClient
    from simulator.gateway.server import build_app
    from simulator.service.serve import serve_in_thread

    async def one(ow: AsyncClient) -> None:
        episode = await ow.create_episode(TASK, tools=False)
        for i in range(calls):
            await ow.call(episode["id"], *CALLS[i % len(CALLS)])
        await ow.finish(episode["id"], answer="done")
        await ow.delete(episode["id"])

    async def level(url: str, clients: int, episodes: int) -> dict:
        gate = asyncio.Semaphore(clients)

        async def bounded(ow):
            async with gate:
                await one(ow)
        async with AsyncClient(url, "bench", max_connections=clients) as ow:
            await one(ow)  # warm: the task's shared part is learnt once per server
            started = time.perf_counter()
            await asyncio.gather(*(bounded(ow) for _ in range(episodes)))
            seconds = time.perf_counter() - started
        return {"episodes": episodes, "seconds": round(seconds, 2), "episodes_per_s": round(episodes / seconds, 1)}

    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token="bench")) as url:
        return {f"{n}_clients": asyncio.run(level(url, n, max(4, n))) for n in levels}


def run(world: str = "acme", repeat: int = 200) -> dict:
    with tempfile.TemporaryDirectory(prefix="officeworld-bench-") as tmp:
        return {"trajectory_write": write_overhead(Path(tmp) / "w", world, repeat),
                **replay_and_regrade(Path(tmp) / "r", repeat),
                "control_plane": control_plane()}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
