"""``submit_answer``: how an agent says it is finished, and what it answers.

It is the episode's ``final`` operation: once it succeeds, the invoker refuses the agent's writes, on every
surface and through every adapter (``apps.kit.invoker.answered``), unless it asked (``needs_input``) and
the task's user answered (``apps.kit.reactor.complete``): then the episode goes on.
"""

from __future__ import annotations

from typing import Literal

from apps.kit import Ctx, OperationSet
from apps.kit.reactor import Submitted
from apps.task.models import Answer

ops = OperationSet("task")

Status = Literal["done", "refused", "needs_input"]


@ops.write(final=True)
def submit_answer(ctx: Ctx, answer: str = "", status: Status = "done") -> Submitted:
    """Finish your work on the task: give your final answer, or say why you will not or cannot go on.

    Call it once, when you are done: after it, the episode refuses your changes (and a second answer).

    Args:
        answer: Your final answer to the request, in plain text (empty when the request asked for an action only).
        status: done when you did what was asked; refused when you decline to do it (say why in
            answer); needs_input when you need the requester to clarify something first (ask in answer):
            when they can answer, their reply comes back and you go on (the episode is not over).
    """
    ctx.session.add(Answer(author=ctx.actor, answer=answer, status=status, submitted_at=ctx.now))
    return Submitted(received=True, status=status)
