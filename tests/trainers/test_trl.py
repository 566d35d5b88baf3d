"""TRL's GRPOTrainer over a world: real GRPO steps on CPU with a tiny model built here, and the rewards the
trainer logs compared with the rewards the world recorded in its trajectory files.

A random tiny model makes no valid tool call, so the model is first taught (a few supervised steps) to answer
the task's question with a tool call, half the time with the right number and half with a wrong one: the
world then grades episodes both ways, and what the trainer logs must follow the world's grades exactly."""

from __future__ import annotations

import json
import pickle
import statistics

import pytest
import tiny_policy
import torch
from transformers.utils import get_json_schema

from simulator.gateway.client import Client
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations
from simulator.tasks.catalog import task_catalog
from simulator.trajectories.export import SYSTEM_PROMPT
from simulator.trajectories.files import files_in, read
from tasks.refs import resolve
from trainers.trl import SUBMIT, Criterion, OfficeWorld, ToolError, dataset, goals, guards, local_world, passed, penalties, train

TASK = "crm-answer-globex-open-cases"
OTHER = "crm-answer-negotiation-total"   # the tiny policy was not taught this one
STEPS, K = 3, 4
BATCH = 2 * K   # rollouts per step: K of each task


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread: on a small shared machine, more spin against each other (10x slower here)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def right_answer() -> str:
    catalog = task_catalog(EpisodeStore(trajectory_dir=None))
    submit = catalog.tasks[TASK].oracle[-1]
    assert submit.op == "task.submit_answer"
    return resolve(submit.args, catalog.start(TASK).scope)["answer"]


def _policy(folder, prompt: str, right: str) -> str:
    """A tiny model that answers ``prompt`` with a tool call, the right answer or a wrong one."""
    calls = [tiny_policy.call(SUBMIT, {"answer": right}), tiny_policy.call(SUBMIT, {"answer": str(int(right) + 5)})]
    tok = tiny_policy.tokenizer([SYSTEM_PROMPT, prompt, *calls] * 20)
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}]
    text = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    net = tiny_policy.model(tok)
    tiny_policy.warm_start(net, tok, text, calls)
    return tiny_policy.save(net, tok, folder)


def test_grpo_steps_log_the_rewards_the_world_recorded(right_answer, tmp_path):
    prompt = task_catalog(EpisodeStore(trajectory_dir=None)).tasks[TASK].prompt
    model = _policy(tmp_path / "model", prompt, right_answer)
    out = tmp_path / "run"
    rows = train(model, [TASK, OTHER], steps=STEPS, k=K, out=out,
                 config={"max_completion_length": 96, "learning_rate": 1e-3, "seed": 0})

    # The world's record: one finished file per rollout, in creation order; each step made BATCH of them.
    files = sorted((read(p) for p in files_in(out / "trajectories")), key=lambda f: f.header.started)
    assert len(files) == STEPS * BATCH and all(f.footer and f.footer.reward for f in files)
    for step in range(STEPS):
        assert sorted(f.header.task.id for f in files[step * BATCH:(step + 1) * BATCH]) == [TASK] * K + [OTHER] * K
    taught = [f for f in files if f.header.task.id == TASK]
    for f in taught:
        answers = [s.arguments.get("answer") for s in f.steps if s.tool == SUBMIT and s.error is None]
        assert f.footer.passed == (answers == [right_answer])
    assert {f.footer.passed for f in taught} == {True, False}, "the tiny policy should answer both ways"

    logs = [log for log in json.loads((out / "trl_log.json").read_text()) if "reward" in log]
    assert [r["step"] for r in rows] == [1, 2, 3] and len(logs) == STEPS
    for step, (row, log) in enumerate(zip(rows, logs)):
        batch = files[step * BATCH:(step + 1) * BATCH]
        world_mean = statistics.mean(f.footer.total for f in batch)
        assert row["reward_mean"] == pytest.approx(world_mean, abs=1e-6)
        assert log["reward"] == pytest.approx(world_mean, abs=1e-6)   # the criteria views have weight 0
        assert row["pass_rate"] == pytest.approx(statistics.mean(f.footer.passed for f in batch), abs=1e-6)
        guard_means = [statistics.mean(c["score"] for c in f.footer.reward["criteria"] if c["role"] == "guard")
                       for f in batch]
        assert log["rewards/guards/mean"] == pytest.approx(statistics.mean(guard_means), abs=1e-6)
        assert log["rewards/guards/mean"] > 0   # no_writes and outcome pass: nothing was written
        assert log["rewards/penalties/mean"] == pytest.approx(1.0)
    assert json.loads((out / "trl_steps.json").read_text()) == rows


def test_the_environment_is_the_worlds_tools_and_protocol():
    env = OfficeWorld()   # no server: a world in this process
    for op in all_operations():
        world = op.openai_tool()["function"]
        schema = get_json_schema(getattr(env, world["name"]))["function"]
        assert set(schema["parameters"]["properties"]) == set(world["parameters"].get("properties", {}))
        assert set(schema["parameters"].get("required", [])) == set(world["parameters"].get("required", []))
    assert len(OfficeWorld._tool_names()) == len(all_operations())

    with pytest.raises(ValueError, match="'task' column"):
        env.reset(prompt=[])
    assert env.reset(task=TASK).startswith("How many cases")
    with pytest.raises(ToolError, match="opportunity_id"):
        env.crm_get_opportunity()
    with pytest.raises(ToolError, match="not_found"):
        env.crm_get_opportunity(opportunity_id=999999)
    assert "Globex" in env.crm_search(text="globex")
    json.loads(env.task_submit_answer(answer="2"))
    with pytest.raises(ToolError, match="answer was submitted"):
        env.crm_search(text="globex")
    assert env.get_reward() == 1.0
    assert [f([env]) for f in (goals, guards, penalties, passed)] == [[1.0], [1.0], [1.0], [1.0]]
    assert Criterion("count")([env]) == [1.0] and Criterion("nope")([env]) == [None]
    with Client(*local_world()) as ow:
        assert ow.episodes(task=TASK) == []   # graded, then deleted

    env.reset(task=TASK)   # nothing done: the goal fails, the guards pass
    assert (env.get_reward(), goals([env]), guards([env]), passed([env])) == (0.0, [0.0], [1.0], [0.0])

    rows = dataset(suite="crm").to_list()
    assert TASK in [r["task"] for r in rows] and rows[0]["prompt"][-1] == {"role": "user", "content": ""}
    factory = pickle.loads(pickle.dumps(OfficeWorld.factory("http://127.0.0.1:1", "t")))
    assert factory.func is OfficeWorld and pickle.loads(pickle.dumps(Criterion("count"))).__name__ == "criterion:count"
