"""Round two of bad input: deep nesting, numbers written as text, odd text in the control API's fields.

Each is refused as ``invalid`` naming the argument, changes nothing, and leaves the episode whole: its
trajectory still reads, it still forks, and the step is in its file.
"""

import json
import socket

import pytest
from fastapi.testclient import TestClient
from surfaces import CONTROL

from sandbox.bridge import Bridge
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.trajectories.files import read

JSON = {"content-type": "application/json"}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture
def recorded(world_cache, tmp_path, world_dir):
    """A server keeping trajectory files, and an episode of the full world in it."""
    store = EpisodeStore(cache_dir=world_cache, trajectory_dir=tmp_path / "trajectories")
    with TestClient(build_app(store), base_url="http://localhost:8000", headers=CONTROL) as api:
        episode = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
        yield api, episode, tmp_path / "trajectories" / f"{episode['id']}.jsonl"


@pytest.mark.parametrize("depth", [70, 256, 600, 950])
def test_deep_arguments_are_refused_naming_the_argument_and_the_episode_stays_whole(recorded, depth):
    api, episode, path = recorded
    body = '{"file_id": 1, "cells": {"A1": ' + nested(depth) + "}}"
    rest = api.post(f"/episodes/{episode['id']}/api/docs/update_cells", content=body, headers=JSON)
    assert rest.status_code == 422, rest.text
    assert rest.json()["error"]["field"] == "cells" and "nested" in rest.json()["error"]["message"]
    call = api.post(f"/v1/episodes/{episode['id']}/call", content='{"tool": "docs_update_cells", "arguments": '
                    + body + "}", headers=JSON)
    assert call.status_code == 200 and call.json()["error"]["field"] == "cells", call.text
    steps = api.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"]
    assert [s["error"]["type"] for s in steps] == ["invalid", "invalid"]
    assert api.post(f"/v1/episodes/{episode['id']}/fork").status_code == 201
    assert [s.index for s in read(path).steps] == [0, 1]   # both reached the file


def test_nesting_within_the_limit_is_taken(recorded, world_dir):
    api, _, _ = recorded
    meta = json.loads('{"run": ' + nested(20) + "}")
    created = api.post("/v1/episodes", json={"world": str(world_dir), "meta": meta})
    assert created.status_code == 201, created.text


@pytest.mark.parametrize("text", ["1e999", "inf", "-Infinity", "NaN", " 1e400 "])
def test_numbers_written_as_text_keep_the_finite_rule(recorded, text):
    api, episode, _ = recorded
    before = api.get(f"/v1/episodes/{episode['id']}/digest").json()["digest"]
    answer = api.post(f"/episodes/{episode['id']}/api/crm/update_opportunity", json={"opportunity_id": 1, "amount": text})
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "amount", answer.text
    created = api.post(f"/episodes/{episode['id']}/api/crm/create_account", json={"name": "X", "annual_revenue": text})
    assert created.status_code == 422 and created.json()["error"]["field"] == "annual_revenue", created.text
    assert api.get(f"/v1/episodes/{episode['id']}/digest").json()["digest"] == before


def test_a_number_as_plain_text_is_still_taken(recorded):
    api, episode, _ = recorded
    answer = api.post(f"/episodes/{episode['id']}/api/crm/update_opportunity", json={"opportunity_id": 1, "amount": "1250.5"})
    assert answer.status_code == 200 and answer.json()["amount"] == 1250.5


@pytest.mark.parametrize("body, field", [
    ('{"as": "\\ud800"}', "as"),
    ('{"meta": {"run": "\\udfff"}}', "meta.run"),
    ('{"meta": {"run": ' + nested(900) + "}}", "meta"),
    ('{"meta": {"score": NaN}}', "meta.score"),
    (json.dumps({"world": "w" * 300}), "world"),
    (json.dumps({"world": "/tmp/" + "w" * 256 + "/small"}), "world"),
])
def test_the_control_api_refuses_what_a_file_header_cannot_hold(recorded, body, field):
    api, _, path = recorded
    before = sorted(p.name for p in path.parent.iterdir())
    answer = api.post("/v1/episodes", content=body, headers=JSON)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["field"] == field
    assert sorted(p.name for p in path.parent.iterdir()) == before   # no empty file left behind


def test_the_direct_call_refuses_a_lone_surrogate_in_as(recorded):
    api, episode, _ = recorded
    answer = api.post(f"/v1/episodes/{episode['id']}/call", content='{"tool": "mail_search", "as": "\\ud800"}',
                      headers=JSON)
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "as", answer.text


def test_a_path_past_64_kib_gets_a_4xx_from_the_episode_proxy():
    async def upstream(scope, receive, send):   # never reached
        raise AssertionError("forwarded")

    with serve_in_thread(upstream) as url, Bridge(("127.0.0.1", 0), url, ["/episodes/e1/api"]) as bridge:
        with socket.create_connection(("127.0.0.1", bridge.port), timeout=30) as sock:
            sock.sendall(b"GET /episodes/e1/api/" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            status = sock.recv(100).split(b" ")[1]
    assert status.startswith(b"4"), status


def test_the_clock_stops_short_of_the_end_of_dates_and_calls_go_on(recorded):
    api, episode, _ = recorded
    ten_years = {"seconds": 10 * 365 * 86400}
    for _ in range(800):   # from 2026, ~700 moves reach the cap
        moved = api.post(f"/v1/episodes/{episode['id']}/clock", json=ten_years)
        if moved.status_code != 200:
            break
    assert moved.status_code == 422 and moved.json()["error"]["field"] == "seconds", moved.text
    assert api.post(f"/episodes/{episode['id']}/api/mail/search", json={"query": "x"}).status_code == 200
    assert api.get(f"/v1/episodes/{episode['id']}/trajectory").status_code == 200


@pytest.mark.parametrize("text", ["1e999", "inf"])
def test_numbers_written_as_text_keep_the_finite_rule_over_mcp(live_server, world_dir, text):
    import asyncio

    import httpx
    from surfaces import mcp_session, new_episode

    episode = new_episode(live_server, world_dir)
    digest = f"{live_server}/v1/episodes/{episode['id']}/digest"
    before = httpx.get(digest, headers=CONTROL).json()["digest"]
    _, results = asyncio.run(mcp_session(episode["mcp_url"], [
        ("crm_update_opportunity", {"opportunity_id": 1, "amount": text}),
        ("crm_create_account", {"name": "X", "annual_revenue": text})]))
    assert all(r.is_error for r in results), results
    assert httpx.get(digest, headers=CONTROL).json()["digest"] == before
