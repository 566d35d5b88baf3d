"""OFFICEWORLD_PUBLIC_URL: the base of every URL the control API hands out (an episode's MCP and REST), for
clients that reach the server by another name than the address it bound; its host is an allowed MCP Host.
Checked in process and through compose.yaml's services run as local processes."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from factories import make_world
from fastapi.testclient import TestClient
from pydantic import ValidationError
from surfaces import CONTROL, MCP_HEADERS, MCP_INIT, new_episode

from apps.kit.settings import settings
from sandbox.processes import ProcessesBackend
from simulator.gateway.server import build_app

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = "http://gateway.example:9000"


def test_the_urls_handed_out_start_with_the_public_url(store, world_dir, monkeypatch):
    with TestClient(build_app(store), base_url="http://127.0.0.1:8000", headers=CONTROL) as api:
        plain = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
    assert plain["mcp_url"] == f"http://127.0.0.1:8000/episodes/{plain['id']}/mcp"   # unset: as asked
    monkeypatch.setenv("OFFICEWORLD_PUBLIC_URL", PUBLIC + "/")
    with TestClient(build_app(store), base_url="http://127.0.0.1:8000", headers=CONTROL) as api:
        made = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
        listed = api.get(f"/v1/episodes/{made['id']}").json()
    for episode in (made, listed):
        assert episode["mcp_url"] == f"{PUBLIC}/episodes/{made['id']}/mcp"
        assert episode["api_url"] == f"{PUBLIC}/episodes/{made['id']}/api"
    monkeypatch.setenv("OFFICEWORLD_PUBLIC_URL", "gateway:9000")
    with pytest.raises(ValidationError, match="public_url"):
        settings()


def test_through_the_compose_services(tmp_path):
    world_dir = make_world(tmp_path / "worlds")
    env = {"OFFICEWORLD_WORLD": str(world_dir), "OFFICEWORLD_CACHE_DIR": str(tmp_path / "cache"),
           "OFFICEWORLD_PUBLIC_URL": PUBLIC}
    with ProcessesBackend(ROOT / "compose.yaml", env=env, log_dir=tmp_path / "logs", startup_timeout=60) as backend:
        gateway = backend.url("gateway")
        episode = new_episode(gateway, world_dir)
        assert episode["mcp_url"] == f"{PUBLIC}/episodes/{episode['id']}/mcp"
        # A sandbox reaching the gateway by that name: its MCP endpoint accepts the Host.
        path = episode["mcp_url"].removeprefix(PUBLIC)
        named = httpx.post(gateway + path, json=MCP_INIT, headers={**MCP_HEADERS, "host": "gateway.example:9000"})
        assert named.status_code == 200, named.text
        other = httpx.post(gateway + path, json=MCP_INIT, headers={**MCP_HEADERS, "host": "elsewhere.example:9000"})
        assert other.status_code == 421, other.text
