"""Operation calls answered by the gateway before FastAPI (``simulator.gateway.fast``: one dict lookup, not the router's scan)
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


def test_the_direct_call_refuses_what_the_route_refuses_in_the_same_shape():
    with TestClient(build_app(EpisodeStore(), token=TOKEN)) as api:
        episode = api.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).json()["id"]
        call = f"/v1/episodes/{episode}/call"

        def refused(status: int, field: str, path: str = call, **kwargs) -> None:
            response = api.post(path, headers=CONTROL, **kwargs)
            assert response.status_code == status and response.headers["content-type"] == "application/json"
            assert response.json()["error"]["field"] == field, response.text

        refused(404, "tool", json={"tool": "mail_no_such", "arguments": {}})
        refused(404, "episode_id", "/v1/episodes/nope/call", json={"tool": "mail_get_message"})
        refused(422, "as", json={"tool": "mail_get_message", "as": "nobody@nowhere.example"})
        step = api.post(call, headers=CONTROL, json={"tool": "mail_get_message", "arguments": {"message_id": "one"}})
        assert step.status_code == 200 and step.json()["error"]["field"] == "message_id"   # the tool's refusal, a step
        refused(422, "tool", json={"tool": 5})   # not a ToolCall: the route answers, naming the field
        refused(422, "extra", json={"tool": "mail_get_message", "extra": 1})
        wrong = {"authorization": "Bearer not-the-token"}
        assert api.post(call, json={"tool": "mail_get_message"}, headers=wrong).json()["error"]["type"] == "unauthorized"
        steps = api.get(f"/v1/episodes/{episode}/trajectory", headers=CONTROL).json()["steps"]
        assert [(s["operation"], s["surface"], s["error"]["field"]) for s in steps] == [
            ("get_message", "control", "message_id")]   # the refused call into an app is a step; the rest never ran


def test_health_and_what_the_fast_paths_leave_to_the_router():
    with TestClient(build_app(EpisodeStore(), token=TOKEN)) as api:
        health = api.get("/health?verbose=1")
        assert health.headers["content-type"] == "application/json"
        assert health.json() == {"status": "ok", "episodes": 0, "apps": sorted(health.json()["apps"])}
        assert "mail" in health.json()["apps"]
        assert api.post("/health").json()["error"]["type"] == "method_not_allowed"
        unknown = api.post("/episodes/x/api/mail/get_message/more", json={})
        assert unknown.status_code == 404 and unknown.json()["error"]["type"] == "not_found"
        assert api.post("//episodes//api/mail/get_message").status_code == 404


def test_an_operation_that_crashes_answers_500_and_is_recorded(monkeypatch):
    from apps.kit.episode import Episode

    with TestClient(build_app(EpisodeStore(), token=TOKEN), raise_server_exceptions=False) as api:
        episode = api.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).json()["id"]

        def crash(*args, **kwargs):
            raise RuntimeError("boom")
        monkeypatch.setattr(Episode, "call", crash)
        crashed = api.post(f"/episodes/{episode}/api/mail/get_message", json={"message_id": 1})
        assert crashed.status_code == 500 and crashed.text == "Internal Server Error"
        direct = api.post(f"/v1/episodes/{episode}/call", json={"tool": "mail_get_message",
                                                                "arguments": {"message_id": 1}}, headers=CONTROL)
        assert direct.status_code == 500
        monkeypatch.undo()
        steps = api.get(f"/v1/episodes/{episode}/trajectory", headers=CONTROL).json()["steps"]
        assert [(s["surface"], s["error"]["type"]) for s in steps] == [("rest", "internal"), ("control", "internal")]
        assert api.post(f"/episodes/{episode}/api/mail/get_message", json={"message_id": 1}).status_code == 200
