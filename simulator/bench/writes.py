"""``officeworld bench --load --mix write``: a training run's load, many episodes started at once, each a
short session that reads and writes across apps.

``bench --load`` (``simulator.bench.load``) paces mostly reads over episodes whose first calls were made
before the clock starts. A training run is different: its rollouts start together, and each one's first
write into an app is that app's first copy of the world's database for the episode (copy on write,
``apps.kit.host.LocalHost``). Here, per surface (REST, then MCP with one session per episode), N episodes
are created at once (timed), then each agent runs ``SESSION`` from its start: search and read the mail,
reply, update an opportunity, create a document and append to it, send a mail; then the same again,
for as long as the run lasts. First paced (each agent at its own pace, ``rate`` calls/s in all: its
first writes, and so the databases' copies, fall within the first few seconds of the run), then in a
tight loop (the most calls/s the server gives). The surface's episodes are then deleted, so that MCP's
run starts from fresh episodes too.

Reported per run as ``bench --load`` reports (``load.measure``), the setup times, and the server's
resident memory at start (after the warm-up: episodes ran the session over both surfaces and were deleted, one
after another, until every worker had run one, so that no worker's one-time costs land after the start), at
peak, with the MCP episodes live, and after every episode was deleted, once the server has stopped working
(an overloaded one still answers calls whose clients gave up: ``server_busy_after_delete_s``); with workers,
also per process (``per_process``: the supervisor, each worker, HAProxy). ``targets_met`` judges the paced
runs against issue 35's targets. Nothing here asserts a figure.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from pathlib import Path

from simulator.bench.load import Agent, allocator, cpu_s, each, measure, say, settled
from simulator.bench.served import rss_by_process, server_process
from simulator.bench.shards import workers_process
from simulator.bench.wire import Connection, on_uvloop
from simulator.store.episodes import worker_of
from simulator.store.memory import _AGAIN

# One session: what a rollout of an office task does (``file_id`` is filled in from ``create_document``'s answer).
SESSION: list[tuple[str, str, dict]] = [
    ("mail", "search", {"query": "renewal"}),
    ("mail", "get_message", {"message_id": 1}),
    ("mail", "reply", {"message_id": 1, "body": "Thanks, I am on it and will come back to you by Friday."}),
    ("crm", "update_opportunity", {"opportunity_id": 1, "next_step": "Send the revised proposal"}),
    ("docs", "create_document", {"name": "Renewal notes", "text": "Notes from the renewal thread."}),
    ("docs", "append_to_document", {"file_id": 0, "text": "Next step: send the revised proposal."}),
    ("mail", "send", {"to": ["kevin.liu@acmeanalytics.com"], "subject": "Renewal", "body": "Proposal on its way."}),
]
TARGETS = {"rest": 300.0, "mcp": 300.0}   # calls/s with 500 episodes, p99 under 500 ms (issue 35)
P99_MS = 500.0


class WriteAgent(Agent):
    """An agent that runs ``SESSION`` from its start, again and again."""

    def __init__(self, url: str, episode: str):
        super().__init__(url, episode)
        self.turn, self.file_id = -1, 0

    def next_call(self) -> tuple[str, str, dict]:
        self.turn += 1
        app, op, args = SESSION[self.turn % len(SESSION)]
        if op != "append_to_document":
            return app, op, args
        if not self.file_id:   # its document's creation was cut off (a run ended while it was out): create one first
            self.turn -= 1
            return SESSION[self.turn % len(SESSION)]
        return app, op, {**args, "file_id": self.file_id}

    async def rest(self, app: str, op: str, args: dict) -> bool:
        done = await super().rest(app, op, args)
        if done and op == "create_document":
            self.file_id = json.loads(self.last)["id"]
        return done

    async def mcp(self, app: str, op: str, args: dict) -> bool:
        done = await super().mcp(app, op, args)
        if done and op == "create_document":
            result = json.loads(self.last)["result"]
            found = result.get("structuredContent") or json.loads(result["content"][0]["text"])
            self.file_id = found["id"]
        return done


async def _episodes(url: str, token: str, world: str, count: int) -> list[WriteAgent]:
    """``count`` episodes created at once, each over its agent's own connection."""
    async def create(_: int) -> WriteAgent:
        conn = Connection.to(url, {"authorization": f"Bearer {token}"})
        response = await conn.request("POST", "/v1/episodes", {"world": world})
        conn.close()
        if response.status not in (200, 201):
            raise RuntimeError(f"creating an episode answered {response.status}: {response.body[:300]!r}")
        return WriteAgent(url, response.json()["id"])
    return list(await asyncio.gather(*(create(i) for i in range(count))))


