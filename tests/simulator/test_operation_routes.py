"""Operation calls answered by ``apps.kit.rest.OperationRoutes`` (one dict lookup, not the router's scan)
behave as the routes they stand in for: recorded steps, the CLI surface header, error shapes."""

from __future__ import annotations

from fastapi.testclient import TestClient
from surfaces import CONTROL, TOKEN

from simulator.gateway.server import build_app
from simulator.store.episodes import EpisodeStore


def test_operation_calls_record_steps_and_answer_errors_in_the_same_shape():
    with TestClient(build_app(EpisodeStore(), token=TOKEN)) as api:
        episode = api.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).json()["id"]
        base = f"/episodes/{episode}/api"
        got = api.post(f"{base}/mail/get_message", json={"message_id": 1})
        assert got.status_code == 200 and got.json()["id"] == 1
        cli = {"x-officeworld-surface": "cli"}
        assert api.post(f"{base}/mail/star", json={"message_ids": [1]}, headers=cli).status_code == 200
        refused = api.post(f"{base}/mail/get_message", json={"message_id": "one"})
        assert refused.status_code == 422 and refused.json()["error"]["field"] == "message_id"
        assert api.post(f"{base}/mail/get_message", content=b"{not json").json()["error"]["field"] == "body"
        steps = api.get(f"/v1/episodes/{episode}/trajectory", headers=CONTROL).json()["steps"]
        assert [(s["operation"], s["surface"], s["error"] is None) for s in steps] == [
            ("get_message", "rest", True), ("star", "cli", True), ("get_message", "rest", False)]
        missing = api.post("/episodes/nope/api/mail/get_message", json={"message_id": 1})
        assert missing.status_code == 404 and missing.json()["error"]["field"] == "episode_id"
        assert api.post(f"{base}/mail/no_such_op", json={}).json()["error"]["type"] == "not_found"
        assert api.get(f"{base}/mail/get_message").status_code == 405
        assert api.get("/health").json()["episodes"] == 1


def test_the_control_plane_call_returns_the_recorded_step():
    with TestClient(build_app(EpisodeStore(), token=TOKEN)) as api:
        episode = api.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).json()["id"]
        body = {"tool": "mail_get_message", "arguments": {"message_id": 1}}
        assert api.post(f"/v1/episodes/{episode}/call", json=body).status_code == 401
        step = api.post(f"/v1/episodes/{episode}/call", json=body, headers=CONTROL).json()
        assert step["surface"] == "control" and step["result"]["id"] == 1 and step["index"] == 0
        assert step["virtual_time"].endswith("Z") or "+00:00" in step["virtual_time"]
