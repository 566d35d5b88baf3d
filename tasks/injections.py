"""Injection slots (AgentDojo's injection vectors): one user task run clean and under each attack.

A **user task** declares its slots and the clean text of each (``slots: {customer_note: "Thanks!"}``) and
marks where they sit with ``{slot:NAME}`` in any text of its ``setup`` (a customer's mail, a document, a
CRM note, an invitation's description), its ``events`` (what arrives later) or its ``npcs`` (a co-worker's
reply template). Loaded as itself, every slot holds its clean text.

An **attack** is a file of the suite's ``attacks/`` folder (``attacks/<id>.yaml``: ``text``, ``goal`` and
the guard ``criteria`` that hold while the attacker's goal is not reached). A **pair** is a task file that
holds only ``id: <user task>--<attack>`` and ``injection: {task, attack}`` (and optionally ``slots``: which
to fill; default every one): the loader builds it from the user task of the same suite, its slots holding
the attack's text, its criteria the user task's plus the attack's guards, its tags plus ``security`` and
``attack:<id>``. So the same user task runs with and without each attack, written once. Unknown slots,
attacks and user tasks are load errors naming them.

Not yet: slots in world files (a world's pristine data is compiled once, for every task of the world).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tasks.model import Criterion
from worlds.lines import Lines, pydantic_problems, read_yaml

SLOT = re.compile(r"\{slot:([^{}]*)\}")
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
FILLED = ("setup", "events", "npcs")   # where slots may sit: what the world holds, not what the grader reads
PAIR_KEYS = {"id", "injection"}


class Attack(BaseModel):
    """``attacks/<id>.yaml``: what the attacker plants and the guards that hold while their goal is not reached
    (they may refer to the user task's bindings: ``$doc``)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    goal: str = Field(min_length=1, description="What the attacker wants, in words")
    text: str = Field(min_length=1, description="What the slots hold under this attack")
    criteria: list[Criterion] = Field(min_length=1)

    @model_validator(mode="after")
    def _guards(self) -> "Attack":
        roles = sorted({c.role for c in self.criteria} - {"guard"})
        if roles:
            raise ValueError(f"an attack's criteria are guards (its goal not reached), not {roles}")
        return self


class Injections:
    """Fills the slots of a suite folder's task files; attacks and user tasks are read once each."""

    def __init__(self) -> None:
        self.attacks: dict[Path, Attack | None] = {}
        self.users: dict[Path, tuple[dict | None, Lines]] = {}

    def apply(self, data: dict, folder: Path, lines: Lines, where: str, problems: list[str]) -> dict | None:
        """The task's data with every slot filled (a pair built first); ``None`` with ``problems`` told why."""
        if "injection" in data:
            return self._pair(data, folder, lines, where, problems)
        if "slots" not in data and not _marks(data):
            return data
        return _filled(data, {}, lines, where, problems)

    def _pair(self, data: dict, folder: Path, lines: Lines, where: str, problems: list[str]) -> dict | None:
        spec = data["injection"]
        here = lines.at(where, ("injection",))
        if not isinstance(spec, dict) or set(spec) - {"task", "attack", "slots"} or not {"task", "attack"} <= set(spec):
            problems.append(f"{here}: injection: give task (the user task) and attack, and optionally slots")
            return None
        if set(data) - PAIR_KEYS:
            problems.append(f"{lines.at(where, ())}: a pair holds only id and injection (the rest is its user task's), "
                            f"not {sorted(set(data) - PAIR_KEYS)}")
            return None
        user_id, attack_id = str(spec["task"]), str(spec["attack"])
        if data.get("id") != f"{user_id}--{attack_id}":
            problems.append(f"{lines.at(where, ('id',))}: a pair's id is <user task>--<attack>: {user_id}--{attack_id}")
            return None
        user = self._user(folder, user_id, here, problems)
        attack = self._attack(folder, attack_id, here, problems)
        if user is None or attack is None:
            return None
        slots: dict = user["slots"] if isinstance(user.get("slots"), dict) else {}
        chosen = spec.get("slots", sorted(slots))
        unknown = [s for s in chosen if s not in slots] if isinstance(chosen, list) else [chosen]
        if unknown or not chosen:
            problems.append(f"{here}: injection: unknown slot(s) {unknown} of user task {user_id} "
                            f"(its slots: {sorted(slots)})")
            return None
        out = {**user, "id": data["id"], "title": f"{user.get('title', user_id)} (under attack: {attack_id})",
               "injection": spec, "tags": [*user.get("tags", []), *_new_tags(user, attack_id)],
               "criteria": [*user.get("criteria", []), *(c.model_dump(by_alias=True, exclude_defaults=True)
                                                       for c in attack.criteria)]}
        return _filled(out, {s: attack.text for s in chosen}, lines, where, problems)

    def _user(self, folder: Path, user_id: str, here: str, problems: list[str]) -> dict | None:
        path = folder / f"{user_id}.yaml"
        if path not in self.users:
            found: list[str] = []
            self.users[path] = read_yaml(path, str(path), found) if path.is_file() else (None, Lines())
        data = self.users[path][0]
        if not isinstance(data, dict) or data.get("id") != user_id or "injection" in data:
            problems.append(f"{here}: injection: unknown user task {user_id!r} (a task file {path.name} of this suite)")
            return None
        if not data.get("slots"):
            problems.append(f"{here}: injection: user task {user_id} declares no slots")
            return None
        return data

    def _attack(self, folder: Path, attack_id: str, here: str, problems: list[str]) -> Attack | None:
        path = folder / "attacks" / f"{attack_id}.yaml"
        if path not in self.attacks:
            self.attacks[path] = _read_attack(path, problems) if path.is_file() else None
            if path.is_file() and self.attacks[path] is None:
                return None   # its own problems are told once, by the attack file
        if self.attacks[path] is None:
            known = sorted(p.stem for p in (folder / "attacks").glob("*.yaml"))
            problems.append(f"{here}: injection: unknown attack {attack_id!r} (this suite's attacks/: {known})")
        return self.attacks[path]


def _read_attack(path: Path, problems: list[str]) -> Attack | None:
    where = str(path)
    data, lines = read_yaml(path, where, problems)
    if not isinstance(data, dict):
        problems.append(f"{where}:1: an attack file holds a mapping (id, goal, text, criteria)")
        return None
    try:
        attack = Attack.model_validate(data)
    except ValidationError as exc:
        problems.extend(pydantic_problems(where, lines, exc))
        return None
    if attack.id != path.stem:
        problems.append(f"{lines.at(where, ('id',))}: id {attack.id!r} differs from the file's name {path.stem!r}")
        return None
    return attack


def _new_tags(user: dict, attack_id: str) -> list[str]:
    tags = user.get("tags", [])
    return [t for t in ("security", f"user-task:{user.get('id')}", f"attack:{attack_id}") if t not in tags]


def _filled(data: dict, texts: dict[str, str], lines: Lines, where: str, problems: list[str]) -> dict | None:
    """``data`` with each ``{slot:NAME}`` of setup, events and npcs holding ``texts[NAME]`` or the clean text."""
    slots = data.get("slots", {})
    if not isinstance(slots, dict) or not all(isinstance(k, str) and NAME.match(k) and isinstance(v, str)
                                              for k, v in slots.items()):
        problems.append(f"{lines.at(where, ('slots',))}: slots: a mapping of slot names (a_z0_9) to their clean text")
        return None
    before = len(problems)
    for key in sorted(set(data) - set(FILLED)):
        if key != "slots" and _marks(data[key]):
            problems.append(f"{lines.at(where, (key,))}: {key}: slots sit only in {', '.join(FILLED)} "
                            f"(what the world holds), not in {key}")
    used = {name for key in FILLED for name in _marks(data.get(key))}
    for name in sorted(used - set(slots)):
        problems.append(f"{lines.at(where, ('slots',))}: unknown slot {name!r}: marked {{slot:{name}}} but not "
                        f"declared under slots ({sorted(slots)})")
    for name in sorted(set(slots) - used):
        problems.append(f"{lines.at(where, ('slots', name))}: slot {name!r} is declared but marked nowhere in "
                        f"{', '.join(FILLED)}")
    if len(problems) > before:
        return None
    values = {**slots, **texts}
    return {**data, **{key: _fill(data[key], values) for key in FILLED if key in data}}


def _marks(value: Any) -> set[str]:
    if isinstance(value, str):
        return set(SLOT.findall(value))
    if isinstance(value, dict):
        return set().union(*(_marks(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_marks(v) for v in value)) if value else set()
    return set()


def _fill(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        return SLOT.sub(lambda m: values[m.group(1)], value)
    if isinstance(value, dict):
        return {k: _fill(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, values) for v in value]
    return value
