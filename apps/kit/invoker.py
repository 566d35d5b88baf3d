"""The one choke point: every call from every surface runs and is recorded here."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

import anyio

from apps.kit.episode import Episode
from apps.kit.errors import OpError
from apps.kit.host import LocalHost, Outcome
from apps.kit.operation import Operation
from apps.kit.trajectory import Step, Surface


def invoke(episode: Episode, op: Operation, arguments: dict[str, Any] | None, surface: Surface,
           actor: str | None = None) -> Step:
    """Run ``op`` in ``episode`` as its acting user (or ``actor``) and append the Step to its trajectory.

    Validation, the clock and the record stay here; the app's host (local or remote) only executes.
    A tool error (``OpError``, including an unreachable app service) is recorded in the step's
    ``error`` and rolls the call back; it never ends the episode. Any other exception is a bug: it
    is recorded as ``internal`` and re-raised.
    """
    wall, started = datetime.now(timezone.utc), time.perf_counter()
    with episode.lock:
        now = episode.clock.now()
        outcome, failure = Outcome(), None
        try:
            kwargs = op.validate(arguments)
            outcome = episode.host(op.app).call(episode.id, op, kwargs, actor or episode.actor, now)
        except OpError as exc:
            outcome = Outcome(error=exc.to_dict())
        except Exception as exc:  # recorded, then re-raised: the step log must show the crash too
            outcome, failure = Outcome(error={"type": "internal", "message": f"{type(exc).__name__}: {exc}"}), exc
        # Every field is built here from checked values: constructing skips re-validating them.
        step = Step.model_construct(
            index=len(episode.trajectory), surface=surface, app=op.app, operation=op.name, actor=actor,
            arguments=arguments if isinstance(arguments, dict) else {}, result=outcome.result,
            error=outcome.error, mutates=op.mutates, state_changed=outcome.error is None and outcome.state_changed,
            virtual_time=now, wall_time=wall, duration_ms=round((time.perf_counter() - started) * 1000, 3),
        )
        episode.trajectory.append(step)
        episode.clock.tick()
    if failure is not None:
        raise failure
    return step



async def invoke_async(episode: Episode, op: Operation, arguments: dict[str, Any] | None, surface: Surface) -> Step:
    """``invoke`` from an event loop: inline when the app lives in this process (a call takes tens of
    microseconds, less than the hop to a worker thread), in a worker thread when its host is remote
    (a network round trip must not block the loop)."""
    if isinstance(episode.hosts.get(op.app), LocalHost):
        return invoke(episode, op, arguments, surface)
    return await anyio.to_thread.run_sync(invoke, episode, op, arguments, surface)
