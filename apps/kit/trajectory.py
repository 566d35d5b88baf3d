"""Steps: the record of every operation called in an episode, from any surface."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel

from worlds.model import Strict

Surface = Literal["rest", "mcp", "cli", "gui", "python", "replay", "setup", "control", "peer"]


class Step(Strict):
    """One call of one operation: what was asked, what came back, and whether state changed."""

    index: int
    surface: Surface
    app: str
    operation: str
    actor: str | None = None  # who acted, when not the episode's acting person (setup steps, calls "as" someone)
    arguments: dict[str, Any]
    result: Any = None
    error: dict[str, Any] | None = None
    mutates: bool
    state_changed: bool
    virtual_time: datetime
    wall_time: datetime
    duration_ms: float
    requested_by: int | None = None  # for a "peer" step: the index of the step whose operation asked for it

    @property
    def tool(self) -> str:
        return f"{self.app}_{self.operation}"

    @classmethod
    def built(cls, **fields: Any) -> "Step":
        """A step from values the invoker has already checked, every field given: what ``model_construct``
        makes (the same ``__dict__`` and fields set, ``tests/apps/kit/test_step_record.py``) at a seventh
        of its cost, which was a fifth of a whole in-process call."""
        if fields.keys() != _STEP_FIELDS:
            return cls.model_construct(**fields)
        return cls.complete(fields)

    @classmethod
    def complete(cls, fields: dict[str, Any]) -> "Step":
        """``built`` for a dict the caller has just written with every field, in order (the invoker's):
        taken as the step's own ``__dict__``, without unpacking it or comparing its keys."""
        step = cls.__new__(cls)
        object.__setattr__(step, "__dict__", fields)
        object.__setattr__(step, "__pydantic_fields_set__", set(fields))
        object.__setattr__(step, "__pydantic_extra__", None)
        object.__setattr__(step, "__pydantic_private__", None)
        return step


_STEP_FIELDS = Step.model_fields.keys()


class BrowserAction(Strict):
    """One action of a browser agent on the GUI, with the indices of the Steps it caused."""

    index: int
    action: str
    arguments: dict[str, Any]
    url: str
    error: str | None = None
    steps: list[int]
    wall_time: datetime
    duration_ms: float


class Trajectory(BaseModel):
    """An episode's steps with what they happened in: what the control API serves and finished episodes leave."""

    episode: str
    world: str
    actor: str
    steps: list[Step]
    browser_actions: list[BrowserAction] = []

    @classmethod
    def of(cls, episode) -> "Trajectory":
        return cls(episode=episode.id, world=episode.world.name, actor=episode.actor, steps=list(episode.trajectory),
                   browser_actions=list(getattr(episode, "browser_actions", [])))
