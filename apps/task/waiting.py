"""``wait``: let time pass, for a while, until a time, or until the next thing happens.

Nothing is written: the invoker moves the episode's clock (``apps.kit.reactor``) after the step, and
whatever falls due on the way happens then (a reply arrives, a meeting is accepted), recorded as
steps of its own. Kept apart from ``submit_answer`` so the two grow separately.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from apps.kit import Ctx, Invalid, OperationSet
from apps.kit.reactor import MAX_WAIT, Waited

ops = OperationSet("task")


@ops.write
def wait(ctx: Ctx, seconds: float | None = None, until: datetime | None = None, for_event: bool = False) -> Waited:
    """Let time pass while you wait for something (a reply, a meeting, a deadline). Nothing else changes.

    Give how long (seconds), until when (until), or wait for the next thing to happen (for_event),
    which stops at the earlier of that and the time given. One wait lasts at most 14 days.

    Args:
        seconds: How long to wait, in seconds.
        until: Wait until this time (in the world's time zone when it names none).
        for_event: Stop as soon as something happens (a message arrives, someone answers).
    """
    if seconds is not None and until is not None:
        raise Invalid("give seconds or until, not both", field="seconds")
    if seconds is None and until is None and not for_event:
        raise Invalid("say how long to wait: seconds, until, or for_event", field="seconds")
    if seconds is not None and not 0 <= seconds <= MAX_WAIT.total_seconds():
        raise Invalid(f"seconds must be between 0 and {int(MAX_WAIT.total_seconds())}", field="seconds")
    end = ctx.world.utc(until) if until is not None else None
    if seconds is not None:
        end = ctx.now + timedelta(seconds=seconds)
    if end is not None and end > ctx.now + MAX_WAIT:
        raise Invalid(f"until is more than {MAX_WAIT.days} days ahead", field="until")
    return Waited(until=end, for_event=for_event)
