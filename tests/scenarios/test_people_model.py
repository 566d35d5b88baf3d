"""Co-workers who answer by a model (``scenarios.people.llm``), against a stand-in endpoint started here: the
rules answer without one; a reply within limits is acted on, kept by content and replayed from the cache;
a reply outside the limits is refused, recorded, and the rules answer; salts key replies apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import make_world
from people_factories import DANA, DANA_APPROVES, SAM, approval_task, ask_task
from stand_in_model import StandIn, actions
from task_factories import write_task

from scenarios.people.llm import Refused, check
from scenarios.people.persona import Persona
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from simulator.trajectories.files import read
from simulator.trajectories.replay import regrade, replay

PERSONA = {"persona": "Dana Lee, head of sales at Small. Short, direct replies.", "version": 1, "name": "stand-in-1",
           "knows": ["Discounts up to 15% need nobody else's approval."], "secrets": ["The floor price is 80,000."],
           "may": [{"op": "mail.reply", "args": ["body"]},
                   {"op": "mail.add_label", "args": ["message_ids", "label"], "limits": {"label": {"in": ["approved"]}}}],
           "delay": {"min_seconds": 600, "max_seconds": 1200}}
APPROVED = actions({"op": "mail.reply", "args": {"body": "Approved: 12% is fine for Globex."}})


def _approval(world: Path) -> dict:
    task = approval_task(world)
    task["npcs"] = [{**DANA_APPROVES, "model": PERSONA}]
    return task


@pytest.fixture
def suites(tmp_path: Path) -> Path:
    root = tmp_path / "suites"
    world = make_world(tmp_path / "worlds")
    write_task(root, "people", _approval(world))
    asking = ask_task(world)
    asking["user"]["model"] = {"persona": "Ravi's manager", "version": 1, "name": "stand-in-1"}
    write_task(root, "people", asking)
    return root


@pytest.fixture
def endpoint(monkeypatch, tmp_path):
    """Set the endpoint's variables to a stand-in answering ``APPROVED`` (its ``answer`` may be replaced)."""
    with StandIn(lambda body: APPROVED) as stand_in:
        monkeypatch.setenv("OFFICEWORLD_NPC_URL", stand_in.url)
        monkeypatch.setenv("OFFICEWORLD_NPC_CACHE_DIR", str(tmp_path / "npc-replies"))
        yield stand_in


def _record(tmp_path: Path, suites: Path, salt: str = "", oracle: bool = True) -> tuple[Path, object]:
    store = EpisodeStore(trajectory_dir=tmp_path / "trajectories", idle_timeout=None, cache_dir=tmp_path / "cache")
    catalog = task_catalog(store, suites)
    task = catalog.get("approval-12")
    episode = store.create(task.world, task.actor, task=task, salt=salt)
    run = catalog.start(task.id, episode=episode)
    catalog.engine.run_calls(run, task.oracle if oracle else task.oracle[:2])
    reward = catalog.finish(episode)
    store.finished(episode, reward)
    store.delete(episode.id)
    return tmp_path / "trajectories" / f"{episode.id}.jsonl", reward


def _npc_steps(path: Path) -> list:
    return [s for s in read(path).steps if s.surface == "npc" and s.app == "mail" and s.operation == "reply"]


def test_without_an_endpoint_the_rules_answer_and_two_runs_are_equal(tmp_path, suites, monkeypatch):
    monkeypatch.delenv("OFFICEWORLD_NPC_URL", raising=False)
    first, reward = _record(tmp_path, suites)
    second, _ = _record(tmp_path, suites)
    assert reward.passed and read(first).header.models == "off"
    [reply] = _npc_steps(first)
    assert reply.arguments["body"] == "Approved: 12% is fine for Globex." and reply.actor == DANA

    def same(path: Path):
        file = read(path)
        return [s.model_dump(exclude={"wall_time", "duration_ms"}) for s in file.steps], file.footer.digests

    assert same(first) == same(second)


def test_the_model_answers_and_a_replay_and_regrade_answer_from_the_cache(tmp_path, suites, endpoint):
    path, reward = _record(tmp_path, suites)
    assert reward.passed and reward.total == 1.0 and len(endpoint.requests) == 1
    asked = endpoint.requests[0]
    assert asked["model"] == "stand-in-1" and asked["temperature"] == 0
    assert "80,000" in asked["messages"][0]["content"] and "12%" in asked["messages"][1]["content"]
    [reply] = _npc_steps(path)
    key = reply.cause.rsplit("reply ", 1)[1]
    assert reply.actor == DANA and (tmp_path / "npc-replies" / key[:2] / f"{key}.json").is_file()
    store = EpisodeStore(trajectory_dir=None, idle_timeout=None, cache_dir=tmp_path / "cache")
    catalog = task_catalog(store, suites)
    done = replay(read(path), store, catalog)
    assert done.ok, "\n".join(d.describe() for d in done.divergences)
    again = regrade(read(path), store, catalog)
    assert (again.before, again.after, again.divergences, again.error) == (1.0, 1.0, 0, None)
    assert len(endpoint.requests) == 1   # never asked again


