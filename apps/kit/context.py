"""What an operation receives besides its arguments."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session

from apps.kit.peers import Peers


@dataclass
class Ctx:
    """The injected first argument of every operation; never part of any schema.

    ``session`` is the episode's database for this app; ``actor`` is the acting person's address;
    ``now`` is the episode's virtual time (aware, UTC); ``world`` is the world's ``WorldInfo``;
    ``peers`` takes requests for other apps' operations, run after this call commits (``apps.kit.peers``).
    """

    session: Session
    actor: str
    now: datetime
    world: object
    episode_id: str
    peers: Peers = field(default_factory=Peers)
