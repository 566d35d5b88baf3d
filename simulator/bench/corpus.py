"""``officeworld bench --corpus``: the generated corpus written from nothing (its worlds generated and compiled
in an empty cache), then listed over the control API; and what the corpus holds (tasks per split, world and
difficulty, and how long its oracles are)."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

from fastapi.testclient import TestClient

from scenarios.corpus import PLAN
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations, world_sections
from tasks.corpus import build
from worlds.loader import find_world

TOKEN = "bench-corpus"


@contextmanager
def _cache(path: Path):
    old = {k: os.environ.get(k) for k in ("OFFICEWORLD_CACHE_DIR", "OFFICEWORLD_TOKEN", "OFFICEWORLD_CORPUS")}
    os.environ.update(OFFICEWORLD_CACHE_DIR=str(path), OFFICEWORLD_TOKEN=TOKEN, OFFICEWORLD_CORPUS="on")
    try:
        yield
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run(repeat: int = 30) -> dict:
    with tempfile.TemporaryDirectory() as folder, _cache(Path(folder)):
        store = EpisodeStore()
        sections = world_sections(store.apps)
        started = time.perf_counter()
        worlds = {}
        for name, _ in PLAN.worlds:
            at = time.perf_counter()
            find_world(name, sections)
            store.world(name)
            worlds[name] = round(time.perf_counter() - at, 1)
        written_at = time.perf_counter()
        operations = {f"{op.app}.{op.name}": op for op in all_operations(store.apps)}
        corpus = build(sections, operations, cache=Path(folder))
        done = time.perf_counter()
        figures = {"worlds_generated_and_compiled_s": worlds, "tasks_written_s": round(done - written_at, 1),
                   "total_s": round(done - started, 1), "held": held(corpus.tasks),
                   "skipped": corpus.skipped, "problems": corpus.problems[:20]}
        figures["list_tasks_ms"] = _listing(store, repeat)
    return figures


def held(tasks) -> dict:
    calls = [t.figures.get("oracle_calls", 0) for t in tasks]
    return {"tasks": len(tasks), "families": len({t.family for t in tasks}), "worlds": dict(Counter(t.world for t in tasks)),
            "splits": dict(Counter(t.split for t in tasks)), "difficulty": dict(Counter(t.difficulty for t in tasks)),
            "share_15_calls_or_more": round(sum(c >= 15 for c in calls) / max(len(calls), 1), 3),
            "share_40_calls_or_more": round(sum(c >= 40 for c in calls) / max(len(calls), 1), 3),
            "median_oracle_calls": statistics.median(calls) if calls else 0}


def _listing(store: EpisodeStore, repeat: int) -> dict:
    from simulator.gateway.server import build_app

    headers = {"authorization": f"Bearer {TOKEN}"}
    with TestClient(build_app(store, token=TOKEN)) as api:
        first = time.perf_counter()
        count = len(api.get("/v1/tasks", headers=headers).json())
        out = {"tasks": count, "first_ms": round((time.perf_counter() - first) * 1000, 1)}
        for label, query in (("all", ""), ("split_test", "?split=test")):
            samples = []
            for _ in range(repeat):
                at = time.perf_counter()
                api.get(f"/v1/tasks{query}", headers=headers)
                samples.append((time.perf_counter() - at) * 1000)
            out[f"{label}_median_ms"] = round(statistics.median(samples), 2)
    return out
