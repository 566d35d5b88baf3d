"""The generated corpus as tasks: every family of ``scenarios.registry`` over the worlds of a plan, validated
like task files, measured, and cached on disk by (scenario code, world content, plan).

A task's ``source`` names its family, world, number and seed (what ``file:line`` is for a written task), so
every problem is reported there. ``figures`` are measured from the task itself (oracle calls, writes, reads,
apps, setup calls, distractors) and ``difficulty`` follows from them, never a label.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Literal

from pydantic import ValidationError

from scenarios.corpus import PLAN, Plan, write
from scenarios.registry import FAMILIES
from scenarios.view import WorldView
from tasks.loader import semantic_problems
from tasks.model import Task
from worlds.digest import content_hash
from worlds.lines import Lines
from worlds.loader import WorldError, find_world, load_world
from worlds.sections import Sections

_CODE = Path(__file__).resolve().parents[1] / "scenarios"


@dataclass
class Corpus:
    tasks: list[Task] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def build(sections: Sections, operations: dict, plan: Plan = PLAN, cache: Path | None = None,
          worlds: Iterable[str] | None = None, progress=None) -> Corpus:
    """The corpus of ``plan`` (only ``worlds`` of it, if given); each world's tasks come from the cache when
    neither the scenarios' code nor the world changed."""
    out = Corpus()
    wanted = set(worlds) if worlds is not None else None
    for name, count in plan.worlds:
        if wanted is not None and name not in wanted:
            continue
        try:
            root = find_world(name, sections)
        except WorldError as exc:
            out.skipped.append(f"world {name}: {exc}")
            continue
        written = _written(root, name, count, plan.seed, sections, cache)
        out.skipped.extend(written["skipped"])
        out.problems.extend(written["problems"])
        for data in written["tasks"]:
            task = _task(data, operations, out.problems)
            if task is not None:
                out.tasks.append(task)
        if progress is not None:
            progress(name, len(written["tasks"]))
    return out


def _written(root: Path, name: str, count: int, seed: int, sections: Sections, cache: Path | None) -> dict:
    key = hashlib.sha256(f"{code_digest()}:{content_hash(root)}:{name}:{count}:{seed}".encode()).hexdigest()[:24]
    path = cache / "corpus" / f"{name}-{key}.json" if cache is not None else None
    if path is not None and path.is_file():
        return json.loads(path.read_bytes())
    view = WorldView(load_world(root, sections))
    made = write(view, FAMILIES, count, seed)
    data = {"tasks": made.tasks, "skipped": made.skipped, "problems": made.problems}
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(data))
        partial.replace(path)   # atomic: another process writing the same key writes the same bytes
    return data


def code_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(_CODE.rglob("*.py")):
        digest.update(path.relative_to(_CODE).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _task(data: dict, operations: dict, problems: list[str]) -> Task | None:
    where = data.get("id", "?")
    source = f"family {data.get('family')} on {data.get('world')} ({where})"
    try:
        task = Task.model_validate({**data, "suite": data.get("family", ""), "source": source})
    except ValidationError as exc:
        problems.extend(f"{source}: {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return None
    found = semantic_problems(task, data, Lines(), source, set(operations))
    if found:
        problems.extend(found)
        return None
    task.figures = {**task.figures, **measure(task, operations)}
    task.difficulty = difficulty(task.figures)
    return task


def measure(task: Task, operations: dict) -> dict[str, int]:
    writes = sum(1 for c in task.oracle if operations[c.op].mutates and c.app != "task")
    return {"oracle_calls": len(task.oracle), "writes": writes, "reads": len(task.oracle) - writes,
            "apps": len(task.apps)}


def difficulty(figures: dict[str, int]) -> Literal["easy", "medium", "hard"]:
    """hard: 15 or more calls, or 8 or more over two or more apps with a distractor; easy: under 5 calls over one
    app with no distractor; medium otherwise."""
    calls, apps, traps = figures.get("oracle_calls", 0), figures.get("apps", 0), figures.get("distractors", 0)
    if calls >= 15 or (calls >= 8 and apps >= 2 and traps):
        return "hard"
    if calls < 5 and apps <= 1 and not traps:
        return "easy"
    return "medium"
