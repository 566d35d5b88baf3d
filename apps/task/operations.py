"""``submit_answer``: how an agent says it is finished, and what it answers; ``describe_view``: what it sees."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from apps.kit import Ctx, OperationSet
from apps.task.models import Answer

ops = OperationSet("task")

Status = Literal["done", "refused", "needs_input"]


class Submitted(BaseModel):
    received: bool
    status: Status


@ops.write
def submit_answer(ctx: Ctx, answer: str = "", status: Status = "done") -> Submitted:
    """Finish your work on the task: give your final answer, or say why you will not or cannot go on.

    Call it once, when you are done. A later call replaces the earlier answer.

    Args:
        answer: Your final answer to the request, in plain text (empty when the request asked for an action only).
        status: done when you did what was asked; refused when you decline to do it (say why in
            answer); needs_input when you need the requester to clarify something first (ask in answer).
    """
    ctx.session.add(Answer(author=ctx.actor, answer=answer, status=status, submitted_at=ctx.now))
    return Submitted(received=True, status=status)


class Described(BaseModel):
    received: bool


@ops.read
def describe_view(ctx: Ctx, description: str) -> Described:
    """Say what you see now, before you act or answer: the records, figures and names in front of you.

    Some tasks ask for it; what you describe is checked against what your reads showed, and whether it
    is enough to answer the request. It changes nothing.

    Args:
        description: What is on screen or in your last results, in plain text: records, figures, names.
    """
    return Described(received=True)
