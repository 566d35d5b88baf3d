"""The other workers of ``officeworld up --workers N``, which the listing and ``/health`` ask too.

The router (HAProxy, ``simulator/service/shards.py``) sends a request naming an episode to the worker that
owns it, and any other request to any worker. A request that should answer across workers (``GET
/v1/episodes``, ``GET /health``) is answered by the worker that got it: its own part, and each peer's,
asked over loopback (compose's replicas: through the router) with ``LOCAL_HEADER`` set, so that the peer
answers only its own part (and asks no one in turn). The header's value is the peer's tag (``w1``): a gateway
holding another tag refuses the request (421, ``misdirected``), so that a router which routes by it (compose's,
``simulator.service.replicas``) never gets one worker's part for another's; ``1`` asks whichever worker gets it.
The request's ``Host`` and ``Authorization`` go along, so that the URLs a peer hands out name the router, as
the worker's own do. A peer that does not answer (down, restarting) is named in the answer
(``missing``), never guessed at.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

import httpx

from apps.kit.settings import settings

LOCAL_HEADER = "x-officeworld-local"   # "this worker's own part only" (the peers' requests, HAProxy's checks)
MISSING_HEADER = "X-Officeworld-Workers-Down"   # a listing's workers that did not answer
TIMEOUT_S = 10.0
_LOCAL = LOCAL_HEADER.encode()
_NAMED = re.compile(r"/(?:v1/)?episodes/ep_(w[0-9]{1,3})_")   # a path naming an episode a worker made
_QUERY = re.compile(r"(?:^|&)episode=ep_(w[0-9]{1,3})_")


@dataclass
class Gathered:
    """Each answering peer's JSON, and the tags of those that did not answer."""

    answers: dict[str, object]
    missing: list[str]


class Peers:
    """The peers named by ``OFFICEWORLD_PEERS`` (``tag=URL,...``), read when made."""

    def __init__(self, spec: str | None = None):
        spec = settings().peers if spec is None else spec
        self.urls: dict[str, str] = {}
        for item in filter(None, (part.strip() for part in spec.split(","))):
            tag, _, url = item.partition("=")
            if not tag or not url.startswith("http"):
                raise ValueError(f"peers: {item!r} is not tag=URL (e.g. w1=http://127.0.0.1:8101)")
            self.urls[tag.strip()] = url.strip().rstrip("/")
        self._client: httpx.AsyncClient | None = None

    def __bool__(self) -> bool:
        return bool(self.urls)

    def open(self) -> None:
        """Make the client the peers are asked with, in the server's loop when it starts (the lifespan of
        ``build_app``), not on the first request that asks them: what a server keeps for good is made at its start
        (``simulator.store.memory`` says why and what it cost a worker)."""
        if self.urls and self._client is None:
            self._client = httpx.AsyncClient(timeout=TIMEOUT_S)

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:   # a server that did not start through its lifespan
            self.open()
        assert self._client is not None
        return self._client

    async def gather(self, path: str, headers, params=None) -> Gathered:
        """``GET path`` of every peer at once, with the request's ``Host`` and ``Authorization`` and
        ``LOCAL_HEADER``."""
        sent = {}
        for name in ("host", "authorization"):
            if headers.get(name):
                sent[name] = headers[name]
        results = await asyncio.gather(*(self._get(url + path, {**sent, LOCAL_HEADER: tag}, params)
                                         for tag, url in self.urls.items()))
        answers = {tag: body for tag, body in zip(self.urls, results) if body is not None}
        return Gathered(answers, [tag for tag in self.urls if tag not in answers])

    async def _get(self, url: str, headers: dict, params) -> object | None:
        try:
            response = await self._http().get(url, headers=headers, params=params)
        except httpx.HTTPError:
            return None
        return response.json() if response.status_code == 200 else None


def local_only(headers) -> bool:
    """Whether a request asks for this worker's own part only (a peer's, or the router's health check)."""
    return bool(headers.get(LOCAL_HEADER))


def misdirected(scope, tag: str, others: frozenset[str] | set[str]) -> dict | None:
    """The error refusing a request meant for another worker than ``tag``, or None: one whose ``LOCAL_HEADER``
    names another, or one naming an episode whose id marks one of the ``others`` (the peers' tags:
    ``/episodes/ep_w1_...``, ``/v1/episodes/ep_w1_...``, ``?episode=ep_w1_...``; a tag no worker has is an
    id no one holds, answered 404 as any). Refused before anything is
    done, so a router that sent it to the wrong replica (compose's, before its checks caught up) answers a
    shaped 503 for it (``simulator.service.router``), never this worker's 404 for another's episode."""
    for key, value in scope["headers"]:
        if key == _LOCAL:
            asked = value.decode("latin-1").strip()
            if asked in ("1", tag):
                return None
            return {"type": "misdirected", "field": LOCAL_HEADER, "message": f"{LOCAL_HEADER}: this is worker "
                    f"{tag or '(untagged)'}, not {asked[:20]!r}; the router sent it to the wrong gateway"}
    if not others:
        return None
    named = _NAMED.match(scope.get("path", "")) or _QUERY.search(scope.get("query_string", b"").decode("latin-1"))
    if named is None or named.group(1) not in others:
        return None
    return {"type": "misdirected", "field": "episode_id", "message": f"episode_id: episodes of worker "
            f"{named.group(1)} are not answered by worker {tag}; the router sent it to the wrong gateway"}


def across_workers(own: dict, tag: str, gathered: Gathered) -> dict:
    """``/health`` of every worker: each one's own answer (or ``down``), the episodes of all, ``degraded``
    when one did not answer."""
    workers: dict[str, object] = {tag: own, **gathered.answers, **{t: {"status": "down"} for t in gathered.missing}}
    episodes = sum(w.get("episodes", 0) for w in workers.values() if isinstance(w, dict))
    return {"status": "degraded" if gathered.missing else "ok", "episodes": episodes, "apps": own["apps"],
            "workers": dict(sorted(workers.items()))}
