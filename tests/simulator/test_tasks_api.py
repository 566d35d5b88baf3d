"""Tasks over the control API and the agent surfaces: agents see a prompt and a submit tool, never a grader."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from fastapi.testclient import TestClient
from surfaces import CONTROL, call, mcp_session
from task_factories import outage_task, reply_task, write_task

from simulator.gateway.server import build_app
from simulator.tasks.catalog import task_catalog


@pytest.fixture
def small_catalog(store, tmp_path, world_dir):
    root = tmp_path / "suites"
    write_task(root, "small", reply_task(world_dir))
    write_task(root, "small", outage_task(world_dir))
    return task_catalog(store, root)


@pytest.fixture
def task_api(store, small_catalog):
    with TestClient(build_app(store, small_catalog), base_url="http://localhost:8000", headers=CONTROL) as client:
        yield client


def test_listing_shows_prompts_and_never_the_grader(task_api):
    listed = task_api.get("/v1/tasks").json()
    assert {t["id"] for t in listed} == {"reply-sam", "outage-minutes"}
    one = task_api.get("/v1/tasks/reply-sam").json()
    assert one["prompt"].startswith("Reply to Sam")
    assert not {"criteria", "bindings", "oracle", "alternatives", "outcome"} & set(one)
    assert task_api.get("/v1/tasks", params={"tag": "mail"}).json()[0]["id"] == "reply-sam"
    missing = task_api.get("/v1/tasks/nope")
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "task"


def test_an_episode_for_a_task_is_graded_at_finish(task_api):
    created = task_api.post("/v1/episodes", json={"task": "reply-sam"})
    assert created.status_code == 201, created.text
    episode = created.json()
    assert episode["task"]["prompt"].startswith("Reply to Sam")
    before = task_api.post(f"/v1/episodes/{episode['id']}/finish").json()
    assert (before["total"], before["passed"]) == (0.0, False)
    found = call(task_api, episode, "mail", "search", query="from:sam renewal").json()
    reply = call(task_api, episode, "mail", "reply", message_id=found["messages"][0]["id"],
                 body="Hi Sam, the quote is 184,000.")
    assert reply.status_code == 200, reply.text
    reward = task_api.post(f"/v1/episodes/{episode['id']}/finish").json()
    assert (reward["total"], reward["passed"], reward["gradable"]) == (1.0, True, True)
    assert {c["id"] for c in reward["criteria"]} >= {"replied", "outcome", "no_collateral_damage"}


def test_the_answer_arrives_by_mcp_and_is_a_step(live_server, store, small_catalog, tmp_path):
    from simulator.service.serve import serve_in_thread

    with serve_in_thread(build_app(store, small_catalog)) as base:
        episode = httpx.post(f"{base}/v1/episodes", json={"task": "outage-minutes"}, headers=CONTROL, timeout=30).json()
        tools, (result,) = asyncio.run(mcp_session(episode["mcp_url"], [("task_submit_answer", {"answer": "42"})]))
        names = {t.name for t in tools}
        assert "task_submit_answer" in names and not any("grade" in n or "finish" in n for n in names)
        assert not result.is_error
        reward = httpx.post(f"{base}/v1/episodes/{episode['id']}/finish", headers=CONTROL, timeout=30).json()
        assert reward["passed"], json.dumps(reward)[:500]
        steps = httpx.get(f"{base}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
        assert [(s["surface"], s["app"], s["operation"]) for s in steps] == [("mcp", "task", "submit_answer")]


def test_an_agent_surface_cannot_reach_the_control_api(task_api):
    episode = task_api.post("/v1/episodes", json={"task": "outage-minutes"}).json()
    for path in ("v1/episodes", f"v1/episodes/{episode['id']}/finish", "task/finish", "tasks/grade"):
        assert task_api.post(f"/episodes/{episode['id']}/api/{path}", json={}).status_code == 404


def test_acting_as_someone_else_is_recorded_with_the_actor(task_api, world_dir):
    episode = task_api.post("/v1/episodes", json={"world": str(world_dir)}).json()
    step = task_api.post(f"/v1/episodes/{episode['id']}/call", json={
        "tool": "mail_send", "as": "ravi@small.test",
        "arguments": {"to": ["dana@small.test"], "subject": "From Ravi", "body": "hello"}}).json()
    assert (step["actor"], step["surface"], step["error"]) == ("ravi@small.test", "control", None)
    inbox = call(task_api, episode, "mail", "search", query="from:ravi subject:ravi").json()
    assert inbox["total"] == 1
    bad = task_api.post(f"/v1/episodes/{episode['id']}/call", json={"tool": "mail_nope", "arguments": {}})
    assert bad.status_code == 404 and bad.json()["error"]["field"] == "tool"
    mixed = task_api.post("/v1/episodes", json={"task": "outage-minutes", "world": "acme"})
    assert mixed.status_code == 422 and mixed.json()["error"]["field"] == "task"


def test_the_oracle_runs_in_an_episode_for_a_gold_check(task_api, world_dir):
    episode = task_api.post("/v1/episodes", json={"task": "reply-sam"}).json()
    ran = task_api.post(f"/v1/episodes/{episode['id']}/oracle")
    assert ran.status_code == 200, ran.text
    assert ran.json() and all(s["surface"] == "control" and s["error"] is None for s in ran.json())
    reward = task_api.post(f"/v1/episodes/{episode['id']}/finish").json()
    assert (reward["total"], reward["passed"]) == (1.0, True)
    missing = task_api.post(f"/v1/episodes/{episode['id']}/oracle", json={"alternative": 5})
    assert missing.status_code == 422 and missing.json()["error"]["field"] == "alternative"
    plain = task_api.post("/v1/episodes", json={"world": str(world_dir)}).json()
    refused = task_api.post(f"/v1/episodes/{plain['id']}/oracle", json={})
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "episode_id"