def test_a_reply_that_changed_or_is_gone_is_the_first_mismatch_never_asked_again(tmp_path, suites, endpoint):
    path, _ = _record(tmp_path, suites)
    [reply] = _npc_steps(path)
    entry = tmp_path / "npc-replies" / reply.cause[-64:-62] / f"{reply.cause[-64:]}.json"
    kept = json.loads(entry.read_text())
    entry.write_text(json.dumps({**kept, "reply": actions({"op": "mail.reply", "args": {"body": "No."}})}))
    endpoint.answer = lambda body: actions({"op": "mail.reply", "args": {"body": "Something else."}})
    store = EpisodeStore(trajectory_dir=None, idle_timeout=None, cache_dir=tmp_path / "cache")
    catalog = task_catalog(store, suites)
    changed = replay(read(path), store, catalog)
    assert changed.divergences[0].step == reply.index and "reaction differs" in changed.divergences[0].reason
    entry.unlink()
    gone = replay(read(path), store, catalog)
    assert gone.divergences[0].step == reply.index
    assert len(endpoint.requests) == 1


def test_a_proposal_outside_the_limits_is_refused_recorded_and_the_rules_answer(tmp_path, suites, endpoint):
    endpoint.answer = lambda body: actions({"op": "mail.send", "args": {"to": [SAM], "subject": "x", "body": "80,000"}})
    path, reward = _record(tmp_path, suites)
    steps = read(path).steps
    refused = next(s for s in steps if s.surface == "npc" and s.error is not None)
    assert "refused" in refused.error["message"] and "mail.send" in refused.error["message"]
    assert refused.actor == DANA and refused.operation == "reply"
    assert not any(s.surface == "npc" and s.operation == "send" for s in steps)
    [answer] = [s for s in _npc_steps(path) if s.error is None]
    assert answer.arguments["body"] == "Approved: 12% is fine for Globex." and answer.index > refused.index
    assert reward.passed   # the rules answered in the model's place


def test_each_salt_meets_its_own_reply_and_the_same_salt_the_same(tmp_path, suites, endpoint):
    def by_variant(body):
        seen = json.loads(body["messages"][1]["content"])
        return actions({"op": "mail.reply", "args": {"body": f"Approved ({seen.get('variant', 'none')})."}})

    endpoint.answer = by_variant
    bodies = {}
    for salt in ("a", "b", "a"):
        path, _ = _record(tmp_path, suites, salt=salt, oracle=False)
        [reply] = _npc_steps(path)
        bodies.setdefault(salt, set()).add(reply.arguments["body"])
        assert read(path).header.salt == salt
    assert bodies == {"a": {"Approved (a)."}, "b": {"Approved (b)."}}
    variants = [json.loads(r["messages"][1]["content"]).get("variant") for r in endpoint.requests]
    # Once each for a and b (the second a found its reply in the cache), and once unsalted: grading learns what
    # the oracle changes on an episode of its own.
    assert sorted(map(str, variants)) == ["None", "a", "b"]


def test_check_holds_the_model_to_its_operations_arguments_and_limits():
    persona = Persona.model_validate(PERSONA)
    values = {"message_id": 7}
    assert check(persona, APPROVED, values) == [("mail.reply", {"body": "Approved: 12% is fine for Globex.",
                                                                 "message_id": 7})]
    label = {"op": "mail.add_label", "args": {"message_ids": [7], "label": "approved"}}
    assert check(persona, actions(label), values)[0][1]["label"] == "approved"
    for bad, why in [("not json", "not JSON"), ("{}", "no \"actions\""),
                     (actions({"op": "mail.reply", "args": {"body": "x", "message_id": 1}}), "may not set"),
                     (actions({**label, "args": {"message_ids": [7], "label": "paid"}}), "is not one of"),
                     (actions({"op": "crm.delete_account", "args": {}}), "not an operation"),
                     (actions(*[label] * 4), "at most 3")]:
        with pytest.raises(Refused, match=why):
            check(persona, bad, values)


