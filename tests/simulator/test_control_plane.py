"""The control plane trainers use: a bearer token, task episodes with their tools, list, idle drop, the client."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from fastapi.testclient import TestClient
from surfaces import CONTROL, TOKEN, call

from simulator.gateway.client import AsyncClient, Client, ControlError
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.trajectories.files import read

TASK = "crm-close-globex-renewal"


@pytest.fixture(scope="module")
def acme(tmp_path_factory):
    """A server over the shipped world (compiled once in the user's cache), recording trajectories."""
    folder = tmp_path_factory.mktemp("trajectories")
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=folder), token=TOKEN)) as url:
        yield url, folder


def test_the_control_api_needs_the_token_and_the_agent_surfaces_do_not(live_server, world_dir):
    anonymous = httpx.post(f"{live_server}/v1/episodes", json={"world": str(world_dir)})
    assert anonymous.status_code == 401 and anonymous.json()["error"]["field"] == "authorization"
    wrong = httpx.get(f"{live_server}/v1/episodes", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and "wrong" in wrong.json()["error"]["message"]
    with Client(live_server) as ow:   # the token from OFFICEWORLD_TOKEN (conftest sets it)
        episode = ow.create_episode(world=str(world_dir))
    assert episode["tools"] is None   # not asked for, and no task
    sent = httpx.post(f"{episode['api_url']}/mail/send", json={"to": ["mei@small.test"], "subject": "s", "body": "b"})
    assert sent.status_code == 200
    assert httpx.get(f"{live_server}/health").status_code == 200


def test_a_task_episode_comes_with_its_prompt_tools_and_mcp_url_and_ends_in_a_reward(acme):
    url, folder = acme
    with Client(url, TOKEN) as ow:
        episode = ow.create_episode(TASK, meta={"sample": 0})
        assert episode["task"]["id"] == TASK and "Closed Won" in episode["task"]["prompt"]
        openai = {t["function"]["name"] for t in episode["tools"]["openai"]}
        mcp = {t["name"]: t for t in episode["tools"]["mcp"]}
        assert {"task_submit_answer", "crm_update_opportunity"} <= openai == set(mcp)
        assert "properties" in mcp["crm_search"]["inputSchema"]
        assert episode["mcp_url"].endswith(f"/episodes/{episode['id']}/mcp")

        found = ow.call(episode["id"], "crm_search", {"text": "globex renewal"})
        bad = ow.call(episode["id"], "crm_update_opportunity", {"opportunity_id": 10**9, "stage": "Closed Won"})
        assert found["error"] is None and bad["error"]["type"] == "not_found"   # a tool error is a Step, not a raise
        assert [e["id"] for e in ow.episodes(task=TASK)] == [episode["id"]]
        reward = ow.finish(episode["id"], answer="I could not find it", status="done")
        assert reward["passed"] is False and reward["total"] is not None
        ow.delete(episode["id"])
        with pytest.raises(ControlError) as gone:
            ow.episode(episode["id"])
        assert gone.value.status == 404 and gone.value.field == "episode_id"
    file = read(folder / f"{episode['id']}.jsonl")
    assert file.header.task.id == TASK and file.header.meta == {"sample": 0}
    assert file.footer.reason == "finish" and file.footer.total == reward["total"]
    assert [s.operation for s in file.steps if s.surface != "setup"] == ["search", "update_opportunity", "submit_answer"]


def test_the_async_client_forks_finishes_and_deletes_concurrently(acme):
    url, _ = acme

    async def rollout(ow: AsyncClient, parent: str) -> dict:
        child = await ow.fork(parent)
        await ow.call(child["id"], "task_submit_answer", {"answer": "no", "status": "refused"})
        reward = await ow.finish(child["id"])
        await ow.delete(child["id"])
        return reward

    async def main():
        async with AsyncClient(url, TOKEN) as ow:
            parent = await ow.create_episode(TASK)
            rewards = await asyncio.gather(*[rollout(ow, parent["id"]) for _ in range(4)])
            await ow.delete(parent["id"])
            return rewards

    rewards = asyncio.run(main())
    assert [r["passed"] for r in rewards] == [False] * 4 and {r["task"] for r in rewards} == {TASK}


def test_idle_episodes_are_dropped_after_the_timeout(tmp_path, world_dir):
    store = EpisodeStore(cache_dir=tmp_path / "cache", trajectory_dir=tmp_path / "t", idle_timeout=60)
    with TestClient(build_app(store), base_url="http://localhost:8000", headers=CONTROL) as api:
        idle = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
        busy = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
        for episode in (idle, busy):   # both made two minutes ago, as far as the store's idle clock knows
            store._created[episode["id"]] -= 120
        before = time.time()
        assert call(api, busy, "mail", "search", query="x").status_code == 200
        listed = api.get("/v1/episodes").json()
        # The call restarted the busy episode's idle clock: idle for no longer than since just before the call
        # (counted from its creation it would be 120 s more), however slow the machine is.
        assert [e["id"] for e in listed] == [busy["id"]] and listed[0]["idle_s"] <= time.time() - before + 0.01
        assert api.get(f"/v1/episodes/{idle['id']}").status_code == 404
    assert read(tmp_path / "t" / f"{idle['id']}.jsonl").footer.reason == "delete"
