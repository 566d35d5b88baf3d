"""A step keeps its result as JSON bytes the garbage collector does not track, and every reader and
serialiser sees what it saw when the step held the result's objects."""

from __future__ import annotations

import gc
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from surfaces import CONTROL, call

from apps.kit.rest import encode
from apps.kit.trajectory import Step, Surface, Trajectory
from simulator.gateway.server import build_app
from simulator.store.episodes import EpisodeStore
from simulator.trajectories.export import tool_content
from simulator.trajectories.files import read
from worlds.model import Strict

NOW = datetime(2026, 3, 16, 9, 30, 0, 123456, tzinfo=timezone.utc)
HIT = {"id": 7, "subject": "Renewal – Zürich 東京 ✓", "date": "2026-03-01T10:00:00Z", "labels": ["inbox", "starred"],
       "score": 1.5e-7, "big": 2**70, "snippet": "quote \" back\\slash \n line\u2028separator", "none": None, "flag": True}
RESULTS: list[Any] = [{"total": 2, "messages": [HIT, {**HIT, "id": 8}]}, [], {}, "ünïcode", 3, 2.5, True,
                      [1, [2, [3, {"a": None}]]]]


class Held(Strict):
    """A step as it was before: the result held as the operation returned it."""

    index: int
    surface: Surface
    app: str
    operation: str
    actor: str | None = None
    arguments: dict[str, Any]
    result: Any = None
    error: dict[str, Any] | None = None
    mutates: bool
    state_changed: bool
    virtual_time: datetime
    wall_time: datetime
    duration_ms: float
    requested_by: int | None = None
    cause: str | None = None


def _fields(result: Any, error: dict | None = None) -> dict:
    return dict(index=3, surface="rest", app="mail", operation="search", actor="b@x.test",
                arguments={"query": "renewal ü"}, result=result, error=error, mutates=False, state_changed=False,
                virtual_time=NOW, wall_time=NOW, duration_ms=0.5, requested_by=None, cause=None)


def _made(way: str, result: Any) -> Step:
    fields = _fields(result)
    if way == "validate":
        return Step.model_validate(fields)
    if way == "validate_json":
        return Step.model_validate_json(Held(**fields).model_dump_json())
    if way == "init":
        return Step(**fields)
    if way == "construct":
        return Step.model_construct(**fields)
    if way == "complete":
        return Step.complete(fields)
    if way == "built":
        return Step.built(**fields)
    step = Step.complete(_fields(None))
    step.result = result
    return step


@pytest.mark.parametrize("way", ["validate", "validate_json", "init", "construct", "complete", "built", "assign"])
@pytest.mark.parametrize("result", RESULTS, ids=[type(r).__name__ + str(i) for i, r in enumerate(RESULTS)])
def test_every_way_a_step_is_made_keeps_its_result_encoded_and_untracked(way, result):
    step = _made(way, result)
    kept = step.__dict__["result"]
    assert type(kept) is bytes and not gc.is_tracked(kept)
    assert step.result == result and step.result_json == encode(result)
    assert step == Step.model_validate_json(step.model_dump_json())
    if isinstance(result, (dict, list)):
        read = step.result
        assert read is not step.result   # decoded afresh, not cached: nothing tracked stays behind
        read.clear()
        assert step.result == result     # what a reader does to its copy does not change the record


def test_a_result_of_none_is_kept_as_none():
    step = Step.model_validate(_fields(None, {"type": "not_found", "message": "no message 9"}))
    assert step.__dict__["result"] is None and step.result is None and step.result_json == b"null"
    assert Step.complete(_fields(None)).__dict__["result"] is None


