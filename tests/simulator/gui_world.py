"""A small world with mail, CRM and docs data for the GUI tests (the apps' own test data, together)."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import yaml

HERE = Path(__file__).parent
for app in ("crm", "docs"):
    sys.path.insert(0, str(HERE.parent / "apps" / app))

from crm_factories import FILES  # noqa: E402
from docs_factories import make_docs_world  # noqa: E402


def make_gui_world(root: Path) -> Path:
    """The shared small world with the CRM tests' records and the docs tests' drive."""
    world = make_docs_world(root)
    (world / "crm").mkdir()
    for file, records in FILES.items():
        (world / "crm" / f"{file}.yaml").write_text(yaml.safe_dump(records, sort_keys=False))
    return world


BASE_URL = "http://localhost:8000"  # MCP's host check and the REST tests use the same


@contextmanager
def gui_server(root: Path):
    """A TestClient over a server on the GUI world compiled under ``root``; ``client.world`` is its folder."""
    from fastapi.testclient import TestClient
    from surfaces import CONTROL

    from simulator.gateway.server import build_app
    from simulator.store.episodes import EpisodeStore

    world = make_gui_world(root / "worlds")
    with TestClient(build_app(EpisodeStore(cache_dir=root / "cache")), base_url=BASE_URL, headers=CONTROL) as client:
        client.world = str(world)  # type: ignore[attr-defined]
        yield client


def new_episode(api) -> dict:
    response = api.post("/v1/episodes", json={"world": api.world})
    assert response.status_code == 201, response.text
    return response.json()


def chromium_or_skip() -> str:
    """Debian's Chromium, which ``dev.sh`` installs; the browser tests cannot run without it."""
    import pytest

    from simulator.gui.browser import chromium_path
    try:
        return chromium_path()
    except RuntimeError as exc:
        pytest.skip(str(exc))
