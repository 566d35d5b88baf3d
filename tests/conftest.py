"""Shared fixtures: a fresh small world per test, an episode store, and the ASGI app over it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).parent))

from factories import make_world  # noqa: E402
from surfaces import CONTROL, TOKEN  # noqa: E402

from simulator.episodes import EpisodeStore  # noqa: E402
from simulator.serve import serve_in_thread  # noqa: E402
from simulator.server import build_app  # noqa: E402

BASE_URL = "http://localhost:8000"
os.environ["OFFICEWORLD_TOKEN"] = TOKEN


@pytest.fixture
def world_dir(tmp_path: Path) -> Path:
    return make_world(tmp_path / "worlds")


@pytest.fixture
def store(tmp_path: Path) -> EpisodeStore:
    return EpisodeStore(cache_dir=tmp_path / "cache")


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
