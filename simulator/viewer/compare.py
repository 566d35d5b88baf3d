"""Rollouts of one task side by side: grouped by task, passes first, and the first step where they part."""

from __future__ import annotations

import json
from dataclasses import dataclass

from apps.kit.trajectory import Step
from simulator.trajectories.files import TrajectoryFile

MAX_COLUMNS = 8


@dataclass
class Comparison:
    key: str                        # the task id, or "world <name>" for episodes without a task
    files: list[TrajectoryFile]     # passes first, then fails, then unfinished
    rows: list[list[Step | None]]   # per position of the agent's steps, each rollout's step there
    diverges_at: int | None         # the first position where the rollouts did not all do the same; None: never

    @property
    def shown(self) -> list[TrajectoryFile]:
        return self.files[:MAX_COLUMNS]


def acting(file: TrajectoryFile) -> list[Step]:
    """The steps a rollout chose: not the task's setup, not what apps or the world did in answer."""
    return [s for s in file.steps if s.surface not in ("setup", "peer", "npc", "event")]


def signature(step: Step) -> str:
    """What makes two steps the same choice: the operation and its arguments."""
    return f"{step.app}.{step.operation} " + json.dumps(step.arguments, sort_keys=True, default=str)


def _order(file: TrajectoryFile) -> tuple:
    footer = file.footer
    passed = bool(footer and footer.passed)
    graded = bool(footer and footer.total is not None)
    return (not passed, not graded, -(footer.total or 0.0) if footer else 0.0, file.header.episode)


def compare(files: list[TrajectoryFile]) -> list[Comparison]:
    """One comparison per task (or world, without a task), in the order of their keys."""
    groups: dict[str, list[TrajectoryFile]] = {}
    for f in files:
        key = f.header.task.id if f.header.task else f"world {f.header.world}"
        groups.setdefault(key, []).append(f)
    return [_compare(key, sorted(group, key=_order)) for key, group in sorted(groups.items())]


def _compare(key: str, files: list[TrajectoryFile]) -> Comparison:
    columns = [acting(f) for f in files[:MAX_COLUMNS]]
    length = max((len(c) for c in columns), default=0)
    rows = [[c[i] if i < len(c) else None for c in columns] for i in range(length)]
    diverges_at = None
    if len(columns) > 1:
        diverges_at = next((i for i, row in enumerate(rows)
                            if len({signature(s) if s else "" for s in row}) > 1), None)
    return Comparison(key, files, rows, diverges_at)
