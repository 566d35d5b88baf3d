"""Figures for one world: episode create and fork, operation latency, MCP latency, memory per episode,
GUI page render time (server side) and a browser agent's action round trip.

Printed as JSON by ``officeworld bench``; nothing here asserts a timing. ``served`` (``served.py``)
measures ``/health``, REST and MCP with the server in its own process. Targets (issue 16, on a 2-core
machine): an in-process op under 50 µs, a REST call under 1 ms above ``/health``, an MCP call under a
third of OpenEnv's (``bench/peers``), fork of a touched episode under 0.5 ms, an ``ow`` command under 150 ms, grading under 2 ms.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import sqlite3
import statistics
import time
from typing import Callable

from apps.kit.invoker import invoke
from simulator.bench import served
from simulator.gui.shots import browser_round_trip, render_times
from simulator.store.episodes import EpisodeStore

# One representative call per app; an app missing from the registry is skipped.
PROBES: dict[str, list[tuple[str, dict]]] = {
    "mail": [("get_message", {"message_id": 1}), ("search", {"query": "renewal"}),
             ("search", {"query": "from:me is:unread"}), ("search", {"query": "is:unread"}),
             ("search_threads", {}),
             ("get_thread", {"thread_id": 1}),
             ("star", {"message_ids": [1]})],
    "crm": [("get_opportunity", {"opportunity_id": 1}), ("search", {"text": "globex"}),
            ("query", {"soql": "SELECT name, amount FROM Opportunity WHERE amount > 50000 ORDER BY amount DESC"}),
            ("pipeline_by_stage", {})],
    "docs": [("get_file", {"file_id": 1}), ("list_view", {"view": "my_drive"}), ("search", {"query": "renewal"}),
             ("search", {"query": "pipeline forecast"})],
}


def probe_label(app: str, name: str, args: dict) -> str:
    """A probe's key in ``op_in_process``: ``mail.get_message``, ``mail.search(is:unread)``."""
    return f"{app}.{name}" + (f"({args['query']})" if "query" in args else "")


def _summary(samples_us: list[float], cpu_us: list[float] | None = None) -> dict:
    """Median and p90 of wall-clock samples; with ``cpu_us``, the median of this process's CPU time too
    (steadier than wall time on a shared machine: another process's turn on the core is not counted)."""
    samples_us = sorted(samples_us)
    out = {"median_us": round(statistics.median(samples_us), 1),
           "p90_us": round(samples_us[int(len(samples_us) * 0.9) - 1], 1), "samples": len(samples_us)}
    if cpu_us:
        out["cpu_median_us"] = round(statistics.median(cpu_us), 1)
    return out


def _times(fn: Callable[[], object], repeat: int) -> dict:
    samples, cpu = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        fn()
        cpu.append((time.process_time() - started_cpu) * 1e6)
        samples.append((time.perf_counter() - started) * 1e6)
    return _summary(samples, cpu)


def _create_and_clone(store: EpisodeStore, world: str) -> None:
    """One episode with every app's state opened (a clone of each image), as a fully built environment."""
    episode = store.create(world)
    for app in store.apps:
        episode.db(app)


def _ops(store: EpisodeStore, world: str, repeat: int) -> dict:
    episode = store.create(world)
    out = {}
    for app, probes in PROBES.items():
        if app not in store.apps:
            continue
        for name, args in probes:
            op = store.apps[app].operations[name]
            label = probe_label(app, name, args)
            if invoke(episode, op, args, "python").error:
                out[label] = {"error": "probe failed on this world"}
                continue
            out[label] = _times(lambda: invoke(episode, op, args, "python"), repeat)
    return out


def _memory(store: EpisodeStore, world: str, count: int = 100) -> dict:
    """Resident memory per live episode with every app cloned and touched, next to the sum of the images,
    and per episode created but never touched."""
    images = store.world(world).images
    gc.collect()
    before = served.rss_mb()
    keep = []
    for _ in range(count):
        episode = store.create(world)
        for app in store.apps:
            episode.db(app)
        invoke(episode, store.apps["mail"].operations["star"], {"message_ids": [1]}, "python")
        keep.append(episode)
    gc.collect()
    touched = (served.rss_mb() - before) / count
    before = served.rss_mb()
    idle = [store.create(world) for _ in range(count)]
    gc.collect()
    untouched = (served.rss_mb() - before) / count
    del keep, idle
    image_mb = sum(len(img) for img in images.values()) / 2**20
    return {"live_episodes": count, "mb_per_episode": round(touched, 3), "mb_per_untouched_episode": round(untouched, 3),
            "per_episode_over_images": round(touched / image_mb, 2) if image_mb else None,
            "image_mb": {app: round(len(img) / 2**20, 3) for app, img in images.items()}}


