"""Rollouts per second with the scripted policy: one process, then 1 and 2 Ray actors on this machine.

``python -m simulator.runner.bench_ray`` prints JSON. Each configuration first runs a warm-up round
(every actor compiles nothing, but learns each task's allowance on its first episode of it), then
the measured round; the figure is rollouts run / wall time of that round, actors already up (their
start-up is reported apart). Nothing asserts a timing; on a shared machine the figures move.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

TASKS = ["crm-close-globex-renewal", "crm-contoso-note", "crm-reassign-tyrell", "docs-star-pricing-policy"]


def single_process(tasks: list[str], k: int, concurrency: int, folder: Path) -> dict:
    from simulator.gateway.client import AsyncClient
    from simulator.gateway.server import build_app
    from simulator.runner.run import RunSettings, run_rollouts
    from simulator.runner.scripted import OraclePolicy
    from simulator.service.serve import serve_in_thread
    from simulator.store.episodes import EpisodeStore

    policy = OraclePolicy()

    async def go(base, name, samples):
        async with AsyncClient(base, "bench", max_connections=concurrency * 2) as ow:
            settings = RunSettings(name=name, k=samples, concurrency=concurrency)
            began = time.perf_counter()
            results = await run_rollouts(ow, policy, tasks, settings, folder / name, folder / name / "trajectories")
            return len(results), time.perf_counter() - began
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=folder / "files"), token="bench")) as base:
        asyncio.run(go(base, "warm", 1))
        ran, seconds = asyncio.run(go(base, "measured", k))
    return {"rollouts": ran, "seconds": round(seconds, 2), "rollouts_per_second": round(ran / seconds, 2)}


def on_ray(actors: int, tasks: list[str], k: int, concurrency: int, folder: Path) -> dict:
    from simulator.runner.distributed import WorldPool, run_on_ray
    from simulator.runner.run import RunSettings
    from simulator.runner.scripted import OraclePolicy

    policy = OraclePolicy()
    with WorldPool(actors) as pool:
        run_on_ray(policy, tasks, RunSettings(f"warm{actors}", k=actors, concurrency=concurrency),
                   folder / f"warm{actors}", pool=pool)
        got = run_on_ray(policy, tasks, RunSettings(f"ray{actors}", k=k, concurrency=concurrency),
                         folder / f"ray{actors}", pool=pool)
        startup = pool.startup
    return {"actors": actors, "rollouts": got.ran, "seconds": round(got.seconds, 2),
            "rollouts_per_second": round(got.ran / got.seconds, 2), "actor_startup_seconds": round(startup, 2)}


def run(tasks: list[str] = TASKS, k: int = 4, concurrency: int = 8, actors: tuple[int, ...] = (1, 2)) -> dict:
    import ray

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        out: dict[str, object] = {"tasks": len(tasks), "k": k, "concurrency": concurrency, "cpus": os.cpu_count(),
               "single_process": single_process(tasks, k, concurrency, folder)}
        ray.init(num_cpus=max(actors), include_dashboard=False, log_to_driver=False)
        try:
            out["ray"] = [on_ray(n, tasks, k, concurrency, folder) for n in actors]
        finally:
            ray.shutdown()
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=4, help="Rollouts per task in the measured round")
    parser.add_argument("--concurrency", type=int, default=8, help="Rollouts at once (all actors together)")
    parser.add_argument("--task", action="append", help="A task (repeatable; default: four CRM and docs tasks)")
    args = parser.parse_args()
    print(json.dumps(run(args.task or TASKS, args.k, args.concurrency), indent=1))
