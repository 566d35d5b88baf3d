"""Steps: the record of every operation called in an episode, from any surface."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Surface = Literal["rest", "mcp", "cli", "gui", "python", "replay", "setup", "control"]


class Step(BaseModel):
    """One call of one operation: what was asked, what came back, and whether state changed."""

    model_config = ConfigDict(extra="forbid")

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

    @property
    def tool(self) -> str:
        return f"{self.app}_{self.operation}"


class Trajectory(BaseModel):
    """An episode's steps with what they happened in: what the control API serves and finished episodes leave."""

    episode: str
    world: str
    actor: str
    steps: list[Step]

    @classmethod
    def of(cls, episode) -> "Trajectory":
        return cls(episode=episode.id, world=episode.world.name, actor=episode.actor, steps=list(episode.trajectory))
