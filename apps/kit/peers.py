"""Peers: how one app's operation asks another app for something, without importing that app.

An operation calls ``ctx.peers.request("mail", "send", to=[...], subject=..., ...)``. Nothing runs
then: the request is kept with the call's outcome and, only if the call succeeds and commits, the
invoker runs each request afterwards as an ordinary call of the peer's public operation, in the same
episode, as the same actor, validated like any other call and recorded as its own Step with surface
``"peer"`` and ``requested_by`` set to the requesting step's index. So:

- the requesting app names only the peer's public operation and its documented arguments;
- a rolled-back call requests nothing; a failing peer call is recorded as that step's error and does
  not undo the request's own (already committed) change (like mail that bounces after sending);
- requests travel with the outcome from an app service too (``Outcome.requests``), so the seam works
  whether apps run in this process or as separate services;
- an app missing from the episode's apps gives a recorded ``not_found`` step, not a crash;
- replaying a trajectory must skip ``peer`` steps: re-running the requesting step requests them again.
"""

from __future__ import annotations

from typing import Any

from worlds.model import Strict

# A peer's operation may itself request others; this bounds a chain (a loop would be an app bug).
MAX_DEPTH = 3


class PeerRequest(Strict):
    """One call an operation asks the invoker to make on its behalf after it commits."""

    app: str
    operation: str
    arguments: dict[str, Any]


class Peers:
    """The requests one call has made so far (``Ctx.peers``)."""

    def __init__(self) -> None:
        self.requests: list[PeerRequest] = []

    def request(self, app: str, operation: str, **arguments: Any) -> None:
        """Ask for ``app``'s public ``operation`` with ``arguments`` (JSON values) once this call commits."""
        self.requests.append(PeerRequest(app=app, operation=operation, arguments=arguments))

    def dump(self) -> list[dict]:
        return [r.model_dump(mode="json") for r in self.requests]
