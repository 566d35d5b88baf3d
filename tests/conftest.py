"""Shared fixtures: a fresh small world per test, an episode store, and the ASGI app over it.

Compiled worlds are shared by every test of a run (a cache keyed by the world's content and the
apps' code, written atomically, so safe across pytest-xdist workers); ``ow``'s tool lists go to a
per-run folder rather than the user's cache.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).parent))

from factories import make_world  # noqa: E402
from surfaces import CONTROL, TOKEN  # noqa: E402

from simulator.gateway.server import build_app  # noqa: E402
from simulator.service.serve import serve_in_thread  # noqa: E402
from simulator.store.episodes import EpisodeStore  # noqa: E402

BASE_URL = "http://localhost:8000"
os.environ["OFFICEWORLD_TOKEN"] = TOKEN
# The generated corpus (scenarios/) is written on a catalog's first listing: the tests of the corpus ask for it
# (tests/scenarios/); every other test lists the written suites only.
os.environ["OFFICEWORLD_CORPUS"] = "off"


def _patient(call):
    """``call`` waiting up to 60 s unless the test says otherwise: httpx's 5 s default failed tests on a busy CI
    machine (an episode's creation waited behind other work), and no test means to time the server."""
    @functools.wraps(call)
    def patient(*args, **kwargs):
        kwargs.setdefault("timeout", 60)
        return call(*args, **kwargs)
    return patient


# The tests' own one-off calls (httpx.get(...), 106 of them); every product module passes its own timeout.
for _name in ("get", "post", "put", "patch", "delete", "request"):
    setattr(httpx, _name, _patient(getattr(httpx, _name)))


@pytest.fixture
def world_dir(tmp_path: Path) -> Path:
    return make_world(tmp_path / "worlds")


def _run_dir(tmp_path_factory) -> Path:
    """A folder shared by every worker of this run (each xdist worker has its own basetemp below it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def world_cache(tmp_path_factory) -> Path:
    return _run_dir(tmp_path_factory) / "world-cache"


@pytest.fixture(scope="session", autouse=True)
def ow_cache(tmp_path_factory):
    previous = os.environ.get("OW_CACHE")
    os.environ["OW_CACHE"] = str(_run_dir(tmp_path_factory) / "ow-cache")
    yield
    if previous is None:
        os.environ.pop("OW_CACHE", None)
    else:
        os.environ["OW_CACHE"] = previous


@pytest.fixture
def store(world_cache: Path) -> EpisodeStore:
    return EpisodeStore(cache_dir=world_cache)


@pytest.fixture
def api(store: EpisodeStore):
    """A TestClient over the whole server (control API, REST, MCP); Host is localhost for MCP."""
    with TestClient(build_app(store), base_url=BASE_URL, headers=CONTROL) as client:
        yield client


@pytest.fixture
def episode(api: TestClient, world_dir: Path) -> dict:
    response = api.post("/v1/episodes", json={"world": str(world_dir)})
    assert response.status_code == 201, response.text
    return response.json()


@pytest.fixture
def live_server(store: EpisodeStore):
    """The server on a free loopback port in a background thread; yields its base URL."""
    with serve_in_thread(build_app(store)) as url:
        yield url
