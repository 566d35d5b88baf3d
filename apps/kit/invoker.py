"""The one choke point: every call from every surface runs and is recorded here."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from apps.kit.context import Ctx
from apps.kit.episode import Episode
from apps.kit.errors import OpError, from_dict
from apps.kit.operation import Operation
from apps.kit.trajectory import Step, Surface


def invoke(episode: Episode, op: Operation, arguments: dict[str, Any] | None, surface: Surface) -> Step:
    """Run ``op`` in ``episode`` as its acting user and append the Step to its trajectory.

    A tool error (``OpError``) is recorded in the step's ``error`` and rolls the call back; it never
    ends the episode. Any other exception is a bug: it is recorded as ``internal`` and re-raised.
    """
    wall, started = datetime.now(timezone.utc), time.perf_counter()
    with episode.lock:
        db = episode.db(op.app)
        before = db.changes()
        now = episode.clock.now()
        result, error, failure = None, None, None
        try:
            kwargs = op.validate(arguments)
            result = _run(episode, op, db, now, kwargs)
        except OpError as exc:
            error = exc.to_dict()
        except Exception as exc:  # recorded, then re-raised: the step log must show the crash too
            error, failure = {"type": "internal", "message": f"{type(exc).__name__}: {exc}"}, exc
        step = Step(
            index=len(episode.trajectory), surface=surface, app=op.app, operation=op.name,
            arguments=arguments if isinstance(arguments, dict) else {}, result=result, error=error,
            mutates=op.mutates, state_changed=error is None and db.changes() != before, virtual_time=now,
            wall_time=wall, duration_ms=round((time.perf_counter() - started) * 1000, 3),
        )
        episode.trajectory.append(step)
        episode.clock.tick()
    if failure is not None:
        raise failure
    return step


def _run(episode: Episode, op: Operation, db, now, kwargs: dict[str, Any]) -> Any:
    with db.session() as session:
        ctx = Ctx(session=session, actor=episode.actor, now=now, world=episode.world.info, episode_id=episode.id)
        try:
            value = op.fn(ctx, **kwargs)
            data = op.dump(value)
        except BaseException:
            session.rollback()
            raise
        if op.mutates:
            session.commit()
        else:
            session.rollback()
        return data


def step_error(step: Step) -> OpError | None:
    """The error of a failed step as an exception, for surfaces that raise."""
    return from_dict(step.error) if step.error else None
