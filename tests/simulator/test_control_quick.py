"""The control API's quick routes run on the event loop when every app lives in this process and the world is
ready, and in a worker thread otherwise (``control.quickly``): a hop there and back cost ~0.6 ms of CPU, where
creating an episode costs ~25 µs."""

from __future__ import annotations

import anyio.to_thread
import pytest
from fastapi.testclient import TestClient
from surfaces import CONTROL, TOKEN

from simulator.gateway.server import build_app
from simulator.store.episodes import EpisodeStore


@pytest.fixture
def hops(monkeypatch):
    """Every function handed to a worker thread (FastAPI's sync routes and their answer's check go there too)."""
    handed: list[str] = []
    real = anyio.to_thread.run_sync

    async def spy(func, *args, **kwargs):
        handed.append(getattr(func, "__qualname__", None) or repr(func))
        return await real(func, *args, **kwargs)
    monkeypatch.setattr(anyio.to_thread, "run_sync", spy)
    return handed


def _walk(http: TestClient, body: dict) -> list[int]:
    created = http.post("/v1/episodes", json=body, headers=CONTROL)
    episode = created.json()["id"]
    return [created.status_code,
            http.get(f"/v1/episodes/{episode}", headers=CONTROL).status_code,
            http.post(f"/v1/episodes/{episode}/clock", json={"seconds": 60}, headers=CONTROL).status_code,
            http.post(f"/v1/episodes/{episode}/fork", headers=CONTROL).status_code,
            http.delete(f"/v1/episodes/{episode}", headers=CONTROL).status_code]


def test_with_every_app_here_and_the_world_ready_nothing_goes_to_a_thread(hops):
    store = EpisodeStore(trajectory_dir=None)
    store.world("acme")
    with TestClient(build_app(store, token=TOKEN)) as http:
        hops.clear()
        assert _walk(http, {"world": "acme"}) == [201, 200, 200, 201, 204]
        assert _walk(http, {"task": "crm-close-globex-renewal", "tools": False}) == [201, 200, 200, 201, 204]
        assert hops == []
        # Errors are the same on the loop: an unknown episode, a task given with a world.
        assert http.get("/v1/episodes/ep_nope", headers=CONTROL).json()["error"]["type"] == "not_found"
        refused = http.post("/v1/episodes", json={"task": "crm-close-globex-renewal", "world": "acme"}, headers=CONTROL)
        assert (refused.status_code, refused.json()["error"]["field"]) == (422, "task")


def test_a_world_not_yet_ready_is_made_in_a_thread_then_its_episodes_come_on_the_loop(hops):
    store = EpisodeStore(trajectory_dir=None)
    with TestClient(build_app(store, token=TOKEN)) as http:
        hops.clear()
        assert http.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).status_code == 201
        assert any("_create" in name for name in hops)
        hops.clear()
        assert http.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).status_code == 201
        assert hops == []


def test_with_an_app_elsewhere_the_routes_go_to_a_thread(hops):
    store = EpisodeStore(trajectory_dir=None, app_urls={"mail": "http://127.0.0.1:9"})   # nothing listens there
    store.world("acme")
    assert not store.quick("acme")
    with TestClient(build_app(store, token=TOKEN)) as http:
        hops.clear()
        episode = http.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).json()
        assert episode["status"] == "error" and "mail" in episode["app_errors"]   # the round trip was tried
        assert http.delete(f"/v1/episodes/{episode['id']}", headers=CONTROL).status_code == 204
        assert len(hops) >= 2
