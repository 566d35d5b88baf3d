"""``describe_view``: the agent says what it sees, before it acts or answers.

The app writes nothing: the description is kept in the recorded step, where a task's ``perception``
criteria read it (``tasks/perception.py``) against what the agent's earlier reads returned.
"""

from __future__ import annotations

from pydantic import BaseModel

from apps.kit import Ctx, OperationSet

ops = OperationSet("task")


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
