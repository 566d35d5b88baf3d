"""A family of tasks: one kind of work, written over any world by a function of (draft, rng)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Literal

if TYPE_CHECKING:
    from scenarios.draft import Draft

Split = Literal["train", "validation", "test"]


class Skip(Exception):
    """This family cannot place its data on this world (the reason says what is missing)."""


@dataclass(frozen=True)
class Family:
    """``write(draft)`` sets the scene, prompt, bindings, criteria and oracle of one task; ``draft.rng`` is
    seeded by (seed, family, world, number), so the same plan writes the same tasks."""

    id: str
    skill: str                      # one line: the skill the family tests
    apps: tuple[str, ...]
    split: Split
    write: Callable[["Draft"], None]
    tags: tuple[str, ...] = ()
