"""Reading task files: every problem of every file, each named ``file:line``, in one ``TaskFileError``.

Suites are folders under ``tasks/suites/``; a suite is its folder's name, a task one YAML file in it.
Beyond the schema, a task is checked for what a schema cannot see: unknown operations, references to
bindings that are not defined (or defined later), and comparators that do not exist. Injection slots are
filled, and security pairs built from their user task and attack, before validation (``tasks.injections``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from pydantic import ValidationError

from tasks.comparators import COMPARATORS, MODIFIERS
from tasks.injections import Injections
from tasks.model import Call, Task
from tasks.refs import references
from worlds.lines import Lines, pydantic_problems, read_yaml

SUITES_DIR = Path(__file__).parent / "suites"


class TaskFileError(ValueError):
    def __init__(self, problems: list[str]):
        super().__init__(f"{len(problems)} problem(s) in task files:\n" + "\n".join(problems))
        self.problems = problems


def load_file(path: Path, suite: str, operations: Iterable[str] | None = None,
              problems: list[str] | None = None, injections: Injections | None = None) -> Task | None:
    own = problems if problems is not None else []
    where = str(path)
    data, lines = read_yaml(path, where, own)
    if data is None:
        if not own:
            own.append(f"{where}: empty task file")
        return _done(own, problems)
    if not isinstance(data, dict):
        own.append(f"{where}:1: a task file holds a mapping of fields")
        return _done(own, problems)
    data = (injections or Injections()).apply(data, path.parent, lines, where, own)   # slots filled, pairs built
    if data is None:
        return _done(own, problems)
    try:
        task = Task.model_validate({**data, "suite": suite, "source": where})
    except ValidationError as exc:
        own.extend(pydantic_problems(where, lines, exc))
        return _done(own, problems)
    before = len(own)
    own.extend(semantic_problems(task, data, lines, where, set(operations) if operations is not None else None))
    if problems is None and own:
        raise TaskFileError(own)
    return task if len(own) == before else None


def load_suites(root: Path = SUITES_DIR, operations: Iterable[str] | None = None) -> list[Task]:
    """Every task of every suite under ``root``; ``TaskFileError`` lists every problem found."""
    problems: list[str] = []
    tasks: list[Task] = []
    ops = list(operations) if operations is not None else None
    injections = Injections()
    for path in sorted(root.glob("*/*.yaml")):
        task = load_file(path, path.parent.name, ops, problems, injections)
        if task is not None:
            tasks.append(task)
    seen: dict[str, str] = {}
    for task in tasks:
        if task.id in seen:
            problems.append(f"{task.source}:1: id {task.id!r} is also used by {seen[task.id]}")
        seen.setdefault(task.id, task.source)
    if problems:
        raise TaskFileError(problems)
    return tasks


def _done(own: list[str], problems: list[str] | None) -> Task | None:
    """No task: raise the problems, or leave them in ``problems`` when the caller collects them."""
    if problems is None and own:
        raise TaskFileError(own)
    return None


def semantic_problems(task: Task, data: dict, lines: Lines, where: str, operations: set[str] | None) -> list[str]:
    found = []
    calls: list[tuple[str, int | tuple[int, int], Call]] = []
    calls += [("setup", i, c) for i, c in enumerate(task.setup)] + [("oracle", i, c) for i, c in enumerate(task.oracle)]
    calls += [("alternatives", (a, i), c) for a, alt in enumerate(task.alternatives) for i, c in enumerate(alt)]
    defined = {"actor", "now", "today"}
    for section, index, call in calls:
        path = (section, *index) if isinstance(index, tuple) else (section, index)
        if operations is not None and call.op not in operations:
            found.append(f"{lines.at(where, path + ('op',))}: {section}: unknown operation {call.op!r}")
        if section == "setup" and references(call.args) - defined:
            names = sorted(references(call.args) - defined)
            found.append(f"{lines.at(where, path)}: setup runs before bindings: it can refer only to what an earlier "
                         f"setup step saved (save: NAME), not to {names}")
        if section == "setup" and call.save:
            defined.add(call.save)
    for name, binding in task.bindings.items():
        for ref in sorted(references(binding.model_dump(by_alias=True)) - defined):
            found.append(f"{lines.at(where, ('bindings', name))}: binding {name} refers to ${ref}, not bound before it")
        defined.add(name)
    for index, criterion in enumerate(task.criteria):
        spec = data["criteria"][index] if isinstance(data.get("criteria"), list) else {}
        for ref in sorted(references(spec) - defined):
            found.append(f"{lines.at(where, ('criteria', index))}: criterion {criterion.id} refers to unbound ${ref}")
        for problem in _comparator_problems(spec):
            found.append(f"{lines.at(where, ('criteria', index))}: criterion {criterion.id}: {problem}")
    for section, index, call in calls[len(task.setup):]:
        for ref in sorted(references(call.args) - defined):
            found.append(f"{lines.at(where, (section, index) if not isinstance(index, tuple) else (section, *index))}: "
                         f"{section} refers to unbound ${ref}")
    return found


def _comparator_problems(spec: Any) -> list[str]:
    """Comparator mappings under ``where``/``expect``/``args`` that name no known comparator."""
    out = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key in ("where", "expect", "args") and isinstance(value, dict):
                for field, want in value.items():
                    if isinstance(want, dict):
                        names = [k for k in want if k not in MODIFIERS]
                        if len(names) != 1 or names[0] not in COMPARATORS:
                            out.append(f"{field}: unknown comparator {sorted(want)}")
            elif isinstance(value, (dict, list)):
                out.extend(_comparator_problems(value))
    elif isinstance(spec, list):
        for item in spec:
            out.extend(_comparator_problems(item))
    return out
