"""``officeworld tasks check`` and ``officeworld tasks agreement``: wiring of ``tasks.qa`` to a store,
the agent surfaces, the report files and the quarantine list."""

from __future__ import annotations

import contextlib
import random
import time
from pathlib import Path

from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations
from simulator.tasks.catalog import task_catalog
from tasks.catalog import Catalog
from tasks.model import Task
from tasks.qa import report
from tasks.qa.check import Checker
from tasks.quarantine import load_quarantine, save_quarantine

SURFACES = ("rest", "mcp", "ow")


def catalog_over(store: EpisodeStore, root: Path) -> Catalog:
    return task_catalog(store, root)


def select(catalog: Catalog, targets: list[str], everything: bool = False, sample: int = 1) -> list[Task]:
    """Tasks named by suite, family or id; when none is named, every written task and ``sample`` generated tasks
    of each family (a stratified sample: the worlds taken in turn, fixed by the seed), or with ``everything``
    the whole corpus. ``KeyError`` names an unknown target."""
    if not targets:
        written = list(catalog.written.values())
        generated = [t for t in catalog.tasks.values() if t.id not in catalog.written]
        return written + (generated if everything else stratified(generated, sample))
    chosen: dict[str, Task] = {}
    for target in targets:
        found = [t for t in catalog.tasks.values() if t.suite == target or t.id == target]
        if not found:
            raise KeyError(target)
        chosen.update({t.id: t for t in found})
    return list(chosen.values())


def stratified(tasks: list[Task], per_family: int, seed: int = 0) -> list[Task]:
    """``per_family`` tasks of each family, each from the next of its worlds in turn, chosen by ``seed``."""
    families: dict[str, dict[str, list[Task]]] = {}
    for task in tasks:
        families.setdefault(task.family, {}).setdefault(task.world, []).append(task)
    rng = random.Random(seed)
    out = []
    for index, (family, worlds) in enumerate(sorted(families.items())):
        names = sorted(worlds)
        for n in range(per_family):
            pool = worlds[names[(index + n) % len(names)]]
            out.append(pool[rng.randrange(len(pool))])
    return list({t.id: t for t in out}.values())


def run_check(root: Path, targets: list[str], surfaces: list[str], ow_all: bool = False,
              top_up: bool = True, store: EpisodeStore | None = None, everything: bool = False,
              sample: int = 1) -> tuple[dict, list]:
    """Check the tasks; returns (the report as data, the suite results)."""
    started, cpu = time.perf_counter(), time.process_time()
    store = store or EpisodeStore()
    catalog = catalog_over(store, root)
    tasks = select(catalog, targets, everything, sample)
    notes = [f"{len(catalog.quarantined)} task(s) were in quarantine: checked and reported, but outside the "
             "suite figures and the exit code"] if catalog.quarantined else []
    notes += [f"surfaces: {', '.join(surfaces) or 'none'}"
             + ("; ow on the first task of each suite only (a subprocess per call)" if "ow" in surfaces and not ow_all else "")]
    with _surfaces(store, catalog, surfaces) as (found, setup_s):
        checker = Checker(catalog.engine, release=lambda episode: store.delete(episode.id), surfaces=found,
                          sampled=set() if ow_all else {"ow"}, quarantined=set(catalog.quarantined))
        results = checker.check(tasks, top_up=top_up)
    spent = {s: round(sum(o.seconds for su in results for t in su.tasks for o in t.outcomes
                          if o.attempt.surface == s), 2) for s in surfaces}
    notes.append(f"time in surface runs: {spent} s (+{setup_s:.1f} s to start them)")
    return report.to_dict(results, time.perf_counter() - started, time.process_time() - cpu, notes), results


def update_quarantine(root: Path, results: list) -> dict[str, str]:
    """Quarantine the tasks that failed, release the checked ones that passed; returns the new list."""
    entries = load_quarantine(root)
    failing = report.failing(results)
    for suite in results:
        for t in suite.tasks:
            entries.pop(t.task.id, None)
    entries.update(failing)
    save_quarantine(root, entries)
    return entries


@contextlib.contextmanager
def _surfaces(store: EpisodeStore, catalog: Catalog, names: list[str]):
    if not names:
        yield [], 0.0
        return
    from fastapi.testclient import TestClient

    from simulator.gateway.server import build_app
    from simulator.service.serve import serve_in_thread
    from simulator.tasks.surfaces import McpSurface, OwSurface, RestSurface

    started = time.perf_counter()
    tools = {f"{op.app}_{op.name}" for op in all_operations(store.apps)}
    with contextlib.ExitStack() as stack:
        found: list[RestSurface | McpSurface | OwSurface] = []
        if "rest" in names:
            found.append(RestSurface(stack.enter_context(TestClient(build_app(store), base_url="http://localhost:8000"))))
        if "mcp" in names or "ow" in names:  # its own app: an MCP session manager runs once per app
            url = stack.enter_context(serve_in_thread(build_app(store)))
            found += [McpSurface(url, tools)] if "mcp" in names else []
            found += [OwSurface(url, catalog.operations)] if "ow" in names else []
        yield found, time.perf_counter() - started
