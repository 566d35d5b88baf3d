"""The Gymnasium text environment: Gymnasium's own checker, an oracle run scoring the world's 1.0, truncation."""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from surfaces import TOKEN
from trainer_oracles import oracle_actions

import trainers.gym  # noqa: F401  (registers officeworld/<suite>)
from simulator.gateway.client import Client
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from trainers.gym import OfficeWorldEnv, suites

TASK = "crm-close-globex-renewal"


@pytest.fixture(scope="module")
def world():
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token=TOKEN)) as url:
        yield url


def test_every_suite_is_registered_and_the_env_passes_gymnasiums_checker():
    assert {f"officeworld/{s}" for s in suites()} <= set(gym.registry) and "crm" in suites()
    env = gym.make("officeworld/crm", max_steps=5)  # a world in this process
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught if "WARN" in str(w.message)] == []  # gymnasium.logger.warn
    first, info = env.reset(seed=3)
    assert first in env.observation_space and json.loads(first)["task"] == info["task"]
    assert env.reset(seed=3)[1]["task"] == info["task"]  # a seed draws the same task
    with pytest.raises(ValueError, match="'level'"):
        env.reset(options={"level": 2})
    env.close()


def test_an_oracle_run_scores_the_worlds_reward_and_the_step_limit_truncates(world):
    env = gym.make("officeworld/crm", server=world, token=TOKEN)
    obs, info = env.reset(seed=0, options={"task": TASK})
    assert json.loads(obs)["task"] == TASK and "crm_update_opportunity" in json.loads(obs)["tools"]
    assert {t["function"]["name"] for t in info["tools"]} >= {"crm_search", "task_submit_answer"}
    actions = oracle_actions(TASK)
    for n, action in enumerate(actions, 1):
        obs, reward, terminated, truncated, info = env.step(json.dumps(action))
        assert obs in env.observation_space and not truncated
        assert terminated == (n == len(actions))
    assert reward == 1.0 and info["reward"]["passed"] is True
    with Client(world, TOKEN) as ow:
        assert ow.episodes() == []  # graded and deleted
    env.close()

    env = OfficeWorldEnv(task=TASK, server=world, token=TOKEN, max_steps=3)
    env.reset(seed=0)
    steps = [env.step("not json"),
             env.step(json.dumps({"tool": "crm_teleport", "arguments": {}})),
             env.step(json.dumps({"tool": "crm_search", "arguments": {"text": "globex"}}))]
    assert steps[0][4]["error"]["field"] == "action" and steps[1][4]["error"]["field"] == "tool"
    assert [(s[2], s[3]) for s in steps] == [(False, False), (False, False), (False, True)]
    assert steps[2][1] == steps[2][4]["reward"]["total"] and steps[2][1] < 1.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step("{}")
    env.close()
    env.close()
