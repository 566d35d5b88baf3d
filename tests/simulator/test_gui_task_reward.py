"""A task solved through the GUI alone earns the same reward as the same task solved over MCP."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
import yaml
from gui_world import make_gui_world
from mcp import Client
from surfaces import CONTROL

from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog


def tasks(world) -> list[dict]:
    won = {"id": "close-renewal", "world": str(world), "outcome": "act",
           "prompt": "Sam signed: mark the Globex renewal Closed Won, closing today.",
           "bindings": {"deal": {"from": "crm.opportunity", "where": {"name": "Globex - Renewal 2026"}}},
           "criteria": [{"id": "won", "records": {"from": "crm.opportunity", "where": {"id": "$deal.id"}, "count": 1,
                                                  "expect": {"stage": "Closed Won", "close_date": {"date": "$today"}}}},
                        {"id": "only_stage", "role": "guard", "records": {
                            "from": "crm.opportunity", "where": {"id": "$deal.id"}, "count": 1,
                            "changed": ["stage", "close_date", "probability", "updated_at"]}}],
           "oracle": [{"op": "crm.update_opportunity",
                       "args": {"opportunity_id": "$deal.id", "stage": "Closed Won", "close_date": "$today"}}]}
    outage = {"id": "outage-minutes", "world": str(world), "outcome": "answer",
              "prompt": "How many minutes did the Initech dashboard outage last?",
              "criteria": [{"id": "minutes", "answer": {"type": "number", "expect": 42}}],
              "oracle": [{"op": "task.submit_answer", "args": {"answer": "42"}}]}
    return [won, outage]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("gui-tasks")
    world = make_gui_world(root / "worlds")
    for task in tasks(world):
        (root / "suites" / "gui").mkdir(parents=True, exist_ok=True)
        (root / "suites" / "gui" / f"{task['id']}.yaml").write_text(yaml.safe_dump(task, sort_keys=False))
    store = EpisodeStore(cache_dir=root / "cache")
    with serve_in_thread(build_app(store, task_catalog(store, root / "suites"))) as url:
        yield url


def start(url: str, task: str) -> dict:
    response = httpx.post(f"{url}/v1/episodes", json={"task": task}, timeout=60, headers=CONTROL)
    assert response.status_code == 201, response.text
    return response.json()


def finish(url: str, episode: dict) -> dict:
    response = httpx.post(f"{url}/v1/episodes/{episode['id']}/finish", json={}, timeout=60, headers=CONTROL)
    assert response.status_code == 200, response.text
    return response.json()


def over_mcp(url: str, task: str, tool: str, arguments: dict) -> dict:
    episode = start(url, task)

    async def act():
        async with Client(episode["mcp_url"]) as client:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result.content

    asyncio.run(act())
    return finish(url, episode)


def test_closing_a_deal_in_the_gui_earns_what_the_mcp_call_earns(server):
    episode = start(server, "close-renewal")
    gui = httpx.Client(base_url=f"{server}/episodes/{episode['id']}/gui", timeout=60, follow_redirects=True)
    found = gui.get("/crm/search", params={"q": "globex renewal"}).text
    deal = re.search(r'href="[^"]*/crm/Opportunity/(\d+)"', found).group(1)
    edit = gui.get(f"/crm/Opportunity/{deal}/edit").text
    form = dict(re.findall(r'<input type="hidden" name="(original\.[a-z_]+)" value="([^"]*)"', edit))
    form.update({k.removeprefix("original."): v for k, v in form.items()})
    form.update({"stage": "Closed Won", "close_date": "2026-03-16"})
    assert gui.post(f"/crm/Opportunity/{deal}/edit", data=form).status_code == 200  # after the redirect
    by_gui = finish(server, episode)
    by_mcp = over_mcp(server, "close-renewal", "crm_update_opportunity",
                      {"opportunity_id": int(deal), "stage": "Closed Won", "close_date": "2026-03-16"})
    assert by_gui["passed"] and by_gui["total"] == by_mcp["total"] == 1.0
    assert by_gui["criteria"] == by_mcp["criteria"] and by_gui["collateral"] == by_mcp["collateral"] == []


def test_an_answer_found_in_the_gui_earns_what_the_mcp_answer_earns(server):
    episode = start(server, "outage-minutes")
    gui = httpx.Client(base_url=f"{server}/episodes/{episode['id']}/gui", timeout=60, follow_redirects=True)
    found = gui.get("/mail", params={"q": "outage"}).text
    thread = re.search(r'data-testid="open-thread-(\d+)"', found).group(1)
    assert "42 minutes" in gui.get(f"/mail/thread/{thread}").text
    assert "Answer submitted" in gui.post("/task", data={"answer": "42", "status": "done"}).text
    by_gui = finish(server, episode)
    by_mcp = over_mcp(server, "outage-minutes", "task_submit_answer", {"answer": "42"})
    assert by_gui["passed"] and by_gui["total"] == by_mcp["total"] == 1.0
