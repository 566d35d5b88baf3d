"""The browser's observation mode through the control API: ``POST /v1/episodes`` takes ``observation``
(snapshot, pixels, marks), refuses a bad one naming the field, shows it in the episode, and the episode's
``browser_*`` tools answer in that mode over MCP and over ``/call``; the runner passes it and shows the model
the screenshot as an image."""

from __future__ import annotations

import asyncio
import base64
import json

import httpx
import pytest
import yaml
from gui_world import chromium_or_skip, make_gui_world
from mcp import Client
from surfaces import CONTROL, TOKEN

from simulator.gateway.client import AsyncClient
from simulator.gateway.server import build_app
from simulator.runner.rollout import rollout
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog

TASK = {"id": "renewal-stage", "outcome": "answer", "prompt": "Which stage is the Globex renewal in?",
        "bindings": {"deal": {"from": "crm.opportunity", "where": {"name": "Globex - Renewal 2026"}}},
        "criteria": [{"id": "stage", "answer": {"type": "text", "tokens": ["$deal.stage"]}},
                     {"id": "saw", "role": "perception", "perception": {"needs": ["$deal.stage"]}}],
        "oracle": [{"op": "task.submit_answer", "args": {"answer": "$deal.stage"}}]}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("observation")
    world = make_gui_world(root / "worlds")
    (root / "suites" / "gui").mkdir(parents=True)
    (root / "suites" / "gui" / "renewal-stage.yaml").write_text(yaml.safe_dump({**TASK, "world": str(world)}))
    store = EpisodeStore(cache_dir=root / "cache", idle_timeout=None)
    with serve_in_thread(build_app(store, task_catalog(store, root / "suites"), token=TOKEN)) as url:
        yield url


def create(url: str, **body) -> httpx.Response:
    return httpx.post(f"{url}/v1/episodes", json={"task": TASK["id"], **body}, headers=CONTROL, timeout=60)


def call(base: str, episode: str, tool: str, **arguments) -> httpx.Response:
    return httpx.post(f"{base}/v1/episodes/{episode}/call", json={"tool": tool, "arguments": arguments},
                      headers=CONTROL, timeout=120)


@pytest.mark.parametrize("body", [{"observation": "video"}, {"observation": 3},
                                  {"observation": "pixels", "browser": False}])
def test_a_bad_observation_is_refused_naming_the_field(server, body):
    response = create(server, **body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == "observation"


def test_an_episode_without_a_browser_shows_none_and_has_no_browser_tools(server):
    episode = create(server).json()
    assert episode["browser"] is None
    assert not [t for t in episode["tools"]["openai"] if t["function"]["name"].startswith("browser_")]
    refused = call(server, episode["id"], "browser_goto", url="crm")
    assert refused.status_code == 404 and refused.json()["error"]["field"] == "tool"


def test_a_marks_episode_answers_with_screenshots_over_rest_and_mcp(server):
    chromium_or_skip()
    created = create(server, observation="marks")
    assert created.status_code == 201, created.text
    episode = created.json()
    assert episode["browser"] == "marks"
    assert httpx.get(f"{server}/v1/episodes/{episode['id']}", headers=CONTROL).json()["browser"] == "marks"
    offered = {t["function"]["name"]: t["function"] for t in episode["tools"]["openai"]}
    assert {"mark", "text", "x", "y"} <= set(offered["browser_click"]["parameters"]["properties"])
    assert "browser_snapshot" not in offered and "task_submit_answer" in offered
    seen = call(server, episode["id"], "browser_goto", url="crm/search?q=globex+renewal").json()
    assert seen["error"] is None and "snapshot" not in seen["result"]
    assert base64.b64decode(seen["result"]["screenshot"]).startswith(b"\x89PNG")
    opened = call(server, episode["id"], "browser_click", text="Globex - Renewal 2026").json()
    assert opened["error"] is None and "/crm/Opportunity/" in opened["result"]["url"]
    missed = call(server, episode["id"], "browser_click", mark=999).json()
    assert missed["error"]["message"].startswith("mark: nothing on this page")
    unaimed = call(server, episode["id"], "browser_click", mark=1, text="Edit")
    assert unaimed.status_code == 422 and "exactly one" in unaimed.json()["error"]["message"]
    other = httpx.post(f"{server}/v1/episodes/{episode['id']}/call", headers=CONTROL, timeout=60, json={
        "tool": "browser_goto", "arguments": {"url": "crm"}, "as": "ravi@small.test"})
    assert other.status_code == 422 and other.json()["error"]["field"] == "as"

    async def over_mcp():
        async with Client(episode["mcp_url"]) as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            assert "browser_click" in listed and "browser_snapshot" not in listed
            answer = await client.call_tool("browser_screenshot", {})
            assert [c.type for c in answer.content] == ["image", "text"]
    asyncio.run(over_mcp())


def test_a_snapshot_episode_answers_with_the_accessibility_tree(server):
    chromium_or_skip()
    episode = create(server, browser=True).json()
    assert episode["browser"] == "snapshot"
    seen = call(server, episode["id"], "browser_goto", url="crm").json()
    assert "[ref=" in seen["result"]["snapshot"] and "screenshot" not in seen["result"]


class Looks:
    """A stand-in policy: opens the deal in the browser, says what it sees, then answers."""

    CALLS = [("browser_goto", {"url": "crm/search?q=globex+renewal"}), ("browser_click", {"text": "Globex - Renewal 2026"}),
             ("task_describe_view", {"description": "The deal Globex - Renewal 2026, in stage Proposal."}),
             ("task_submit_answer", {"answer": "Proposal"})]

    def __init__(self):
        self.seen: list[list[dict]] = []

    async def reply(self, http, messages, tools, *, task, sample):
        self.seen.append(list(messages))
        name, arguments = self.CALLS[len(self.seen) - 1]
        return {"role": "assistant", "tool_calls": [{"id": f"c{len(self.seen)}", "type": "function", "function": {
            "name": name, "arguments": json.dumps(arguments)}}]}

    def describe(self) -> dict:
        return {"policy": "looks"}


def test_the_runner_offers_the_browser_and_shows_the_model_its_screenshot(server):
    chromium_or_skip()
    policy = Looks()

    async def run():
        async with AsyncClient(server, TOKEN) as ow, httpx.AsyncClient(timeout=60) as http:
            return await rollout(ow, http, policy, TASK["id"], 0, observation="pixels")
    done = asyncio.run(run())
    assert done.failure is None and done.counts == {}, (done.failure, done.detail, done.counts)
    assert (done.reward, done.perception, done.evidence) == (1.0, 1.0, None)   # what the pages showed counts as read
    tool_reply, shown = policy.seen[1][-2], policy.seen[1][-1]
    assert tool_reply["role"] == "tool" and "screenshot" not in tool_reply["content"]
    assert shown["role"] == "user" and shown["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
