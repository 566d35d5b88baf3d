"""The app-service protocol, defined once: the admin API between the gateway's ``RemoteHost``
(``apps/kit/remote.py``, the client) and an app service (``simulator/service/app_service.py``).

    PUT    EPISODE  (OpenEpisode)               open from the world's pristine copy, or fork another
    PUT    IMAGE?world=  (database bytes)       open (or restore) from an image
    GET    EPISODE                              the episode's state exists here (EpisodeHere)
    GET    DIGEST                               digest of its state (Digest)
    GET    IMAGE                                its database bytes (IMAGE_TYPE)
    DELETE EPISODE                              drop it
    POST   CALL  (CallRequest)                  run an operation (already validated by the gateway) -> CallResult
    GET    HEALTH                               liveness (Health)

Errors answer the kit's ``{"error": {type, message, field}}``. Here, and not in the simulator, because
the kit's client must not import the simulator; both sides import these models and paths.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from worlds.model import Strict

EPISODE = "/admin/episodes/{episode_id}"
IMAGE = EPISODE + "/image"
DIGEST = EPISODE + "/digest"
CALL = EPISODE + "/call/{operation}"
HEALTH = "/health"
IMAGE_TYPE = "application/vnd.sqlite3"


class OpenEpisode(Strict):
    """Open an episode of ``world`` from its pristine image, or as a fork of episode ``fork_from``."""

    world: str
    fork_from: str | None = None


class CallRequest(Strict):
    """One operation's call: its arguments as JSON (the service validates them again to get their
    Python types back), who acts and the episode's virtual time."""

    arguments: dict[str, Any]
    actor: str
    now: datetime


class CallResult(BaseModel):
    """What the call did: its result or its error (the kit's error dict), whether state changed and
    the requests it made of other apps (``apps.kit.peers``), which the gateway runs."""
    result: Any = None
    error: dict | None = None
    state_changed: bool
    requests: list[dict] = []


class EpisodeHere(BaseModel):
    id: str
    app: str


class Digest(BaseModel):
    digest: str


class Health(BaseModel):
    status: str
    app: str
    episodes: int
