"""Proof that the rewards teach: group-relative policy gradient (as in GRPO) from the world's rewards alone.

Each round runs K rollouts of every task with ``ToolPolicy`` over the control API, takes each
rollout's reward from ``finish`` (the task's verifiers; nothing else scores), turns the rewards of a
task's K rollouts into advantages relative to their group (reward minus the group's mean, over its
standard deviation), and takes one policy-gradient step. A round's row is its mean reward and pass@1
over the rollouts it sampled. ``examples/learn_from_rewards.py`` is the command line.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from statistics import mean, pstdev

from apps.kit.reactor import goes_on
from simulator.gateway.client import Client
from trainers.tool_policy import SUBMIT, Observation, ToolPolicy

TASKS = ["docs-star-pricing-policy", "docs-trash-old-expense-report", "mail-star-release-notes",
         "emailqa-acme-sender-ben-carter-discount-approval-cyberdyne-17-109-56"]


@contextmanager
def world_server(out: Path, url: str | None = None, token: str | None = None):
    """(base URL, token): ``url``'s, or a server in this process writing trajectory files to OUT/trajectories."""
    from simulator.runner.cli import _server

    with _server(url, token, out, None) as (base, secret, _):
        yield base, secret


def rollout(ow: Client, policy: ToolPolicy, task: str, meta: dict) -> tuple[float, bool, list]:
    """One episode played by the policy; the reward and pass from ``finish``, and the choices made."""
    apps = ow.task(task)["apps"]
    episode = ow.create_episode(task, meta=meta)
    tools = {t["function"]["name"]: t["function"] for t in episode["tools"]["openai"]}
    obs = Observation(task, episode["task"]["prompt"], tools, apps)
    made: list = []
    try:
        while obs.steps < policy.max_steps:
            name, args, choices = policy.act(obs)
            made += choices
            step = ow.call(episode["id"], name, args)
            obs.last = step["result"] if step["error"] is None else {"error": step["error"]}
            obs.previous, obs.steps = name, obs.steps + 1
            if name == SUBMIT and step["error"] is None and not goes_on(step["result"]):
                break
        reward = ow.finish(episode["id"])
    finally:
        ow.delete(episode["id"])
    return reward["total"] or 0.0, bool(reward["passed"]), made


def advantages(rewards: list[float]) -> list[float]:
    """Group-relative: (r - mean) / std over one task's K rollouts; all equal teaches nothing (zeros)."""
    spread = pstdev(rewards)
    return [(r - mean(rewards)) / spread if spread > 1e-9 else 0.0 for r in rewards]


def train(ow: Client, tasks: list[str], rounds: int, k: int, seed: int = 0, lr: float = 0.5,
          run: str = "learn", log=None) -> list[dict]:
    """``rounds`` rounds of K rollouts per task, one update each; a row per round (before its update)."""
    policy, rows = ToolPolicy(seed=seed), []
    for number in range(rounds):
        trajectories, advs, per_task = [], [], {}
        for task in tasks:
            group = [rollout(ow, policy, task, {"run": run, "round": number, "task": task, "sample": s})
                     for s in range(k)]
            rewards = [r for r, _, _ in group]
            per_task[task] = {"reward_mean": round(mean(rewards), 4),
                              "pass@1": round(sum(p for _, p, _ in group) / k, 4)}
            trajectories += [made for _, _, made in group]
            advs += advantages(rewards)
        policy.update(trajectories, advs, lr, k)
        rows.append({"round": number, "reward_mean": round(mean(t["reward_mean"] for t in per_task.values()), 4),
                     "pass@1": round(mean(t["pass@1"] for t in per_task.values()), 4), "tasks": per_task})
        if log:
            log(rows[-1])
    return rows


def evaluate_endpoint(base: str, token: str, url: str, tasks: list[str], rounds: int, k: int, out: Path,
                      model_name: str = "default", log=None) -> list[dict]:
    """The same rounds through an OpenAI-compatible endpoint (trained elsewhere, or not): K rollouts per
    task per round with the agent runner; a row per round."""
    import asyncio

    from simulator.gateway.client import AsyncClient
    from simulator.runner.model import Model
    from simulator.runner.run import RunSettings, report, run_rollouts

    rows, model = [], Model(url=url, name=model_name, temperature=1.0)
    for number in range(rounds):
        settings = RunSettings(name=f"{out.name}-round{number}", k=k, concurrency=4, max_turns=12)

        async def one_round():
            async with AsyncClient(base, token) as ow:
                return await run_rollouts(ow, model, tasks, settings, out / f"round{number}", None)
        result = report(asyncio.run(one_round()), settings, {})
        rows.append({"round": number, "reward_mean": result["suite"]["reward_mean"], "pass@1": result["suite"]["pass@1"],
                     "tasks": {t: {"reward_mean": m["reward_mean"], "pass@1": m["pass@1"]} for t, m in result["tasks"].items()}})
        if log:
            log(rows[-1])
    return rows


def plot(rows: list[dict], path: Path, title: str, x: str = "round") -> None:
    """Mean reward and pass@1 per round (or step) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=110)
    xs = [r[x] for r in rows]
    ax.plot(xs, [r["reward_mean"] for r in rows], marker="o", label="mean reward")
    ax.plot(xs, [r["pass@1"] for r in rows], marker="s", label="pass@1")
    ax.set(xlabel=x, ylabel="over the round's rollouts", ylim=(-0.02, 1.02), title=title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def save(rows: list[dict], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "curve.json").write_text(json.dumps(rows, indent=1))
