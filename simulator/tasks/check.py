"""``officeworld tasks check`` and ``officeworld tasks agreement``: wiring of ``tasks.qa`` to a store,
the agent surfaces, the report files and the quarantine list."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from pathlib import Path

from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations
from simulator.tasks.catalog import task_catalog
from simulator.tasks.sandbox_probe import readable_grader_files
from tasks.catalog import Catalog
from tasks.model import Task
from tasks.qa import report
from tasks.qa.check import Checker
from tasks.quarantine import load_quarantine, save_quarantine

SURFACES = ("rest", "mcp", "ow")
SAMPLE_SUITE = "generated-sample"


def catalog_over(store: EpisodeStore, root: Path) -> Catalog:
    return task_catalog(store, root)


def select(catalog: Catalog, targets: list[str], everything: bool = False, sample: int = 1) -> list[Task]:
    """Tasks named by suite, family or id; when none is named, every written task and ``sample`` generated tasks
    of each family (a stratified sample: the worlds taken in turn, fixed by the seed), or with ``everything``
    the whole corpus. ``KeyError`` names an unknown target."""
    if not targets:
        written = list(catalog.written.values())
        generated = [t for t in catalog.tasks.values() if t.id not in catalog.written]
        if everything:
            return written + generated
        # The sample's runs are pooled into one suite for the Wilson bounds (a family's own bounds need ~190
        # wrong runs of its own: that proof is --all, or FAMILY as a target); every task still meets its gates.
        return written + [t.model_copy(update={"suite": SAMPLE_SUITE}) for t in stratified(generated, sample)]
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
              sample: int = 1, progress: Callable[[str], None] = lambda line: None) -> tuple[dict, list]:
    """Check the tasks; returns (the report as data, the suite results). ``progress`` is told what starts,
    and each task's result as it comes (``officeworld tasks check`` prints it on stderr)."""
    started, cpu = time.perf_counter(), time.process_time()
    store = store or EpisodeStore()
    catalog = catalog_over(store, root)
    catalog.engine.fork = lambda episode: store.fork(episode.id)   # each task's setup runs once, its runs fork it
    tasks = select(catalog, targets, everything, sample)
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
        try:
            results = checker.check(tasks, top_up=top_up)
        finally:
            catalog.engine.close()
    spent = {s: round(sum(o.seconds for su in results for t in su.tasks for o in t.outcomes
                          if o.attempt.surface == s), 2) for s in surfaces}
    notes.append(f"time in surface runs: {spent} s (+{setup_s:.1f} s to start them)")
    leaks = readable_grader_files(root)
    notes.append("sandbox: the shell jail cannot run here; whether it shows the task files was not checked"
                 if leaks is None else f"sandbox: {len(leaks)} task or grader file(s) readable in the shell jail")
    data = report.to_dict(results, time.perf_counter() - started, time.process_time() - cpu, notes)
    data["sandbox"] = {"checked": leaks is not None, "readable": (leaks or [])[:50]}
    data["ok"] = data["ok"] and not leaks
    return data, results


def _told(checker: Checker, count: int, progress: Callable[[str], None]) -> None:
    """Tell ``progress`` of each task the checker finishes (its place, id, result and time), then of each suite
    once its top-up is done: the tasks whose findings the top-up's runs changed, and the suite's result. So the
    last word said of every task is the report's."""
    check_task, check_suite, done, said = checker.check_task, checker.check_suite, [0], {}

    def told(task, first: bool = True):
        result = check_task(task, first)
        done[0] += 1
        said[task.id] = len(result.failures)
        progress(f"[{done[0]}/{count}] {task.id}: {_verdict(result)} in {result.seconds:.1f} s")
        return result

    def suite_told(suite: str, tasks: list[Task], top_up: bool = True):
        result = check_suite(suite, tasks, top_up)
        for t in result.tasks:
            if len(t.failures) != said.get(t.task.id):
                progress(f"  {t.task.id}: {_verdict(t)} after the suite's top-up runs")
        passed = sum(t.passed for t in result.tasks)
        gates = f"FAIL ({len(result.failures)} finding(s))" if result.failures else "pass"
        progress(f"suite {suite}: {passed}/{len(result.tasks)} task(s) pass; suite gates {gates}; top-up "
                 f"+{result.top_up['right']} right, +{result.top_up['wrong']} wrong run(s)")
        return result
    checker.check_task = told   # type: ignore[method-assign]
    checker.check_suite = suite_told   # type: ignore[method-assign]


def _verdict(result) -> str:
    return f"failed ({len(result.failures)} finding(s))" if result.failures else "ok"


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
