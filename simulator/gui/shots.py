"""Screenshots of the main pages (``officeworld gui screenshots``) and the GUI's figures for the benchmark."""

from __future__ import annotations

import time
from pathlib import Path

from apps.kit.invoker import invoke
from simulator.store.episodes import EpisodeStore


def _first(episode, store, app: str, op: str, args: dict, pick) -> object | None:
    if app not in store.apps:
        return None
    step = invoke(episode, store.apps[app].operations[op], args, "python")
    try:
        return None if step.error else pick(step.result)
    except (IndexError, KeyError, TypeError):
        return None


def main_pages(store: EpisodeStore, episode) -> dict[str, str]:
    """The main pages of each app (name -> path under the episode's GUI), with ids found in this world."""
    thread = _first(episode, store, "mail", "search", {"query": "in:inbox", "limit": 1}, lambda r: r["messages"][0]["thread_id"])
    biggest = "SELECT id FROM Opportunity WHERE is_closed = FALSE ORDER BY amount DESC LIMIT 1"
    opportunity = _first(episode, store, "crm", "query", {"soql": biggest}, lambda r: r["records"][0]["id"])
    account = _first(episode, store, "crm", "query", {"soql": "SELECT id FROM Account ORDER BY name LIMIT 1"},
                     lambda r: r["records"][0]["id"])
    document = _first(episode, store, "docs", "search", {"type": "document", "limit": 1}, lambda r: r["files"][0]["id"])
    sheet = _first(episode, store, "docs", "search", {"type": "spreadsheet", "limit": 1}, lambda r: r["files"][0]["id"])
    pages = {"home": "/", "mail-inbox": "/mail", "mail-thread": f"/mail/thread/{thread}", "mail-compose": "/mail/compose",
             "crm-home": "/crm", "crm-opportunities": "/crm/Opportunity", "crm-opportunity": f"/crm/Opportunity/{opportunity}",
             "crm-account": f"/crm/Account/{account}", "docs-my-drive": "/docs", "docs-document": f"/docs/files/{document}",
             "docs-sheet": f"/docs/files/{sheet}", "docs-share": f"/docs/files/{document}/share"}
    return {name: path for name, path in pages.items() if "None" not in path and path.split("/")[1] in ("", *episode.apps)}


def screenshots(out: Path, world: str = "acme", actor: str | None = None, width: int = 1280) -> list[Path]:
    """Write a PNG of each main page of a fresh episode of ``world`` into ``out``; returns the files."""
    from playwright.sync_api import sync_playwright

    from simulator.gateway.server import build_app
    from simulator.gui.browser import chromium_path
    from simulator.service.serve import serve_in_thread

    store = EpisodeStore()
    episode = store.create(world, actor)
    pages = main_pages(store, store.create(world, actor))
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with serve_in_thread(build_app(store)) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), headless=True)
        page = browser.new_page(viewport={"width": width, "height": 800})
        for name, path in pages.items():
            page.goto(f"{url}/episodes/{episode.id}/gui{path}")
            written.append(out / f"{name}.png")
            page.screenshot(path=str(written[-1]))
        browser.close()
    return written


def render_times(store: EpisodeStore, world: str, repeat: int = 20) -> dict:
    """Server-side time to answer each main page (the operations it invokes and the template), in ms."""
    from fastapi.testclient import TestClient

    from simulator.gateway.server import build_app

    episode = store.create(world)
    out = {}
    with TestClient(build_app(store), base_url="http://localhost") as client:
        for name, path in main_pages(store, store.create(world)).items():
            url = f"/episodes/{episode.id}/gui{path}"
            samples = []
            for _ in range(repeat):
                started = time.perf_counter()
                status = client.get(url).status_code
                samples.append((time.perf_counter() - started) * 1000)
            samples.sort()
            out[name] = {"median_ms": round(samples[len(samples) // 2], 2),
                         "p90_ms": round(samples[int(len(samples) * 0.9) - 1], 2), "status": status}
    return out


def browser_round_trip(store: EpisodeStore, world: str, repeat: int = 10) -> dict:
    """Wall time of a browser agent's action (go to a page, answer with the snapshot), in ms; needs Chromium."""
    from simulator.gateway.server import build_app
    from simulator.gui.browser import Browser
    from simulator.service.serve import serve_in_thread

    episode = store.create(world)
    with serve_in_thread(build_app(store)) as url, Browser() as browser:
        session = browser.session(episode, url)
        started = time.perf_counter()
        session.act("goto", url="mail")
        first = (time.perf_counter() - started) * 1000
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            session.act("goto", url="crm/Opportunity")
            samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return {"first_action_ms_with_launch": round(first, 1), "goto_median_ms": round(samples[len(samples) // 2], 1),
            "samples": repeat}
