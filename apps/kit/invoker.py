"""The one choke point: every call from every surface runs and is recorded here."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from time import perf_counter
from typing import Any

import anyio

from apps.kit.episode import Episode
from apps.kit.errors import Conflict, OpError
from apps.kit.host import LocalHost, Outcome
from apps.kit.limits import recordable
from apps.kit.operation import Operation
from apps.kit.peers import MAX_DEPTH
from apps.kit.reactor import COMPLETED, Waited, complete, goes_on, settle
from apps.kit.trajectory import Step, Surface


def invoke(episode: Episode, op: Operation, arguments: dict[str, Any] | None, surface: Surface,
           actor: str | None = None, requested_by: int | None = None, at: datetime | None = None,
           cause: str | None = None) -> Step:
    """Run ``op`` in ``episode`` as its acting user (or ``actor``) and append the Step to its trajectory.

    Validation, the clock and the record stay here; the app's host (local or remote) only executes.
    A tool error (``OpError``, including an unreachable app service) is recorded in the step's
    ``error`` and rolls the call back; it never ends the episode. Any other exception is a bug: it
    is recorded as ``internal`` and re-raised. When the call succeeds, the calls it requested of other
    apps (``apps.kit.peers``) run next, each recorded as its own ``peer`` step. Then whatever is due
    by the clock's now happens (``apps.kit.reactor.settle``). A step the reactor makes itself is
    stamped ``at`` (the time it was due) with its ``cause``, and moves the clock not.
    """
    with episode.lock:
        step, outcome, failure = _run(episode, op, arguments, surface, requested_by, actor, at, cause)
        if failure is not None:
            raise failure
        if step.error is None:
            for request in outcome.requests:
                _request(episode, step, request)
        if episode.reactor is not None and requested_by is None:
            settle(episode)
        return step


def _run(episode: Episode, op: Operation, arguments, surface: Surface, requested_by: int | None,
         actor: str | None, at: datetime | None = None, cause: str | None = None):
    wall, started = datetime.now(timezone.utc), perf_counter()
    now = at or episode.clock.now()
    failure = recorded = None
    kwargs: dict = {}
    try:
        kwargs, recorded = op.accept(arguments)   # arguments first: a bad one is named even after the answer
        if op.mutates and surface != "peer" and (actor is None or actor == episode.actor) and answered(episode):
            raise Conflict(AFTER_ANSWER)
        outcome = episode.call(op, kwargs, actor or episode.actor, now)
    except OpError as exc:
        outcome = Outcome(error=exc.to_dict())
    except Exception as exc:  # recorded, then re-raised: the step log must show the crash too
        outcome, failure = Outcome(error={"type": "internal", "message": f"{type(exc).__name__}: {exc}"}), exc
    if recorded is None:   # arguments pydantic took, or refused: made JSON-safe to be recorded
        recorded = recordable(arguments, op.text_limit) if isinstance(arguments, dict) else {}
    if op.result_type in COMPLETED:   # a wait, a question to the user: the episode has the answer
        complete(episode, op.result_type, outcome, kwargs)
    error = outcome.error
    # Every field is built here from checked values: constructing skips re-validating them.
    step = Step.complete({
        "index": len(episode.trajectory), "surface": surface, "app": op.app, "operation": op.name, "actor": actor,
        "arguments": recorded, "result": outcome.result, "error": error, "mutates": op.mutates,
        "state_changed": error is None and outcome.state_changed,
        "virtual_time": now, "wall_time": wall, "duration_ms": round((perf_counter() - started) * 1000, 3),
        "requested_by": requested_by, "cause": cause,
    })
    episode.trajectory.append(step)
    if episode.recorder is not None:
        episode.recorder(step)
    if at is None:
        episode.clock.tick()
    if op.result_type is Waited and error is None:
        episode.clock.advance(max(datetime.fromisoformat(outcome.result["now"]) - episode.clock.now(), timedelta(0)))
    return step, outcome, failure


AFTER_ANSWER = ("the final answer was submitted: the episode takes no more changes from you (reads still work; "
                "finish the episode to be graded)")


def answered(episode: Episode) -> bool:
    """Whether the agent's final answer (an operation marked ``final``) has succeeded in the episode.

    One rule for every surface and adapter: after it, the agent's writes (and a second answer) are refused
    and recorded as ``conflict`` steps; reads still run, and the world's people and scheduled events (steps
    with another actor) still act. A final answer that asked (``needs_input``) and that the task's user answered
    is not final (``apps.kit.reactor.goes_on``). The trajectory is scanned once, incrementally (a fork starts again)."""
    seen, done = getattr(episode, "_answer_scan", (0, False))
    if not done:
        for step in episode.trajectory[seen:]:
            if step.error is None and step.mutates and step.actor in (None, episode.actor) and step.surface != "peer":
                op = episode.operation(step.app, step.operation)
                if op is not None and op.final and not goes_on(step.result):
                    done = True
                    break
        episode._answer_scan = (len(episode.trajectory), done)  # type: ignore[attr-defined]
    return done


def _request(episode: Episode, by: Step, request: dict) -> None:
    """Run one peer request of step ``by``; one that cannot run is recorded as a failed step."""
    peer = episode.operation(request["app"], request["operation"])
    depth = _depth(episode, by)
    if peer is not None and depth < MAX_DEPTH:
        # A reactor's step's requests happen when it did, with its cause (the clock does not move for them).
        at = by.virtual_time if by.cause is not None else None
        invoke(episode, peer, request["arguments"], "peer", actor=by.actor, requested_by=by.index, at=at, cause=by.cause)
        return
    reason = (f"this episode has no operation {request['app']}.{request['operation']}" if peer is None
              else f"peer requests nest deeper than {MAX_DEPTH}")
    now = episode.clock.now()
    error = {"type": "not_found" if peer is None else "conflict", "message": reason}
    step = Step(index=len(episode.trajectory), surface="peer", app=request["app"], operation=request["operation"],
                actor=by.actor, arguments=request["arguments"], error=error, mutates=True, state_changed=False,
                virtual_time=now, wall_time=datetime.now(timezone.utc), duration_ms=0.0, requested_by=by.index)
    episode.trajectory.append(step)
    if episode.recorder is not None:
        episode.recorder(step)


def _depth(episode: Episode, step: Step) -> int:
    depth = 0
    while step.requested_by is not None:
        depth, step = depth + 1, episode.trajectory[step.requested_by]
    return depth


async def invoke_async(episode: Episode, op: Operation, arguments: dict[str, Any] | None, surface: Surface,
                       actor: str | None = None) -> Step:
    """``invoke`` from an event loop: inline when the app lives in this process (a call takes tens of
    microseconds, less than the hop to a worker thread), in a worker thread when its host is remote
    (a network round trip must not block the loop), and in a worker thread too where its co-workers may ask a
    model (``models`` live: a model turn runs inside the step that makes it due)."""
    if isinstance(episode.hosts.get(op.app), LocalHost) and episode.models != "live":
        return invoke(episode, op, arguments, surface, actor)
    return await anyio.to_thread.run_sync(invoke, episode, op, arguments, surface, actor)
