"""Agreement with people: grade several trajectories of one task, rank them by reward, and compare
with a person's ranking (Kendall's tau-b), so a team can measure how well a rubric agrees with its
reviewers.

A trajectory file is either a list of calls (``[{op: app.name, args: {...}}]``, as ``tasks grade``
takes) or a recorded trajectory (``{"steps": [...]}``, as finished episodes leave; setup steps and
steps taken as someone else are skipped). The ranking file (YAML or JSON) is a list of trajectory
names, best first, or a mapping of name to score (higher is better); a name is the file's stem.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tasks.model import Call, Task
from tasks.qa.attempt import escape
from tasks.qa.stats import kendall_tau
from tasks.session import Tasks


class AgreementError(ValueError):
    pass


def load_calls(path: Path) -> list[Call]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise AgreementError(f"{path}: {exc}") from None
    if isinstance(data, dict) and "steps" in data:
        data = [{"op": f"{s['app']}.{s['operation']}", "args": s.get("arguments", {})} for s in data["steps"]
                if s.get("surface") != "setup" and not s.get("actor")]
    if not isinstance(data, list):
        raise AgreementError(f"{path}: expected a list of calls or a trajectory with steps")
    return [Call(op=c["op"], args=escape(c.get("args", {}))) for c in data]


def load_ranking(path: Path, names: list[str]) -> dict[str, float]:
    """Name -> a person's score (higher is better)."""
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise AgreementError(f"{path}: {exc}") from None
    if isinstance(data, list):
        scores = {str(n): float(len(data) - i) for i, n in enumerate(data)}
    elif isinstance(data, dict):
        scores = {str(k): float(v) for k, v in data.items()}
    else:
        raise AgreementError(f"{path}: expected a list of names (best first) or a mapping of name to score")
    missing = sorted(set(names) - set(scores))
    if missing:
        raise AgreementError(f"{path}: the ranking leaves out {missing}")
    return scores


def agreement(engine: Tasks, task: Task, trajectories: dict[str, list[Call]], people: dict[str, float],
              release=None) -> dict:
    """Grade each trajectory on a fresh episode; Kendall's tau between rewards and the person's scores."""
    rewards = {}
    for name, calls in trajectories.items():
        run = engine.begin(task)
        try:
            engine.run_calls(run, calls)
            rewards[name] = engine.grade(run).total
        finally:
            (release or (lambda e: e.close()))(run.episode)
    names = list(trajectories)
    graded = {n: r for n, r in rewards.items() if r is not None}
    gradable = [n for n in names if n in graded]
    tau = kendall_tau([graded[n] for n in gradable], [people[n] for n in gradable]) if len(gradable) > 1 else None
    order = sorted(names, key=lambda n: -graded.get(n, -1))
    return {"task": task.id, "kendall_tau": None if tau is None else round(tau, 4),
            "ungradable": [n for n in names if rewards[n] is None],
            "trajectories": [{"name": n, "reward": rewards[n], "person_score": people[n]} for n in order]}
