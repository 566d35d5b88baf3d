"""Task: the agent's side of a task, its final answer. One operation, ``submit_answer``.

The answer is state like any other (a row of this app's database), so it is in the digest,
forks with the episode, replays from the trajectory and is read by the graders from the final state.
"""

from pathlib import Path

from apps.kit import App
from apps.task import models, operations


def _seed(session, world) -> None:
    """A world holds no answers: the app starts empty."""


APP = App(
    name="task",
    title="Task",
    operations=operations.ops,
    tables=models.TABLES,
    seed=_seed,
    source_dir=Path(__file__).parent,
    service=False,  # the episode's answer lives with the gateway that grades it
)
