"""Tool lists sized for a context window: a task's episode offers its apps' tools (and the answer) by default,
on its MCP endpoint and in the control API's answer; ``toolset: all`` offers every app's; the catalogue says
what a task's tools weigh."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from surfaces import CONTROL, mcp_session

from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore

TASK = "crm-close-globex-renewal"


@pytest.fixture(scope="module")
def server():
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None))) as url:
        yield url


def _create(url: str, **body) -> dict:
    response = httpx.post(f"{url}/v1/episodes", json=body, headers=CONTROL, timeout=60)
    assert response.status_code == 201, response.text
    return response.json()


def test_a_tasks_episode_offers_its_apps_tools_on_every_form(server):
    episode = _create(server, task=TASK)
    assert episode["toolset"] == ["crm", "task"]
    openai = {t["function"]["name"] for t in episode["tools"]["openai"]}
    assert {"crm_search", "crm_update_opportunity", "task_submit_answer"} <= openai
    assert not any(name.startswith(("mail_", "docs_", "calendar_")) for name in openai)
    tools, _ = asyncio.run(mcp_session(episode["mcp_url"], []))
    assert {t.name for t in tools} == openai == {t["name"] for t in episode["tools"]["mcp"]}
    child = httpx.post(f"{server}/v1/episodes/{episode['id']}/fork", headers=CONTROL).json()
    assert child["toolset"] == ["crm", "task"], "a fork offers what its parent did"

    everything = _create(server, task=TASK, toolset="all")
    assert everything["toolset"] is None
    tools, _ = asyncio.run(mcp_session(everything["mcp_url"], []))
    assert {t.name for t in tools} > openai and any(t.name.startswith("mail_") for t in tools)
    assert len(everything["tools"]["openai"]) == len(tools)


def test_a_world_episode_offers_every_tool_and_a_bad_choice_names_the_field(server):
    plain = _create(server, world="acme")
    assert plain["toolset"] is None
    refused = httpx.post(f"{server}/v1/episodes", json={"world": "acme", "toolset": "task"}, headers=CONTROL)
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "toolset"
    unknown = httpx.post(f"{server}/v1/episodes", json={"task": TASK, "toolset": "some"}, headers=CONTROL)
    assert unknown.status_code == 422 and unknown.json()["error"]["field"] == "toolset"


def test_the_catalogue_says_what_each_tasks_tools_weigh(server):
    listed = {t["id"]: t for t in httpx.get(f"{server}/v1/tasks", headers=CONTROL).json()}
    crm = listed[TASK]["tools"]
    assert crm["apps"] == ["crm", "task"] and crm["count"] == len(_create(server, task=TASK)["tools"]["openai"])
    every = len(httpx.get(f"{server}/v1/tools", headers=CONTROL).text)   # every tool, as OpenAI JSON
    assert 0 < crm["schema_chars"] < every / 2 and crm["schema_tokens_approx"] == crm["schema_chars"] // 4
    assert httpx.get(f"{server}/v1/tasks/{TASK}", headers=CONTROL).json()["tools"] == crm
