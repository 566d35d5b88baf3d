"""Many live episodes in one server on a generated world (issue 16: "10,000 on ``s``"), the server in its
own process as users run it.

    python -m simulator.bench.live [--size s] [--count 10000] [--seed 1] [--repeat 200]

Generates the world into a temporary folder (its compiled images into another, so nothing is left
behind), starts ``officeworld up`` on it, creates ``count`` episodes over the control API from four
client threads and touches each (one mail write, so its mailbox is cloned and changed), then reports
the server's memory and a REST call's latency spread over all of them. Bounded three ways: ``count``,
a deadline and a cap on how much the server may grow (half the memory available at the start, unless
given); it says how many it reached and why it stopped. The server is stopped at the end, which frees
every episode. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from simulator.bench import scale, served
from simulator.bench.served import rss_mb


def available_mb() -> float:
    with open("/proc/meminfo") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["MemAvailable"].split()[0]) / 1024


def spread(count: int, index: int) -> int:
    """The ``index``-th episode of ``count`` to call: a stride prime to ``count`` visits all of them
    before repeating, far apart, so calls land on episodes cold in the CPU's caches."""
    stride = 7919 if count % 7919 else 7907
    return (index * stride) % count


def populate(url: str, pid: int, world: str, count: int, message_id: int, deadline_s: float,
             cap_mb: float, clients: int = 4) -> tuple[list[str], str, float]:
    """Create and touch up to ``count`` episodes from ``clients`` threads (so the server is never idle
    while a client parses an answer); the ids, why it stopped and the seconds it took. This thread
    watches the deadline and the server's growth."""
    headers, ids, lock, stop = scale.control_headers(), [], threading.Lock(), threading.Event()
    started, start_rss = time.monotonic(), rss_mb(pid)
    claimed = iter(range(count))

    def worker() -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            while not stop.is_set():
                with lock:
                    if next(claimed, None) is None:
                        return
                created = http.post("/v1/episodes", json={"world": world}, headers=headers)
                created.raise_for_status()
                episode = created.json()["id"]
                http.post(f"/episodes/{episode}/api/mail/star", json={"message_ids": [message_id]}).raise_for_status()
                with lock:
                    ids.append(episode)

    def limit() -> str | None:
        if time.monotonic() - started > deadline_s:
            return f"deadline ({deadline_s:.0f} s)"
        if rss_mb(pid) - start_rss > cap_mb:
            return f"memory cap ({cap_mb:.0f} MB of growth)"
        return None

    stopped = limit()
    if stopped is not None:
        return ids, stopped, 0.0
    with ThreadPoolExecutor(clients) as pool:
        running = [pool.submit(worker) for _ in range(clients)]
        while not all(f.done() for f in running):
            if (stopped := limit()) is not None:
                stop.set()
                break
            time.sleep(0.2)
        for f in running:
            f.result()  # a worker's failure (an HTTP error) is the run's
    return ids, stopped or "count", time.monotonic() - started


def run(size: str = "s", count: int = 10_000, seed: int = 1, repeat: int = 200, deadline_s: float = 300.0,
        cap_mb: float | None = None) -> dict:
    from simulator.store.registry import world_sections
    from worlds.generate import generate

    cap_mb = cap_mb if cap_mb is not None else available_mb() / 2
    scale.control_token()  # the child server inherits it
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        root = generate(seed, size, Path(tmp) / "world", name=f"live-{size}-{seed}", sections=world_sections())
        generate_s = time.monotonic() - started
        env = {**os.environ, "OFFICEWORLD_CACHE_DIR": str(Path(tmp) / "cache")}
        with served.server_process(str(root), env=env) as (url, pid), httpx.Client(base_url=url, timeout=60) as http:
            first = http.post("/v1/episodes", json={"world": str(root)}, headers=scale.control_headers())
            first.raise_for_status()
            inbox = http.post(f"/episodes/{first.json()['id']}/api/mail/search", json={"query": "in:inbox"})
            inbox.raise_for_status()
            message_id = inbox.json()["messages"][0]["id"]
            before = rss_mb(pid)
            ids, stopped, made_s = populate(url, pid, str(root), count, message_id, deadline_s, cap_mb)
            after = rss_mb(pid)
            turn = iter(range(10**9))
            call = served.times(lambda: http.post(f"/episodes/{ids[spread(len(ids), next(turn))]}/api/mail/get_message",
                                                  json={"message_id": message_id}), repeat) if ids else None
    grew = after - before
    return {"world": {"size": size, "seed": seed, "generate_s": round(generate_s, 1)},
            "asked": count, "live_episodes": len(ids), "stopped_by": stopped, "create_and_touch_s": round(made_s, 1),
            "server_rss_mb_before": round(before, 1), "server_rss_mb_after": round(after, 1),
            "mb_per_episode": round(grew / len(ids), 3) if ids else None,
            "rest_mail_get_message_among_them": call and {**call, "measured": "POST /episodes/{id}/api/mail/get_message, "
                                                 "each call on a different live episode"}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="s", choices=["s", "m", "l", "xl"])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--deadline", type=float, default=300.0, help="seconds of episode creation at most")
    parser.add_argument("--cap-mb", type=float, default=None, help="server growth allowed (default: half of "
                        "the memory available at the start)")
    args = parser.parse_args()
    print(json.dumps(run(args.size, args.count, args.seed, args.repeat, args.deadline, args.cap_mb), indent=2))


if __name__ == "__main__":
    main()
