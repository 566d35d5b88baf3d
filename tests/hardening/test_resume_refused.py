"""Resume and replay over a folder that mixes accepted, refused and malformed steps and files.

A refused step changed nothing: replay, regrade and ``--resume`` never run it again (its arguments
were recorded made safe: ``Infinity`` as text, a non-object body as ``{}``, over-long text cut, and
run again they would be accepted). A divergence during resume stops that episode, with the reason;
one bad file never stops the others.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from surfaces import CONTROL
from test_resume import _port, _start  # the server helpers of the crash-and-resume test

from apps.kit.invoker import invoke
from simulator.store.episodes import EpisodeStore
from simulator.trajectories.replay import replay
from simulator.trajectories.resume import resume


@pytest.fixture
def folder(tmp_path, world_cache, world_dir):
    """An episode's file holding accepted and refused writes; returns (folder, episode id, digest, steps)."""
    store = EpisodeStore(cache_dir=world_cache, trajectory_dir=tmp_path / "files", idle_timeout=None)
    episode = store.create(str(world_dir))

    def call(app: str, op: str, arguments) -> None:
        invoke(episode, episode.operation(app, op), arguments, "rest")

    call("docs", "create_document", {"name": "Kept", "text": "accepted"})
    call("crm", "create_account", {"name": float("inf")})           # refused: recorded as "Infinity"
    call("mail", "create_draft", [1])                                 # refused: recorded as {}
    call("docs", "create_document", {"name": "x" * 100_001})         # refused: recorded cut to ~1,000
    call("mail", "search", {"query": "Kept"})
    call("crm", "create_account", {"name": "Also kept"})
    assert [s.error is None for s in episode.trajectory] == [True, False, False, False, True, True]
    return tmp_path / "files", episode.id, episode.digest(), [s.model_dump(mode="json") for s in episode.trajectory]


def fresh(folder: Path, world_cache) -> EpisodeStore:
    return EpisodeStore(cache_dir=world_cache, trajectory_dir=folder, idle_timeout=None)


def test_resume_skips_refused_steps_and_rebuilds_the_same_state(folder, world_cache):
    files, episode_id, digest, steps = folder
    store = fresh(files, world_cache)
    (done,) = resume(store)
    assert done.status == "resumed" and not done.divergences, done.describe()
    assert done.replayed == 2   # the two accepted writes; no refused one
    rebuilt = store.get(episode_id)
    assert rebuilt.digest() == digest
    assert [s.model_dump(mode="json") for s in rebuilt.trajectory] == steps


def test_replay_skips_refused_steps(folder, world_cache):
    files, episode_id, digest, _ = folder
    done = replay(files / f"{episode_id}.jsonl", fresh(files, world_cache))
    assert done.ok and done.replayed == 2, [d.describe() for d in done.divergences]
    assert done.episode.digest() == digest


def test_a_divergence_during_resume_stops_that_episode_with_the_reason(folder, world_cache):
    files, episode_id, _, _ = folder
    path = files / f"{episode_id}.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[1])
    first["result"]["name"] = "Not what the replay gives"
    lines[1] = json.dumps(first)
    path.write_text("\n".join(lines) + "\n")
    store = fresh(files, world_cache)
    (done,) = resume(store)
    assert done.status == "error" and "step 0" in done.reason and "differs" in done.reason, done.describe()
    assert episode_id not in store            # never served with state the file does not describe
    assert path.read_text().splitlines() == lines   # the file is left as it was


def _write(path: Path, *records: dict | str) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))


def test_bad_files_are_skipped_with_a_reason_and_the_rest_resume(folder, world_cache):
    files, episode_id, digest, _ = folder
    lines = (files / f"{episode_id}.jsonl").read_text().splitlines()
    header, last = json.loads(lines[0]), json.loads(lines[-1])

    def header_of(name: str) -> dict:
        return {**header, "episode": name}

    late = {**last, "index": 0, "virtual_time": "9999-12-31T23:59:58Z"}
    _write(files / "ep_late.jsonl", header_of("ep_late"),
           {"kind": "event", "event": "clock", "now": "9999-12-31T23:59:58+00:00"}, late)
    deep = {**last, "index": 0, "arguments": {"name": json.loads("[" * 600 + "]" * 600)}}
    _write(files / "ep_deep.jsonl", header_of("ep_deep"), deep)
    _write(files / "ep_deeper.jsonl", header_of("ep_deeper") | {"meta": json.loads("[" * 900 + "]" * 900)})
    _write(files / "ep_garbled.jsonl", header_of("ep_garbled"), {"kind": "step", "index": "first"}, {"kind": "step"})
    _write(files / "...jsonl", header_of(".."))
    _write(files / "ep_nothing.jsonl", {"kind": "header"})
    store = fresh(files, world_cache)
    done = {r.episode: r for r in resume(store)}
    assert done[episode_id].status == "resumed" and store.get(episode_id).digest() == digest
    for name in ("ep_late", "ep_deep", "ep_deeper", "ep_garbled", "..", "ep_nothing"):
        assert name in done and done[name].status != "resumed" and done[name].reason, (name, done.get(name))
        assert name not in store
    assert "clock" in done["ep_late"].reason and "episode id" in done[".."].reason


def test_officeworld_up_resume_starts_past_bad_files_and_serves_the_good_one(folder, tmp_path):
    files, episode_id, digest, _ = folder
    lines = (files / f"{episode_id}.jsonl").read_text().splitlines()
    header, last = json.loads(lines[0]), json.loads(lines[-1])
    _write(files / "ep_late.jsonl", {**header, "episode": "ep_late"},   # a clock moved to the end of dates, then a call
           {"kind": "event", "event": "clock", "now": "9999-12-31T23:59:58+00:00"},
           {**last, "index": 0, "virtual_time": "9999-12-31T23:59:58Z"})
    _write(files / "ep_deeper.jsonl", {**header, "episode": "ep_deeper", "meta": json.loads("[" * 900 + "]" * 900)})
    _write(files / "...jsonl", {**header, "episode": ".."})
    port = _port()
    server = _start(port, files, "--resume")
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=CONTROL, timeout=60) as http:
            assert [e["id"] for e in http.get("/v1/episodes").json()] == [episode_id]
            assert http.get(f"/v1/episodes/{episode_id}/digest").json()["digest"] == digest
    finally:
        server.terminate()
        server.wait(timeout=30)
    said = server.stderr.read()
    assert "ep_late: not resumed" in said and "..: not resumed" in said, said