def _first_calls(store: EpisodeStore, world: str, repeat: int) -> dict:
    """The first call of a fresh episode (opening the app's state on the way) next to a later one."""
    out = {}
    for app, probes in PROBES.items():
        if app not in store.apps:
            continue
        name, args = probes[0]
        op = store.apps[app].operations[name]
        episodes = [store.create(world) for _ in range(repeat)]
        first = iter(episodes)
        out[f"{app}.{name}"] = {"first": _times(lambda: invoke(next(first), op, args, "python"), repeat),
                                "later": _times(lambda: invoke(episodes[0], op, args, "python"), repeat)}
        for episode in episodes:
            store.delete(episode.id)
    return out


def in_process(world: str = "acme", repeat: int = 200) -> dict:
    """The in-process figures only (no server, browser or subprocess): ``python -m simulator.bench.figures``;
    the machine's ``pace`` before and after them."""
    pace_at_start = pace()
    store = EpisodeStore()
    parent = store.create(world)
    for app in store.apps:
        parent.db(app)
    invoke(parent, store.apps["mail"].operations["star"], {"message_ids": [1]}, "python")
    return {
        "episode_create": _times(lambda: store.create(world), repeat),
        "episode_fork_touched": _times(lambda: store.fork(parent.id), repeat),
        "op_in_process": _ops(store, world, repeat),
        # Memory before first_call: the episodes first_call deletes leave freed pages that new ones would reuse.
        "memory": _memory(store, world),
        "first_call": _first_calls(store, world, min(repeat, 100)),
        "pace_us": {"start": pace_at_start, "end": pace()},
    }


def _browser(store: EpisodeStore, world: str) -> dict:
    try:
        return browser_round_trip(store, world)
    except RuntimeError as exc:  # no Chromium on this machine
        return {"error": str(exc)}


# Tasks graded in the benchmark: one per app and one across apps, each after its oracle ran.
GRADED = ("crm-close-globex-renewal", "mail-reply-all-okr-deadline", "docs-log-cyberdyne-discount", "cross-globex-signed")


def _grading(store: EpisodeStore, repeat: int) -> dict:
    """Grading one finished episode (checks and state diff), once a task's initial state and allowance
    are known (the first episode of a task pays for those, every later one reuses them)."""
    from simulator.tasks.catalog import task_catalog

    catalog = task_catalog(store)
    out = {}
    for task_id in GRADED:
        if task_id not in catalog.tasks:
            continue
        run = catalog.start(task_id)
        catalog.engine.run_calls(run, catalog.tasks[task_id].oracle)
        started = time.perf_counter()
        catalog.engine.grade(run)
        first = (time.perf_counter() - started) * 1e3
        out[task_id] = {**_times(lambda: catalog.engine.grade(run), repeat), "first_grade_ms": round(first, 2)}
    return out