@pytest.mark.parametrize("result", [*RESULTS, None], ids=[f"r{i}" for i in range(len(RESULTS) + 1)])
def test_a_step_serialises_as_a_step_holding_the_objects_did(result):
    error = {"type": "not_found", "message": "pas de message ü"} if result is None else None
    step, held = Step.model_validate(_fields(result, error)), Held(**_fields(result, error))
    assert step.model_dump_json() == held.model_dump_json()
    assert step.model_dump() == held.model_dump() and step.model_dump(mode="json") == held.model_dump(mode="json")
    assert repr(step.model_dump()) == repr(held.model_dump())   # same types too (int, float, bool)
    assert step.model_dump_json(exclude_unset=True, indent=2) == held.model_dump_json(exclude_unset=True, indent=2)
    assert repr(step).removeprefix("Step") == repr(held).removeprefix("Held") and dict(step) == dict(held)
    partial = {k: v for k, v in _fields(result, error).items() if k not in ("actor", "requested_by")}
    assert Step.model_construct(**partial).model_dump_json() == Held.model_construct(**partial).model_dump_json()
    episode = type("E", (), {"id": "e1", "world": type("W", (), {"name": "acme"})(), "actor": "a@x.test",
                             "trajectory": [step]})()
    dumped = Trajectory.of(episode).model_dump_json()
    assert json.loads(dumped)["steps"] == [json.loads(held.model_dump_json())]
    assert tool_content(step) == json.dumps(error and {"error": error} or result, ensure_ascii=False, default=str)


def test_the_schema_is_that_of_a_result_of_any_json():
    assert Step.model_json_schema()["properties"] == Held.model_json_schema()["properties"]
    assert Step.model_json_schema(mode="serialization")["properties"] == \
        Held.model_json_schema(mode="serialization")["properties"]


def test_rest_answers_with_the_kept_bytes_and_the_control_api_serves_the_same_result(api, store, episode):
    found = call(api, episode, "mail", "search", query="renewal")
    assert found.status_code == 200, found.text
    step = store.get(episode["id"]).trajectory[-1]
    assert step.result_json == found.content and not gc.is_tracked(step.__dict__["result"])
    trajectory = api.get(f"/v1/episodes/{episode['id']}/trajectory")
    assert trajectory.status_code == 200, trajectory.text
    recorded = trajectory.json()["steps"][-1]
    assert recorded["operation"] == "search" and recorded["result"] == found.json()
    called = api.post(f"/v1/episodes/{episode['id']}/call", json={"tool": "mail_search", "arguments": {"query": "renewal"}})
    assert called.status_code == 200, called.text
    assert called.json()["result"] == found.json()


def test_a_recorded_file_holds_each_step_as_its_json_and_reads_back_the_same_steps(tmp_path: Path, world_dir):
    """U+2028 in a result is written raw by the JSON encoder; the reader cuts records at newlines only."""
    store = EpisodeStore(cache_dir=tmp_path / "cache", trajectory_dir=tmp_path / "t")
    with TestClient(build_app(store), base_url="http://localhost:8000", headers=CONTROL) as client:
        created = client.post("/v1/episodes", json={"world": str(world_dir)})
        assert created.status_code == 201, created.text
        episode = created.json()
        subject = "Zürich\u2028line two – 東京"
        sent = call(client, episode, "mail", "send", to=["mei@small.test"], subject=subject, body="hello")
        assert sent.status_code == 200, sent.text
        found = call(client, episode, "mail", "search", query="Zürich")
        assert found.status_code == 200, found.text
        assert subject in [m["subject"] for m in found.json()["messages"]]
        steps = list(store.get(episode["id"]).trajectory)
    path = tmp_path / "t" / f"{episode['id']}.jsonl"
    lines = path.read_bytes().split(b"\n")
    assert "\u2028".encode() in path.read_bytes()
    for step in steps:
        assert ('{"kind":"step",' + step.model_dump_json()[1:]).encode() in lines
    back = read(path)
    assert back.steps == steps
    assert [s.model_dump_json() for s in back.steps] == [s.model_dump_json() for s in steps]
    assert all(type(s.__dict__["result"]) in (bytes, type(None)) for s in back.steps)
