"""The control plane's direct call writes its step in one pydantic pass (``control.step_json``): the same
bytes as ``Step.model_dump_json`` for every kind of step, and the same answer over HTTP as the trajectory's
step; the token and media type are read from the headers wherever they stand."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from surfaces import CONTROL, TOKEN

from apps.kit.invoker import invoke
from simulator.gateway.control import ToolCall, plain_call, step_json
from simulator.gateway.server import build_app
from simulator.store.episodes import EpisodeStore


def test_step_json_writes_what_model_dump_json_writes_for_every_kind_of_step():
    store = EpisodeStore()
    episode = store.create("acme")
    mail = store.apps["mail"].operations
    steps = [
        invoke(episode, mail["get_message"], {"message_id": 1}, "control"),
        invoke(episode, mail["star"], {"message_ids": [1]}, "control"),   # a write: state changed
        invoke(episode, mail["get_message"], {"message_id": "one"}, "control"),   # refused: an error step
        invoke(episode, mail["search"], {"query": 'subject:"mutates" ,"mutates": é \u2028'}, "control"),
        invoke(episode, mail["get_message"], {"message_id": 1}, "control", actor="kevin.liu@acmeanalytics.com"),
    ]
    assert steps[2].error is not None and steps[1].state_changed and steps[4].actor
    assert type(steps[0].__dict__["result"]) is bytes   # the one-pass path's case: its result kept encoded
    for step in steps:
        assert step_json(step) == step.model_dump_json().encode()
        assert json.loads(step_json(step))["result"] == step.result


def test_the_direct_call_answers_the_recorded_step_with_its_headers_in_any_order():
    with TestClient(build_app(EpisodeStore(), token=TOKEN)) as api:
        episode = api.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL).json()["id"]
        call = f"/v1/episodes/{episode}/call"
        body = json.dumps({"tool": "mail_get_message", "arguments": {"message_id": 1}}).encode()
        first = api.post(call, content=body, headers={**CONTROL, "content-type": "application/json"})
        media_first = api.post(call, content=body, headers={"content-type": "application/json; charset=utf-8",
                                                           "x-other": "1", **CONTROL})
        steps = api.get(f"/v1/episodes/{episode}/trajectory", headers=CONTROL).json()["steps"]
        assert [first.json(), media_first.json()] == steps
        assert first.json()["result"]["id"] == 1 and first.json()["error"] is None
        not_json = api.post(call, content=body, headers={**CONTROL, "content-type": "text/plain"})
        # A JSON body typed as a web page may send it without asking (CORS): refused before any route.
        assert not_json.status_code == 415 and not_json.json()["error"]["field"] == "content-type"
        wrong = api.post(call, content=body, headers={"content-type": "application/json",
                                                      "authorization": f"Bearer {TOKEN}x"})
        assert wrong.status_code == 401 and wrong.json()["error"]["field"] == "authorization"
        assert len(api.get(f"/v1/episodes/{episode}/trajectory", headers=CONTROL).json()["steps"]) == 2


@pytest.mark.parametrize("body", [
    {"tool": "mail_get_message", "arguments": {"message_id": 1}}, {"tool": "mail_list_labels"},
    {"tool": "mail_search", "arguments": {"query": "x", "nested": {"a": [1, None]}}}])
def test_a_plain_call_is_the_tool_call_model_validate_makes(body):
    made, validated = plain_call(json.loads(json.dumps(body))), ToolCall.model_validate(body)
    assert made is not None and type(made) is ToolCall
    assert made.model_dump() == validated.model_dump() and (made.tool, made.arguments, made.actor) == (
        validated.tool, validated.arguments, None)


@pytest.mark.parametrize("body", [
    {"tool": "mail_get_message", "as": "kevin.liu@acmeanalytics.com"}, {"tool": 5}, {"arguments": {}},
    {"tool": "mail_get_message", "arguments": [1]}, {"tool": "mail_get_message", "extra": 1},
    {"tool": "mail_get_message", "actor": None}])
def test_any_other_body_is_left_to_model_validate(body):
    assert plain_call(body) is None   # model_validate judges it; the route answers a refusal (test_operation_routes)