async def _delete(agents: list[WriteAgent], pool: list[Connection]) -> None:
    for agent in agents:
        agent.conn.close()
    await each(agents, lambda agent, conn: conn.request("DELETE", f"/v1/episodes/{agent.episode}"), pool)


async def _warm(url: str, token: str, world: str, pool: list[Connection], workers: int) -> dict:
    """Episodes run the session over REST and over MCP, then are deleted, one after another until every worker
    has run one (the router gives each new episode to any worker; the id names the one it chose): each worker's
    one-time costs paid (its first MCP session builds the MCP server, its first writes fill SQLAlchemy's
    compiled-statement cache and open the world's databases). A call that fails here is a broken session, not
    load: the run stops."""
    warmed: dict[str, int] = {}
    answered = {"rest": 0, "mcp": 0}
    made = 0
    while len(warmed) < workers:
        if made >= 8 * workers:
            raise RuntimeError(f"the warm-up reached only {sorted(warmed)} of {workers} workers in {made} episodes")
        agent = (await _episodes(url, token, world, 1))[0]
        made += 1
        for surface, done in (await _session(agent, pool)).items():
            if not all(done):
                failed = [f"{a}.{o}" for (a, o, _), ok in zip(SESSION, done) if not ok]
                raise RuntimeError(f"the warm-up session failed over {surface}: {', '.join(failed)}")
            answered[surface.lower()] += sum(done)
        tag = worker_of(agent.episode) or "w0"
        warmed[tag] = warmed.get(tag, 0) + 1
    return {surface: f"{count} of {made * len(SESSION)} calls answered" for surface, count in answered.items()} | {
        "episodes": made, "episodes_per_worker": dict(sorted(warmed.items()))}


async def _session(agent: WriteAgent, pool: list[Connection]) -> dict[str, list[bool]]:
    """``SESSION`` once over REST, once over MCP, then the episode deleted; whether each call was answered."""
    rest = [await agent.rest(*agent.next_call()) for _ in SESSION]
    if not await agent.open_mcp():
        raise RuntimeError("the MCP warm-up session could not be opened")
    mcp = [await agent.mcp(*agent.next_call()) for _ in SESSION]
    await agent.close_mcp()
    await _delete([agent], pool)
    return {"REST": rest, "MCP": mcp}


async def _surface(surface: str, url: str, token: str, world: str, episodes: int, seconds: float, pid: int,
                   rate: float, pool: list[Connection]) -> tuple[dict, dict, dict, dict[str, float]]:
    """One surface's runs on fresh episodes: setup times, the paced run, the tight loop, RSS while live (per
    process)."""
    say(f"{surface.upper()}: creating {episodes} episodes at once")
    clock = time.monotonic()
    agents = await _episodes(url, token, world, episodes)
    setup = {f"create_{surface}_episodes_s": round(time.monotonic() - clock, 2)}
    live = agents
    if surface == "mcp":
        clock = time.monotonic()
        opened = await each(agents, lambda agent, _: agent.open_mcp())
        setup["open_mcp_sessions_s"] = round(time.monotonic() - clock, 2)
        live = [a for a, ok in zip(agents, opened) if ok]
    call = WriteAgent.rest if surface == "rest" else WriteAgent.mcp
    say(f"{surface.upper()}: {seconds:g} s paced at {rate:g} calls/s, then {seconds:g} s as fast as it answers")
    paced = await measure(live, call, seconds, pid, rate)   # type: ignore[arg-type]
    paced["dropped"] += len(agents) - len(live)   # sessions that could not be opened
    saturation = await measure(live, call, seconds, pid, None)   # type: ignore[arg-type]
    loaded = rss_by_process(pid)
    await each(live, lambda agent, _: agent.close_mcp())
    await _delete(agents, pool)
    return setup, paced, saturation, loaded