def test_the_control_api_takes_a_salt_into_the_episode_and_its_file(tmp_path):
    from fastapi.testclient import TestClient

    from simulator.gateway.server import build_app

    world = make_world(tmp_path / "worlds")
    store = EpisodeStore(trajectory_dir=tmp_path / "trajectories", idle_timeout=None, cache_dir=tmp_path / "cache")
    with TestClient(build_app(store, token="t")) as http:
        headers = {"Authorization": "Bearer t"}
        made = http.post("/v1/episodes", json={"world": str(world), "salt": "k7"}, headers=headers)
        assert made.status_code == 201, made.text
        assert store.get(made.json()["id"]).salt == "k7"
        assert read(tmp_path / "trajectories" / f"{made.json()['id']}.jsonl").header.salt == "k7"
        long = http.post("/v1/episodes", json={"world": str(world), "salt": "x" * 201}, headers=headers)
        assert long.status_code == 422 and "salt" in long.text


def test_over_the_control_api_a_live_episode_meets_the_model(tmp_path, suites, endpoint):
    from fastapi.testclient import TestClient

    from simulator.gateway.server import build_app

    store = EpisodeStore(trajectory_dir=tmp_path / "trajectories", idle_timeout=None, cache_dir=tmp_path / "cache")
    with TestClient(build_app(store, task_catalog(store, suites), token="t")) as http:
        headers = {"Authorization": "Bearer t"}
        made = http.post("/v1/episodes", json={"task": "approval-12", "salt": "s1"}, headers=headers).json()
        sent = http.post(f"/v1/episodes/{made['id']}/call", headers=headers, json={
            "tool": "mail_send", "arguments": {"to": [DANA], "subject": "Globex", "body": "Can I give Globex 12%?"}})
        assert sent.status_code == 200 and sent.json()["error"] is None
        http.post(f"/v1/episodes/{made['id']}/call", headers=headers,
                  json={"tool": "task_wait", "arguments": {"for_event": True}})
        steps = http.get(f"/v1/episodes/{made['id']}/trajectory", headers=headers).json()["steps"]
    [reply] = [s for s in steps if s["surface"] == "npc" and s["operation"] == "reply"]
    assert reply["error"] is None and reply["arguments"]["body"] == "Approved: 12% is fine for Globex."
    assert json.loads(endpoint.requests[0]["messages"][1]["content"])["variant"] == "s1"



def test_a_user_with_a_model_answers_by_it_is_replayed_from_the_cache_and_falls_back_on_record(tmp_path, suites,
                                                                                                  endpoint):
    endpoint.answer = lambda body: json.dumps({"answer": "Fifteen percent: 15%."})
    store = EpisodeStore(trajectory_dir=tmp_path / "trajectories", idle_timeout=None, cache_dir=tmp_path / "cache")
    catalog = task_catalog(store, suites)
    task = catalog.get("ask-discount")
    episode = store.create(task.world, task.actor, task=task)
    steps = catalog.engine.run_calls(catalog.start(task.id, episode=episode), task.oracle)
    assert steps[0].result["answer"] == "Fifteen percent: 15%."
    assert "15% with Sam" in endpoint.requests[0]["messages"][0]["content"]   # it knows the facts
    store.finished(episode, catalog.finish(episode))
    store.delete(episode.id)
    path = tmp_path / "trajectories" / f"{episode.id}.jsonl"
    replayed = EpisodeStore(trajectory_dir=None, idle_timeout=None, cache_dir=tmp_path / "cache")
    again = regrade(read(path), replayed, task_catalog(replayed, suites))
    assert (again.before, again.after, again.divergences) == (1.0, 1.0, 0)
    assert len(endpoint.requests) == 1   # grading's oracle run and the regrade found it in the cache
    endpoint.answer = lambda body: "not json"
    other = store.create(task.world, task.actor, task=task, salt="other")
    steps = catalog.engine.run_calls(catalog.start(task.id, episode=other), task.oracle[:1])
    failed = other.trajectory[-2]
    assert steps[0].result["answer"] == "We agreed 15% with Sam."   # the rule, after the failure recorded
    assert (failed.surface, failed.actor, failed.operation) == ("npc", "user", "ask_user") and failed.error
    assert len(endpoint.requests) == 2


def test_an_unfinished_live_episode_resumes_from_the_cache_and_goes_on_live(tmp_path, suites, endpoint):
    from simulator.trajectories.resume import resume

    store = EpisodeStore(trajectory_dir=tmp_path / "trajectories", idle_timeout=None, cache_dir=tmp_path / "cache")
    catalog = task_catalog(store, suites)
    task = catalog.get("approval-12")
    episode = store.create(task.world, task.actor, task=task, salt="r")
    catalog.engine.run_calls(catalog.start(task.id, episode=episode), task.oracle[:2])
    assert len(endpoint.requests) == 1
    again = EpisodeStore(trajectory_dir=tmp_path / "trajectories", idle_timeout=None, cache_dir=tmp_path / "cache")
    [result] = resume(again, task_catalog(again, suites))
    assert result.status == "resumed" and not result.divergences, result.describe()
    resumed = again.get(episode.id)
    assert (resumed.models, resumed.salt, len(endpoint.requests)) == ("live", "r", 1)
