"""``ask_user``: ask the person you work for what the request leaves out.

The app writes nothing: the episode answers (``apps.kit.reactor.complete``) from what its task's user
knows (``tasks.model.User``), and the question and answer are recorded in the step. Where nobody can
be asked (a task without a user, a plain episode) the answer is null.
"""

from __future__ import annotations

from apps.kit import Ctx, Invalid, OperationSet
from apps.kit.reactor import Asked

ops = OperationSet("task")


@ops.write
def ask_user(ctx: Ctx, question: str) -> Asked:
    """Ask the person who gave you the task a question, when the request leaves out something you need.

    Ask one clear question at a time; the answer comes back at once (null when there is nobody to ask:
    then go on with what you have, or submit_answer with status needs_input).

    Args:
        question: Your question, in plain words.
    """
    if not question.strip():
        raise Invalid("question is empty", field="question")
    return Asked(question=question)
