"""What an operation receives besides its arguments."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session


@dataclass
class Ctx:
    """The injected first argument of every operation; never part of any schema.

    ``session`` is the episode's database for this app; ``actor`` is the acting person's address;
    ``now`` is the episode's virtual time (aware, UTC); ``world`` is the world's ``WorldInfo``.
    ``follow_ups`` collects calls of other apps' operations that this call asks for (``then``).
    """

    session: Session
    actor: str
    now: datetime
    world: object
    episode_id: str
    follow_ups: list[dict] = field(default_factory=list)

    def then(self, app: str, operation: str, **arguments: Any) -> None:
        """Ask for ``app``'s ``operation`` to run in this episode, as the same actor, once this call has
        succeeded: how one app acts through another (docs mails a mentioned person) without importing
        it. The invoker runs it and records it as its own Step (``caused_by`` this one); arguments
        must be JSON values, since the call may cross to another app's service."""
        self.follow_ups.append({"app": app, "operation": operation, "arguments": arguments})
