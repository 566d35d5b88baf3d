"""Screenshot agents: a browser session that sees pixels (set-of-marks) acts by mark, text, label and coordinates,
each render keeps what the page showed, the trajectory viewer shows the screenshots on the steps, and a task
solved that way earns what the same task earns over MCP."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import yaml
from gui_world import chromium_or_skip, make_gui_world
from mcp import Client
from surfaces import CONTROL

from simulator.gateway.server import build_app
from simulator.gui.browser import Browser
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from simulator.trajectories.files import read
from simulator.viewer.episode import episode_view

TASK = {"id": "close-renewal", "outcome": "act", "prompt": "Sam signed: mark the Globex renewal Closed Won, closing today.",
        "bindings": {"deal": {"from": "crm.opportunity", "where": {"name": "Globex - Renewal 2026"}}},
        "criteria": [{"id": "won", "records": {"from": "crm.opportunity", "where": {"id": "$deal.id"}, "count": 1,
                                               "expect": {"stage": "Closed Won", "close_date": {"date": "$today"}}}}],
        "oracle": [{"op": "crm.update_opportunity",
                    "args": {"opportunity_id": "$deal.id", "stage": "Closed Won", "close_date": "$today"}}]}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    chromium_or_skip()
    root = tmp_path_factory.mktemp("pixels")
    world = make_gui_world(root / "worlds")
    (root / "suites" / "gui").mkdir(parents=True)
    (root / "suites" / "gui" / "close-renewal.yaml").write_text(yaml.safe_dump({**TASK, "world": str(world)}))
    store = EpisodeStore(cache_dir=root / "cache", trajectory_dir=root / "trajectories", idle_timeout=None)
    app = build_app(store, task_catalog(store, root / "suites"))
    with serve_in_thread(app) as url:
        yield url, store, app


def start(url: str) -> dict:
    response = httpx.post(f"{url}/v1/episodes", json={"task": TASK["id"]}, timeout=60, headers=CONTROL)
    assert response.status_code == 201, response.text
    return response.json()


def finish(url: str, episode: dict) -> dict:
    response = httpx.post(f"{url}/v1/episodes/{episode['id']}/finish", json={}, timeout=60, headers=CONTROL)
    assert response.status_code == 200, response.text
    return response.json()


def mark_named(render, name: str) -> dict:
    found = [m for m in render.marks if m["name"] == name]
    assert found, f"no mark named {name!r} in {[m['name'] for m in render.marks]}"
    return found[0]


def test_a_task_solved_through_pixels_earns_what_the_mcp_call_earns(server):
    url, store, _ = server
    episode = start(url)
    with Browser() as browser:
        session = browser.session(store.get(episode["id"]), url, observation="marks")
        seen = session.act("goto", url="crm/search?q=globex+renewal")
        assert "snapshot" not in seen and seen["screenshot"].startswith(b"\x89PNG")
        shown = session.renders[-1].shown
        deals = [r for r in shown["records"] if r["kind"] == "crm/Opportunity"]
        assert [d["text"] for d in deals] == ["Globex - Renewal 2026"]   # kept beside the screenshot
        seen = session.act("click", text="Globex - Renewal 2026")
        assert seen["error"] is None and f"/crm/Opportunity/{deals[0]['id']}" in seen["url"]
        seen = session.act("click", mark=mark_named(session.renders[-1], "Edit")["mark"])
        assert seen["error"] is None and seen["url"].endswith("/edit")
        assert session.act("select", label="Stage", value="Closed Won")["error"] is None
        assert session.act("fill", label="Close date", text="2026-03-16")["error"] is None
        fields = {f["name"]: f["value"] for f in session.renders[-1].shown["fields"]}
        assert fields["stage"] == "Closed Won" and fields["close_date"] == "2026-03-16"
        save = mark_named(session.renders[-1], "Save")
        seen = session.act("click", x=save["x"] + save["w"] // 2, y=save["y"] + save["h"] // 2)
        assert seen["operations"] == [{"tool": "crm_update_opportunity", "error": None}]
        missed = session.act("click", mark=999)
        assert missed["error"].startswith("mark: nothing on this page")
    by_pixels = finish(url, episode)
    over_mcp = start(url)

    async def call():
        async with Client(over_mcp["mcp_url"]) as client:
            done = await client.call_tool("crm_update_opportunity", {"opportunity_id": int(deals[0]["id"]),
                                                                     "stage": "Closed Won", "close_date": "2026-03-16"})
            assert not done.is_error, done.content
    asyncio.run(call())
    by_mcp = finish(url, over_mcp)
    assert by_pixels["passed"] and by_pixels["total"] == by_mcp["total"] == 1.0
    assert by_pixels["criteria"] == by_mcp["criteria"] and by_pixels["collateral"] == by_mcp["collateral"] == []
    file = store.trajectory_dir / f"{episode['id']}.jsonl"
    update = next(s for s in read(file).steps if s.operation == "update_opportunity")
    assert (file.with_suffix(".shots") / f"step-{update.index}.png").read_bytes().startswith(b"\x89PNG")
    shots = {sv.step.index: sv.shots for sv in episode_view(read(file), diffs=False).steps}
    assert shots[update.index] and shots[update.index][0].startswith("data:image/png;base64,")


def test_pixel_tools_over_mcp_answer_with_a_screenshot_and_refuse_an_unaimed_click(server):
    url, store, app = server
    episode = start(url)
    app.api.state.browsers.enable(store.get(episode["id"]), url, observation="pixels")

    async def act():
        async with Client(episode["mcp_url"]) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert {"mark", "text", "x", "y"} <= set(listed["browser_click"].input_schema["properties"])
            assert "browser_snapshot" not in listed
            seen = await client.call_tool("browser_goto", {"url": "crm"})
            assert not seen.is_error and [c.type for c in seen.content] == ["image", "text"]
            assert "URL: " in seen.content[1].text and "[ref=" not in seen.content[1].text
            wrong = await client.call_tool("browser_click", {"mark": 1, "text": "Save"})
            assert wrong.is_error and "exactly one" in str(wrong.content)
    asyncio.run(act())
    httpx.delete(f"{url}/v1/episodes/{episode['id']}", headers=CONTROL)