async def _load(url: str, pid: int, token: str, world: str, episodes: int, seconds: float,
                rates: dict[str, float], workers: int) -> dict:
    pool = [Connection.to(url, {"authorization": f"Bearer {token}"}) for _ in range(32)]
    say("warming up: episodes run the session over REST and over MCP until every worker has run one")
    warm_up = await _warm(url, token, world, pool, workers)
    await asyncio.sleep(3.0)   # the server has given back what the deletion freed (``simulator.store.memory``)
    start = rss_by_process(pid)
    peaks = {_ALL: sum(start.values()), **start}
    sampling = asyncio.create_task(_sampler(pid, peaks))
    setup: dict = {}
    paced, saturation = {}, {}
    loaded: dict[str, float] = {}
    for surface in ("rest", "mcp"):
        done, paced[surface], saturation[surface], loaded = await _surface(
            surface, url, token, world, episodes, seconds, pid, rates[surface], pool)
        setup |= done
    say("waiting for the server to give memory back")
    control = pool[0]
    left = (await control.request("GET", "/health")).json()["episodes"]
    for conn in pool:
        conn.close()
    sampling.cancel()
    drain_s = await drained(pid)
    clock = time.monotonic()
    if workers > 1:
        await _workers_settled(pid, start)
    else:
        await settled(pid, sum(start.values()))
    after = rss_by_process(pid)
    memory = {"allocator": allocator(pid), **_figures(start, peaks.pop(_ALL), loaded, after),
              "server_busy_after_delete_s": drain_s, "settled_after_s": round(time.monotonic() - clock, 1)}
    if workers > 1:   # where it is: the supervisor, each worker, HAProxy
        memory["per_process"] = {label: _figures({label: mb}, peaks.get(label, mb), loaded, after)
                                 for label, mb in start.items()}
    return {"mix": "write", "episodes": episodes, "seconds_per_run": seconds,
            "session": [f"{a}.{o}" for a, o, _ in SESSION], "warm_up": warm_up, "setup": setup, "paced": paced,
            "saturation": saturation, "episodes_left": left, "memory_mb": memory,
            "targets_met": _judged(paced, memory)}


_ALL = ""   # the peaks' key for the processes together
_WORKERS_SETTLE_S = _AGAIN + 20.0


async def _workers_settled(pid: int, start: dict[str, float], limit_s: float = _WORKERS_SETTLE_S) -> None:
    """Wait until every worker is back within 10% of its start, at most ``limit_s``. Behind HAProxy a worker's
    first release (``simulator.store.memory``, 2 s after the last deletion) comes while it still holds the
    connections HAProxy keeps idle for reuse after the clients closed theirs (about one per episode that was
    live), whose buffers were 12% of a worker after 50 episodes each; HAProxy closes them within ~30 s (half of
    them every 5 s, its ``pool-purge-delay``), and the worker's second release, ``_AGAIN`` s after the first,
    gives their memory back. One server has no such wait: the clients' own connections close at once."""
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        now = rss_by_process(pid)
        if all(now.get(label, 0.0) <= mb * 1.1 for label, mb in start.items() if _is_worker(label)):
            return
        await asyncio.sleep(1.0)


def _is_worker(label: str) -> bool:
    return label[:1] == "w" and label[1:].isdigit()


def _figures(start: dict[str, float], peak: float, loaded: dict[str, float], after: dict[str, float]) -> dict:
    """Resident MB of the processes ``start`` names, together: at start, peak, loaded, after deletion."""
    def of(sizes: dict[str, float]) -> float:
        return sum(sizes.get(label, 0.0) for label in start)
    first, last = of(start), of(after)
    return {"start": round(first, 1), "peak": round(peak, 1), "loaded": round(of(loaded), 1),
            "after_delete": round(last, 1), "after_vs_start_pct": round((last - first) / first * 100, 1)}


async def _sampler(pid: int, peaks: dict[str, float]) -> None:
    """The highest resident MB seen, of the processes together (``_ALL``) and of each."""
    while True:
        now = rss_by_process(pid)
        for label, mb in [(_ALL, sum(now.values())), *now.items()]:
            peaks[label] = max(peaks.get(label, 0.0), mb)
        await asyncio.sleep(0.1)


