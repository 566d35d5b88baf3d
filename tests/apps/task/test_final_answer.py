"""One submit rule, held by the world: after the agent's final answer its writes are refused and recorded."""

from __future__ import annotations

import asyncio

import pytest
from fastapi.testclient import TestClient
from surfaces import CONTROL, mcp_session
from task_factories import outage_task, write_task

from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.tasks.catalog import task_catalog


@pytest.fixture
def catalog(store, tmp_path, world_dir):
    write_task(tmp_path / "suites", "small", outage_task(world_dir))
    return task_catalog(store, tmp_path / "suites")


def _call(api: TestClient, episode: str, tool: str, **body) -> dict:
    response = api.post(f"/v1/episodes/{episode}/call", json={"tool": tool, **body})
    assert response.status_code == 200, response.text
    return response.json()


def test_writes_after_the_answer_are_refused_and_recorded_reads_still_run(store, catalog):
    with TestClient(build_app(store, catalog), base_url="http://localhost:8000", headers=CONTROL) as api:
        episode = api.post("/v1/episodes", json={"task": "outage-minutes"}).json()["id"]
        hit = _call(api, episode, "mail_search", arguments={"query": "outage"})["result"]["messages"][0]
        assert _call(api, episode, "task_submit_answer", arguments={"answer": "42"})["error"] is None
        star = _call(api, episode, "mail_star", arguments={"message_ids": [hit["id"]]})
        assert star["error"]["type"] == "conflict" and "final answer" in star["error"]["message"]
        assert not star["state_changed"]
        again = _call(api, episode, "task_submit_answer", arguments={"answer": "41"})
        assert again["error"]["type"] == "conflict"
        assert _call(api, episode, "mail_search", arguments={"query": "outage"})["error"] is None
        child = api.post(f"/v1/episodes/{episode}/fork").json()["id"]   # a fork keeps the rule
        assert _call(api, child, "mail_star", arguments={"message_ids": [hit["id"]]})["error"]["type"] == "conflict"
        # the world's people still act in it: a step with another actor is not the agent's
        ravi = _call(api, child, "mail_send", **{"as": "ravi@small.test"},
                     arguments={"to": ["dana@small.test"], "subject": "later", "body": "hi"})
        assert ravi["error"] is None
        steps = api.get(f"/v1/episodes/{episode}/trajectory").json()["steps"]
        assert [(s["operation"], (s["error"] or {}).get("type")) for s in steps] == [
            ("search", None), ("submit_answer", None), ("star", "conflict"), ("submit_answer", "conflict"),
            ("search", None)]
        reward = api.post(f"/v1/episodes/{episode}/finish").json()
        assert reward["passed"], reward   # the first answer stands: 42
        late = api.post(f"/v1/episodes/{episode}/finish", json={"answer": "7"})
        assert late.status_code == 422 and late.json()["error"]["field"] == "answer"


def test_the_rule_holds_over_mcp(store, catalog):
    with serve_in_thread(build_app(store, catalog)) as base:
        import httpx

        episode = httpx.post(f"{base}/v1/episodes", json={"task": "outage-minutes"}, headers=CONTROL, timeout=30).json()
        _, (answer, send) = asyncio.run(mcp_session(episode["mcp_url"], [
            ("task_submit_answer", {"answer": "42"}),
            ("mail_send", {"to": ["sam@globex.example"], "subject": "x", "body": "after"})]))
        assert not answer.is_error and send.is_error
        assert "final answer" in send.content[0].text
