"""What scripted agents may point at: the records of the initial state an argument names, and people.

An operation's argument names its target by convention (``opportunity_id`` a CRM opportunity,
``message_ids`` mail entries of the acting person, ``file_id`` a docs item, ``email`` a person).
``Targets`` reads those from a task's initial state so that mutants, hacks and the random agent
call operations with valid ids, and can pick "another record of the same kind".
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from tasks.records import State, UnknownKind

# argument name -> (record kind, id field, only the acting person's records)
ID_ARGS: dict[str, tuple[str, str, bool]] = {
    "message_id": ("mail.message", "id", True), "message_ids": ("mail.message", "id", True),
    "reply_to_message_id": ("mail.message", "id", True), "thread_id": ("mail.message", "thread_id", True),
    "draft_id": ("mail.draft", "id", True),
    "account_id": ("crm.account", "id", False), "parent_id": ("crm.account", "id", False),
    "contact_id": ("crm.contact", "id", False), "reports_to_id": ("crm.contact", "id", False),
    "lead_id": ("crm.lead", "id", False), "opportunity_id": ("crm.opportunity", "id", False),
    "case_id": ("crm.case", "id", False), "task_id": ("crm.task", "id", False),
    "file_id": ("docs.item", "id", False), "folder_id": ("docs.item", "id", False),
    "drive_id": ("docs.drive", "id", False), "comment_id": ("docs.comment", "id", False),
    "label": ("mail.label", "name", True),
}
PERSON_ARGS = {"to", "cc", "bcc", "email", "new_owner", "owner"}
ROLE_ARGS = {"role"}
# record kind -> (update operation, its id argument): how a hack edits the record a binding reads
EDITS = {"crm.opportunity": ("crm.update_opportunity", "opportunity_id"),
         "crm.account": ("crm.update_account", "account_id"), "crm.contact": ("crm.update_contact", "contact_id"),
         "crm.lead": ("crm.update_lead", "lead_id"), "crm.case": ("crm.update_case", "case_id"),
         "crm.task": ("crm.update_task", "task_id")}


@dataclass
class Targets:
    state: State
    actor: str
    people: list[str]
    colleagues: list[str] = field(default_factory=list)
    _ids: dict[str, list] = field(default_factory=dict)

    def ids(self, arg: str, related_object: str | None = None) -> list:
        """Every valid value of an id argument in the initial state (sorted, deduplicated)."""
        if arg == "related_id" and related_object:
            kind, key, own = f"crm.{related_object.lower()}", "id", False
        elif arg in ID_ARGS:
            kind, key, own = ID_ARGS[arg]
        else:
            return []
        cache = f"{kind}:{key}:{own}:{arg}"
        if cache not in self._ids:
            rows = self.records(kind)
            if own:
                rows = [r for r in rows if r.get("owner") == self.actor]
            if arg == "folder_id":
                rows = [r for r in rows if r.get("kind") == "folder"]
            elif arg == "file_id":
                rows = [r for r in rows if r.get("kind") != "folder"] or rows
            self._ids[cache] = sorted({r[key] for r in rows if r.get(key) is not None}, key=_order)
        return self._ids[cache]

    def records(self, kind: str) -> list[dict]:
        try:
            return self.state.records(kind)
        except UnknownKind:
            return []

    def others(self, arg: str, value: Any, n: int = 1, related_object: str | None = None) -> list:
        """Up to ``n`` other values of the same kind, nearest first (neighbours look most alike)."""
        ids = self.ids(arg, related_object)
        if value not in ids:
            return [i for i in ids if i != value][:n]
        at = ids.index(value)
        near = sorted((i for i in ids if i != value), key=lambda i: abs(ids.index(i) - at))
        return near[:n]

    def other_people(self, exclude: set[str], n: int = 1) -> list[str]:
        pool = self.colleagues or self.people
        return [p for p in pool if p not in exclude and p != self.actor][:n]

    def pick(self, rng: random.Random, arg: str, related_object: str | None = None) -> Any:
        ids = self.ids(arg, related_object)
        return rng.choice(ids) if ids else None


def people_of(world_info) -> tuple[list[str], list[str]]:
    """(everyone the world knows, the company's own people)."""
    colleagues = [p.email.lower() for p in world_info.people]
    return colleagues + [o.email.lower() for o in getattr(world_info, "outsiders", []) or []], colleagues


def target_args(args: dict) -> dict[str, Any]:
    """The arguments of a call that name records (ids), with their values."""
    return {k: v for k, v in args.items() if k in ID_ARGS or k == "related_id"}


def _order(value):
    return (0, value, "") if isinstance(value, (int, float)) else (1, 0, str(value))