async def drained(pid: int, limit_s: float = 120.0) -> float:
    """Seconds until the server stopped working (under 5% of a core for a second): an overloaded server is still
    answering calls whose clients gave up, and gives memory back only once its episodes are quiet
    (``simulator.store.memory``); at most ``limit_s``."""
    started = time.monotonic()
    before = cpu_s(pid)
    while time.monotonic() - started < limit_s:
        await asyncio.sleep(1.0)
        now = cpu_s(pid)
        if now - before < 0.05:
            break
        before = now
    return round(time.monotonic() - started, 1)


def _judged(paced: dict, memory: dict) -> dict:
    """Issue 35's targets on the paced runs: at least 300 calls/s offered and achieved (within 2%), p99 under
    500 ms, no error nor dropped session, memory back within 10% of the start (the processes together, and
    each worker)."""
    def kept(surface: str) -> bool:
        run = paced[surface]
        return run["offered_per_s"] >= TARGETS[surface] and run["achieved_per_s"] >= 0.98 * TARGETS[surface]
    return {"rest_300_per_s": kept("rest"), "mcp_300_per_s": kept("mcp"),
            "p99_under_500ms": all((run["p99_ms"] or 1e9) < P99_MS for run in paced.values()),
            "no_errors": all(run["errors"] == 0 for run in paced.values()),
            "no_dropped_session": all(run["dropped"] == 0 for run in paced.values()),
            "memory_within_10pct": all(figures["after_delete"] <= figures["start"] * 1.1 for figures in
                                       [memory, *(f for label, f in memory.get("per_process", {}).items()
                                                  if _is_worker(label))])}


def run(world: str = "acme", episodes: int = 500, seconds: float = 10.0,
        rest_rate: float = TARGETS["rest"], mcp_rate: float = TARGETS["mcp"], record: bool = False,
        workers: int = 1) -> dict:
    """The write mix's load run; the server is started and stopped here: one ``officeworld up``, or with
    ``workers`` > 1 ``up --workers N`` behind HAProxy (its CPU and memory are then those of the supervisor,
    the workers and HAProxy together). Without trajectory files as ``load.run``, or with ``record`` in a
    temporary folder, as a training run keeps them: the steps the files hold are counted against the calls the
    agents had answered."""
    import os
    import tempfile

    token = "ow_bench_" + secrets.token_hex(8)
    env = {**os.environ, "OFFICEWORLD_TOKEN": token, "OFFICEWORLD_IDLE_TIMEOUT": "0"}
    env.pop("OFFICEWORLD_TRAJECTORY_DIR", None)
    with tempfile.TemporaryDirectory(prefix="ow-bench-") as folder:
        if record:
            env["OFFICEWORLD_TRAJECTORY_DIR"] = folder
        say(f"starting {'a server' if workers == 1 else f'{workers} workers behind HAProxy'} on {world!r}"
            + (" that keep trajectory files" if record else ""))
        with (workers_process(world, workers, env) if workers > 1 else server_process(world, env=env)) as server:
            result = on_uvloop(_load(server.url, server.pid, token, world, episodes, seconds,
                                       {"rest": rest_rate, "mcp": mcp_rate}, workers))
        if record:
            result["trajectory_files"] = _recorded(Path(folder), result)
    return {"world": world, "workers": workers, **result}


def _recorded(folder: Path, result: dict) -> dict:
    """The files' step lines against the calls answered in the measured runs and the warm-up (each of its
    calls is a step too); a call the client gave up on may still have been answered, and written, by the server."""
    files = list(folder.rglob("*.jsonl"))   # with workers, each writes in its own folder (w0/, w1/...)
    steps = sum(line.startswith('{"kind":"step"') for f in files for line in f.read_text().splitlines())
    answered = sum(run["calls"] + run["errors"] for kind in ("paced", "saturation") for run in result[kind].values())
    answered += 2 * len(SESSION) * result["warm_up"]["episodes"]
    return {"files": len(files), "folders": len({f.parent for f in files}), "step_lines": steps,
            "calls_answered": answered, "every_answered_call_written": steps >= answered}
