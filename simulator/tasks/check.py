"""``officeworld tasks check`` and ``officeworld tasks agreement``: wiring of ``tasks.qa`` to a store,
the agent surfaces, the report files and the quarantine list."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
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


def select(catalog: Catalog, targets: list[str]) -> list[Task]:
    """Tasks named by suite or id (every task when none is named); ``KeyError`` names an unknown one."""
    if not targets:
        return list(catalog.tasks.values())
    chosen: dict[str, Task] = {}
    for target in targets:
        found = [t for t in catalog.tasks.values() if t.suite == target or t.id == target]
        if not found:
            raise KeyError(target)
        chosen.update({t.id: t for t in found})
    return list(chosen.values())


def run_check(root: Path, targets: list[str], surfaces: list[str], ow_all: bool = False,
              top_up: bool = True, store: EpisodeStore | None = None,
              progress: Callable[[str], None] = lambda line: None) -> tuple[dict, list]:
    """Check the tasks; returns (the report as data, the suite results). ``progress`` is told what starts,
    and each task's result as it comes (``officeworld tasks check`` prints it on stderr)."""
    started, cpu = time.perf_counter(), time.process_time()
    store = store or EpisodeStore()
    catalog = catalog_over(store, root)
    tasks = select(catalog, targets)
    progress(f"checking {len(tasks)} task(s) in {len({t.suite for t in tasks})} suite(s); surfaces: "
             f"{', '.join(surfaces) or 'none'}" + (" (starting them)" if surfaces else ""))
    notes = [f"{len(catalog.quarantined)} task(s) were in quarantine: checked and reported, but outside the "
             "suite figures and the exit code"] if catalog.quarantined else []
    notes += [f"surfaces: {', '.join(surfaces) or 'none'}"
             + ("; ow on the first task of each suite only (a subprocess per call)" if "ow" in surfaces and not ow_all else "")]
    with _surfaces(store, catalog, surfaces) as (found, setup_s):
        checker = Checker(catalog.engine, release=lambda episode: store.delete(episode.id), surfaces=found,
                          sampled=set() if ow_all else {"ow"}, quarantined=set(catalog.quarantined))
        _told(checker, len(tasks), progress)
        results = checker.check(tasks, top_up=top_up)
    spent = {s: round(sum(o.seconds for su in results for t in su.tasks for o in t.outcomes
                          if o.attempt.surface == s), 2) for s in surfaces}
    notes.append(f"time in surface runs: {spent} s (+{setup_s:.1f} s to start them)")
    return report.to_dict(results, time.perf_counter() - started, time.process_time() - cpu, notes), results


def _told(checker: Checker, count: int, progress: Callable[[str], None]) -> None:
    """Tell ``progress`` of each task the checker finishes: its place, id, result and time."""
    check_task, done = checker.check_task, [0]

    def told(task, first: bool = True):
        result = check_task(task, first)
        done[0] += 1
        verdict = f"failed ({len(result.failures)} finding(s))" if result.failures else "ok"
        progress(f"[{done[0]}/{count}] {task.id}: {verdict} in {result.seconds:.1f} s")
        return result
    checker.check_task = told   # type: ignore[method-assign]


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