def _ow(store: EpisodeStore, world: str, repeat: int) -> dict:
    """Wall time of whole ``ow`` commands (a process each), its tool list cached, next to a bare interpreter."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from simulator.gateway.server import build_app
    from simulator.service.serve import serve_in_thread

    script = Path(sys.executable).parent / "ow"
    # The installed script when it is this layout's (a venv installed before a move keeps a stale one),
    # else the same import the script makes.
    current = script.exists() and "simulator.agent.ow import main" in script.read_text(errors="replace")
    ow = [str(script)] if current else [sys.executable, "-c", "from simulator.agent.ow import main; main()"]
    episode = store.create(world)
    with tempfile.TemporaryDirectory() as cache, serve_in_thread(build_app(store)) as url:
        env = {**os.environ, "OW_URL": url, "OW_EPISODE": episode.id, "OW_CACHE": cache}

        def run(*argv: str) -> None:
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

        run(*ow, "mail", "list-labels")  # fetches and caches the tool list, as an agent's first command does
        return {"python_start": _ms(_times(lambda: run(sys.executable, "-c", "pass"), repeat)),
                "ow_help": _ms(_times(lambda: run(*ow, "mail", "--help"), repeat)),
                "ow_mail_get_message": _ms(_times(lambda: run(*ow, "mail", "get-message", "1", "--json"), repeat))}


def _ms(summary: dict) -> dict:
    return {"median_ms": round(summary["median_us"] / 1000, 1), "p90_ms": round(summary["p90_us"] / 1000, 1),
            "samples": summary["samples"]}


def pace(repeat: int = 300) -> float:
    """The machine's pace: median CPU µs of one fixed piece of work that has nothing of officeworld in it (200
    rows read from an in-memory SQLite table, made into dicts, sorted and written as JSON). This box's CPU time
    for the same work swings 2x and more between quiet and busy hours, so figures of two runs compare only after
    dividing each by its run's pace; ``run`` takes it at its start and its end (far apart: the machine changed
    pace during the run)."""
    conn = sqlite3.connect(":memory:")
    conn.execute("create table t (id integer primary key, name text, amount real)")
    conn.executemany("insert into t values (?, ?, ?)", [(i, f"record {i * 7919 % 200}", i * 137.5) for i in range(200)])

    def work() -> bytes:
        rows = conn.execute("select id, name, amount from t where amount > ? order by amount desc", (0.0,)).fetchall()
        return json.dumps(sorted(({"id": i, "name": n, "amount": a} for i, n, a in rows), key=lambda r: r["name"])).encode()

    try:
        return _times(work, repeat)["cpu_median_us"]
    finally:
        conn.close()


def run(world: str = "acme", repeat: int = 200, live: int = 1000) -> dict:
    pace_us, load_at_start = {"start": pace()}, [round(x, 2) for x in os.getloadavg()]
    store = EpisodeStore()
    started = time.perf_counter()
    compiled = store.world(world)
    load_s = time.perf_counter() - started
    parent = store.create(world)
    for app in store.apps:
        parent.db(app)
    invoke(parent, store.apps["mail"].operations["star"], {"message_ids": [1]}, "python")
    figures = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "pace_us": pace_us, "load_average_at_start": load_at_start},
        "world": {"name": world, "people": len(compiled.info.people), "load_and_compile_s": round(load_s, 3)},
        "episode_create": _times(lambda: store.create(world), repeat),
        "episode_create_and_clone_all_apps": _times(lambda: _create_and_clone(store, world), repeat),
        "episode_fork_touched": _times(lambda: store.fork(parent.id), repeat),
        "op_in_process": _ops(store, world, repeat),
        "memory": _memory(store, world),  # before the figures that make and drop episodes here (freed pages are reused)
        "served": served.run(world, repeat),
        "served_episode_create": _served_create(world, repeat),
        "world_ready": _world_ready(world),
        "server_ready": _server_ready(world),
        "served_scale": _scale(world, repeat, live),
        "ow_command": _ow(store, world, min(repeat, 20)),
        "gui_page_render_server": render_times(store, world, max(repeat // 10, 5)),
        "gui_browser_action": _browser(store, world),
        "grade_episode": _grading(store, min(repeat, 50)) if world == "acme" else {},
        **({"trainer": _trainer(world, repeat)} if world == "acme" else {}),  # the shipped tasks are on acme
    }
    pace_us["end"] = pace()
    return figures


def _served_create(world: str, repeat: int) -> dict:
    """``POST /v1/episodes`` on a server in its own process (the episodes live until it stops)."""
    import httpx

    from simulator.bench import scale

    scale.control_token()  # the child server inherits it
    with served.server_process(world) as (url, _), httpx.Client(base_url=url) as http:
        headers = scale.control_headers()
        if http.post("/v1/episodes", json={"world": world}, headers=headers).status_code != 201:
            raise RuntimeError("the episode-create probe failed")
        return {"control_episode_create": served.times(
            lambda: http.post("/v1/episodes", json={"world": world}, headers=headers), repeat)}


def _world_ready(world: str) -> dict:
    """The compiled world made ready in a fresh process after its imports (its files' freshness check, its
    kept ``world.yaml``, its images opened), best of three: issue 16's "server ready" figure as first taken."""
    from simulator.bench import scale

    return scale.world_ready(world)


def _server_ready(world: str) -> dict:
    """``officeworld up`` on the compiled world until ``/health`` answers (``python -m simulator.bench.scale``
    gives it at a generated size)."""
    from simulator.bench import scale

    return scale.server_ready(world)


def _scale(world: str, repeat: int, live: int) -> dict:
    from simulator.bench import scale

    return scale.run(world, repeat, live)


def _trainer(world: str, repeat: int) -> dict:
    from simulator.bench import trainer

    return trainer.run(world, repeat)


if __name__ == "__main__":
    import json
    import sys

    world = sys.argv[1] if len(sys.argv) > 1 else "acme"
    print(json.dumps(in_process(world, int(sys.argv[2]) if len(sys.argv) > 2 else 200), indent=2))
