"""The one choke point: every call from every surface runs and is recorded here."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from apps.kit.episode import Episode
from apps.kit.errors import OpError
from apps.kit.host import Outcome
from apps.kit.operation import Operation
from apps.kit.trajectory import Step, Surface

MAX_FOLLOW_UP_DEPTH = 3


def invoke(episode: Episode, op: Operation, arguments: dict[str, Any] | None, surface: Surface,
           caused_by: int | None = None, depth: int = 0) -> Step:
    """Run ``op`` in ``episode`` as its acting user and append the Step to its trajectory.

    Validation, the clock and the record stay here; the app's host (local or remote) only executes.
    A tool error (``OpError``, including an unreachable app service) is recorded in the step's
    ``error`` and rolls the call back; it never ends the episode. Any other exception is a bug: it
    is recorded as ``internal`` and re-raised.

    Follow-ups an operation asked for (``Ctx.then``) run next, in the same episode and lock, each
    recorded as its own Step with ``caused_by`` set; a follow-up's failure is recorded in its step
    and leaves the first call done (as a notification that bounced would).
    """
    wall, started = datetime.now(timezone.utc), time.perf_counter()
    with episode.lock:
        now = episode.clock.now()
        outcome, failure = Outcome(), None
        try:
            kwargs = op.validate(arguments)
            outcome = episode.host(op.app).call(episode.id, op, kwargs, episode.actor, now)
        except OpError as exc:
            outcome = Outcome(error=exc.to_dict())
        except Exception as exc:  # recorded, then re-raised: the step log must show the crash too
            outcome, failure = Outcome(error={"type": "internal", "message": f"{type(exc).__name__}: {exc}"}), exc
        step = Step(
            index=len(episode.trajectory), surface=surface, app=op.app, operation=op.name,
            arguments=arguments if isinstance(arguments, dict) else {}, result=outcome.result,
            error=outcome.error, mutates=op.mutates, state_changed=outcome.error is None and outcome.state_changed,
            virtual_time=now, wall_time=wall, duration_ms=round((time.perf_counter() - started) * 1000, 3),
            caused_by=caused_by,
        )
        episode.trajectory.append(step)
        episode.clock.tick()
        if failure is None and outcome.error is None:
            for follow_up in outcome.follow_ups:
                _follow(episode, follow_up, surface, step.index, depth)
    if failure is not None:
        raise failure
    return step


def _follow(episode: Episode, follow_up: dict, surface: Surface, cause: int, depth: int) -> None:
    app = episode.catalogue.get(follow_up["app"])
    op = app.operations.operations.get(follow_up["operation"]) if app is not None else None
    if op is None or depth >= MAX_FOLLOW_UP_DEPTH:
        why = "too deep a chain of follow-ups" if op is not None else "no such operation"
        raise RuntimeError(f"follow-up {follow_up['app']}.{follow_up['operation']} of step {cause}: {why}")
    invoke(episode, op, follow_up["arguments"], surface, caused_by=cause, depth=depth + 1)

