"""A worker's peers (``simulator.gateway.peers``): the client they are asked with is made when the server starts.

Made on the first request asking across workers instead, it was made in whichever worker got its first ``/health``
after a load, between the deletions and the memory release, and its long-lived allocations (the certificate store)
were scattered over the freed heap, which the release could then not give back (that worker stayed 23-25% above
its start). The peer here is a stand-in HTTP server answering its own part, as a worker does."""

from __future__ import annotations

import httpx
from fastapi.testclient import TestClient
from stand_in_http import Quiet, send_json, serving
from surfaces import CONTROL

from simulator.gateway.server import build_app


class _Peer(Quiet):
    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        send_json(self, {"status": "ok", "episodes": 0, "apps": []} if self.path == "/health" else [])


def test_the_peers_client_is_made_at_start_not_by_a_request_and_closed_at_stop(store, monkeypatch):
    made: list[httpx.AsyncClient] = []

    class Counted(httpx.AsyncClient):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(httpx, "AsyncClient", Counted)
    monkeypatch.setattr(store, "worker", "w1")
    with serving(_Peer) as peer:
        monkeypatch.setenv("OFFICEWORLD_PEERS", f"w0={peer}")
        with TestClient(build_app(store), base_url="http://127.0.0.1:8000", headers=CONTROL) as api:
            assert len(made) == 1   # the server has started; no request has asked the peers yet
            health = api.get("/health").json()
            assert health["status"] == "ok" and sorted(health["workers"]) == ["w0", "w1"]
            assert api.get("/v1/episodes").status_code == 200
            assert len(made) == 1 and not made[0].is_closed   # the requests used it, and made none
        assert made[0].is_closed
