"""Task: the agent's side of a task: its final answer (``submit_answer``), letting time pass (``wait``),
asking the user (``ask_user``) and saying what it sees (``describe_view``, a read graded from its step).

The answer is state like any other (a row of this app's database), so it is in the digest,
forks with the episode, replays from the trajectory and is read by the graders from the final state.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlmodel import Session

from apps.kit import App, OperationSet
from apps.task import asking, models, operations, perceiving, waiting

if TYPE_CHECKING:
    from worlds.model import World


def _seed(session: Session, world: World) -> None:
    """A world holds no answers: the app starts empty."""


APP = App(
    name="task",
    title="Task",
    operations=OperationSet("task").include(operations.ops).include(waiting.ops).include(asking.ops)
    .include(perceiving.ops),
    tables=models.TABLES,
    seed=_seed,
    source_dir=Path(__file__).parent,
    service=False,  # the episode's answer lives with the gateway that grades it
)
