"""Trajectory files: streamed as the episode runs, read back, replayed offline, exported as chat data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from surfaces import CONTROL, call

from simulator.gateway.server import build_app
from simulator.store.episodes import EpisodeStore
from simulator.trajectories.export import chat
from simulator.trajectories.files import read
from simulator.trajectories.replay import replay


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "trajectories"


@pytest.fixture
def rec(tmp_path: Path, folder: Path):
    store = EpisodeStore(cache_dir=tmp_path / "cache", trajectory_dir=folder)
    with TestClient(build_app(store), base_url="http://localhost:8000", headers=CONTROL) as client:
        yield client, store


def _episode(client, world_dir, **body) -> dict:
    response = client.post("/v1/episodes", json={"world": str(world_dir), **body})
    assert response.status_code == 201, response.text
    return response.json()


def _send(client, episode, subject):
    response = call(client, episode, "mail", "send", to=["mei@small.test"], subject=subject, body="hello")
    assert response.status_code == 200, response.text
    return response.json()


def test_every_answered_step_is_in_the_file_before_the_episode_ends(rec, world_dir, folder):
    client, _ = rec
    episode = _episode(client, world_dir, meta={"sample": 3})
    assert episode["recording"] is True
    _send(client, episode, "First")
    path = folder / f"{episode['id']}.jsonl"
    live = read(path)
    assert live.header.episode == episode["id"] and live.header.actor == episode["actor"]
    assert live.header.world == "small" and len(live.header.world_hash) == 64 and live.header.meta == {"sample": 3}
    assert [(s.surface, s.operation, s.state_changed) for s in live.steps] == [("rest", "send", True)]
    assert not live.finished

    assert call(client, episode, "mail", "search", query="subject:First").status_code == 200
    assert call(client, episode, "mail", "star", message_ids=[999999]).status_code == 404
    assert client.delete(f"/v1/episodes/{episode['id']}").status_code == 204
    done = read(path)
    assert [s.operation for s in done.steps] == ["send", "search", "star"]
    assert done.steps[2].error["type"] == "not_found"
    assert done.finished and done.footer.reason == "delete" and done.footer.reward is None
    assert set(done.footer.digests) == {"mail"}


def test_a_torn_last_line_reads_as_unfinished_and_a_file_without_header_is_refused(rec, world_dir, folder, tmp_path):
    client, _ = rec
    episode = _episode(client, world_dir)
    _send(client, episode, "One")
    path = folder / f"{episode['id']}.jsonl"
    path.write_text(path.read_text() + '{"kind": "step", "index": 1, "surf')
    torn = read(path)
    assert len(torn.steps) == 1 and not torn.finished
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "step"}\n')
    with pytest.raises(ValueError, match="header"):
        read(bad)


def test_per_episode_recording_can_be_turned_off_and_needs_a_folder_to_turn_on(rec, world_dir, folder, api):
    client, _ = rec
    off = _episode(client, world_dir, record=False)
    assert off["recording"] is False and not (folder / f"{off['id']}.jsonl").exists()
    refused = api.post("/v1/episodes", json={"world": str(world_dir), "record": True})  # conftest's store keeps no files
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "record"


def test_a_file_replays_with_no_divergence_and_a_fork_replays_alone(rec, world_dir, folder, tmp_path):
    client, _ = rec
    episode = _episode(client, world_dir)
    _send(client, episode, "Before fork")
    child = client.post(f"/v1/episodes/{episode['id']}/fork").json()
    assert client.post(f"/v1/episodes/{child['id']}/clock", json={"seconds": 3600}).status_code == 200
    _send(client, child, "After fork")
    assert call(client, child, "mail", "star", message_ids=[424242]).status_code == 404  # refused: changed nothing
    for e in (episode, child):
        assert client.delete(f"/v1/episodes/{e['id']}").status_code == 204

    store = EpisodeStore(cache_dir=tmp_path / "cache", trajectory_dir=None)
    child_file = read(folder / f"{child['id']}.jsonl")
    assert child_file.header.forked_from == episode["id"]
    assert [s.arguments.get("subject") for s in child_file.steps][:2] == ["Before fork", "After fork"]
    done = replay(child_file, store)
    assert done.ok, [d.describe() for d in done.divergences]
    assert (done.replayed, done.skipped_reads) == (2, 1)   # the refused star is not run again


def test_replay_reports_the_step_and_the_fields_that_differ(rec, world_dir, folder, tmp_path):
    client, _ = rec
    episode = _episode(client, world_dir)
    _send(client, episode, "Original")
    assert call(client, episode, "mail", "star", message_ids=[424242]).status_code == 404
    assert client.delete(f"/v1/episodes/{episode['id']}").status_code == 204
    path = folder / f"{episode['id']}.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[1]["result"]["subject"] = "Tampered"           # the send's recorded result
    lines[2]["error"], lines[2]["arguments"] = None, {"message_ids": [1]}  # the failed star now "succeeded"
    lines[-1]["digests"]["mail"] = "0" * 64
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))

    done = replay(path, EpisodeStore(cache_dir=tmp_path / "cache", trajectory_dir=None))
    described = [d.describe() for d in done.divergences]
    assert [(d.step, d.operation) for d in done.divergences] == [(0, "mail_send"), (1, "mail_star"), (None, "final state")]
    assert {"path": "$.subject", "recorded": "Tampered", "replayed": "Original"} in done.divergences[0].differences
    assert "digest differs" in described[2]


def test_export_gives_chat_messages_with_tool_calls_and_results(rec, world_dir, folder):
    client, _ = rec
    episode = _episode(client, world_dir)
    sent = _send(client, episode, "Quote")
    call(client, episode, "mail", "star", message_ids=[424242])
    client.post(f"/v1/episodes/{episode['id']}/call", json={"tool": "mail_search", "arguments": {"query": "x"},
                                                            "as": "mei@small.test"})
    conversation = chat(read(folder / f"{episode['id']}.jsonl"), tools=[{"type": "function"}])
    roles = [m["role"] for m in conversation["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool"]  # the call as Mei is not the agent's
    first = conversation["messages"][2]["tool_calls"][0]
    assert first["function"]["name"] == "mail_send" and json.loads(first["function"]["arguments"])["subject"] == "Quote"
    assert json.loads(conversation["messages"][3]["content"])["id"] == sent["id"]
    assert json.loads(conversation["messages"][5]["content"])["error"]["type"] == "not_found"
    assert conversation["tools"] == [{"type": "function"}] and conversation["metadata"]["finished"] is False
