"""``Draft``: one task being written by a family, as plain data in the task format (``tasks/model.py``).

The family calls ``setup`` to place the scene, ``bind`` to name records of the state after it, ``check`` for
criteria, ``do`` for the oracle's calls, and sets ``prompt``. ``build`` returns the task as a dict that
``tasks.loader`` validates like a file. Values may refer to bindings and saved setup results
(``$deal.id``, ``"${deal.name}"``), exactly as in task files.
"""

from __future__ import annotations

import random
from datetime import date, datetime
from typing import Any, Callable

from faker import Faker

from scenarios.family import Family, Skip
from scenarios.view import WorldView

_FAKE = Faker("en_US")


class Draft:
    def __init__(self, family: Family, view: WorldView, number: int, seed: int):
        self.family, self.view, self.number = family, view, number
        self.rng = random.Random(f"{seed}:{family.id}:{view.name}:{number}")
        _FAKE.seed_instance(self.rng.getrandbits(32))
        self.fake = _FAKE
        self.id = f"{family.id}-{view.name}-{number:04d}"
        self.actor: str = view.info.default_actor
        self.title = ""
        self.prompt = ""
        self.outcome = "act"
        self.start: datetime | None = None
        self.distractors = 0
        self.tags: list[str] = list(family.tags)
        self._setup: list[dict] = []
        self._bindings: dict[str, dict] = {}
        self._criteria: list[dict] = []
        self._oracle: list[dict] = []
        self._alternatives: list[list[dict]] = []
        self._allow: list[dict] = []
        self._ignore: list[str] = []
        self._names: set[str] = set()
        self._npcs: list[dict] = []

    # The scene.
    def setup(self, op: str, *, by: str | None = None, save: str | None = None, **args: Any) -> str | None:
        """A setup call (as ``by``, default the acting person); ``save`` keeps its result as ``$save``."""
        call: dict[str, Any] = {"op": op, "args": _args(args)}
        if by is not None and by != self.actor:
            call["as"] = by
        if save:
            call["save"] = save
        self._setup.append(call)
        return f"${save}" if save else None

    def npc(self, email: str, **rules: Any) -> None:
        """A co-worker who answers by rule in this task (``scenarios.people.model.Npc``: ``mail=``, ``invitations=``)."""
        self._npcs.append({"email": email, **_plain(rules)})

    def fresh(self, make: Callable[[], str], tries: int = 50) -> str:
        """A name from ``make`` that the world and this draft do not use yet."""
        for _ in range(tries):
            name = make()
            if name.lower() not in self.view.known_names and name.lower() not in self._names:
                self._names.add(name.lower())
                return name
        raise Skip(f"no fresh name after {tries} tries")

    # What the grader knows.
    def bind(self, name: str, kind: str, *, many: bool = False, first: bool = False, order_by: str | None = None,
             field: str | None = None, **where: Any) -> str:
        spec: dict[str, Any] = {"from": kind, "where": _plain(where)}
        for key, value in (("many", many), ("first", first), ("order_by", order_by), ("field", field)):
            if value:
                spec[key] = value
        self._bindings[name] = spec
        return f"${name}"

    def value(self, name: str, value: Any) -> str:
        self._bindings[name] = {"value": _plain(value)}
        return f"${name}"

    def check(self, id: str, *, role: str = "goal", weight: float = 1.0, description: str = "", **kind: Any) -> None:
        """A criterion: exactly one of records=, answer=, trajectory=, judge= (as in task files)."""
        criterion: dict[str, Any] = {"id": id, "role": role, **_plain(kind)}
        if weight != 1.0:
            criterion["weight"] = weight
        if description:
            criterion["description"] = description
        self._criteria.append(criterion)

    def answer(self, type: str, expect: Any, id: str = "answer", **more: Any) -> None:
        """The outcome is an answer of ``type`` (number, money, date, entity, list, yesno, text...)."""
        self.outcome = "answer"
        self.check(id, answer={"type": type, "expect": expect, **more})

    # The oracle.
    def do(self, op: str, **args: Any) -> None:
        self._oracle.append({"op": op, "args": _args(args)})

    def alternative(self, calls: list[tuple[str, dict]]) -> None:
        self._alternatives.append([{"op": op, "args": _args(args)} for op, args in calls])

    def allow(self, table: str, change: str, fields: list[str] | None = None) -> None:
        self._allow.append({"table": table, "change": change, **({"fields": fields} if fields else {})})

    def ignore(self, *fields: str) -> None:
        self._ignore.extend(fields)

    def build(self) -> dict[str, Any]:
        if not self.prompt or not self._oracle or not self._criteria:
            raise ValueError(f"{self.id}: a draft needs a prompt, an oracle and criteria")
        task: dict[str, Any] = {
            "id": self.id, "title": self.title or self.family.skill, "world": self.view.name, "as": self.actor,
            "setup": self._setup, "prompt": self.prompt.strip(), "outcome": self.outcome,
            "bindings": self._bindings, "criteria": self._criteria, "oracle": self._oracle,
            "tags": sorted(set(self.tags) | set(self.family.apps)), "family": self.family.id,
            "split": self.family.split, "figures": {"distractors": self.distractors, "setup_calls": len(self._setup)},
        }
        if self.start is not None:
            task["clock"] = {"start": self.start.isoformat()}
        for key, value in (("alternatives", self._alternatives), ("allow", self._allow), ("ignore", self._ignore),
                           ("npcs", self._npcs)):
            if value:
                task[key] = value
        return task


def _args(args: dict[str, Any]) -> dict[str, Any]:
    """An operation's arguments: those left as None are not sent."""
    return {k: _plain(v) for k, v in args.items() if v is not None}


def _plain(value: Any) -> Any:
    """Values as a task file holds them: dates and times as ISO text, tuples as lists."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
