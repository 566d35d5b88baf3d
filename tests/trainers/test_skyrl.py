"""SkyRL's text environment (skyrl-gym 0.4) through ``skyrl_gym.make``, driven as SkyRL's generator drives one
(init, step the model's output until done, close): the world's reward, errors back to the model, the turn cap,
and no episode left open. skyrl-train itself (torch, vLLM, Ray) is not installed here."""

from __future__ import annotations

import json

import pytest
from surfaces import TOKEN
from trainer_oracles import oracle_actions

from simulator.gateway.client import Client
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog

skyrl_gym = pytest.importorskip("skyrl_gym", reason="skyrl-gym is the extra 'skyrl'")
import trainers.skyrl  # noqa: E402,F401  (registers officeworld)

TASK = "crm-close-globex-renewal"


@pytest.fixture(scope="module")
def world():
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token=TOKEN)) as url:
        yield url


def _say(tool: str, arguments: dict) -> str:
    return f"I will call it.\n<tool_call>{json.dumps({'name': tool, 'arguments': arguments})}</tool_call>"


def _open(world: str) -> list[dict]:
    with Client(world, TOKEN) as ow:
        return ow.episodes()


def test_an_oracle_rollout_earns_the_worlds_reward(world):
    env = skyrl_gym.make("officeworld", env_config={"server": world, "token": TOKEN}, extras={"task": TASK})
    messages, info = env.init([{"role": "user", "content": ""}])
    assert messages[0]["role"] == "system" and "<tool_call>" in messages[0]["content"]
    assert messages[-1]["content"] == task_catalog(EpisodeStore(trajectory_dir=None)).tasks[TASK].prompt
    assert {t["function"]["name"] for t in info["tools"]} >= {"crm_search", "task_submit_answer"}
    assert not any(t["function"]["name"].startswith("mail_") for t in info["tools"]), "the task's apps' tools"
    malformed = env.step("Let me think about it first.")
    assert not malformed["done"] and "no tool call" in malformed["observations"][0]["content"]
    actions = oracle_actions(TASK)
    for n, action in enumerate(actions, 1):
        out = env.step(_say(action["tool"], action["arguments"]))
        assert out["done"] == (n == len(actions))
    assert out["reward"] == 1.0 and out["metadata"]["reward"]["passed"] and out["metadata"]["gradable"]
    assert env.get_metrics()["passed"] == 1.0
    env.close()
    assert _open(world) == []


def test_the_turn_cap_ends_and_grades_and_closing_early_deletes(world):
    env = skyrl_gym.make("officeworld", env_config={"server": world, "token": TOKEN},
                         extras={"extra_info": {"task": TASK}, "max_turns": 2})
    env.init([])
    first = env.step(_say("crm_get_opportunity", {"opportunity_id": -1}))
    assert not first["done"] and '"error"' in first["observations"][0]["content"]
    last = env.step(_say("crm_search", {"text": "globex"}))
    assert last["done"] and last["reward"] == 0.0 and last["metadata"]["truncated"]
    assert _open(world) == []
    env.init([])   # a new rollout, abandoned mid-way
    assert len(_open(world)) == 1
    env.close()
    assert _open(world) == []
