"""Oracle tool calls of a task, as a policy that knows the answer sends them (shared by the trainer adapter tests)."""

from __future__ import annotations

from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from tasks.refs import resolve

SUBMIT = "task_submit_answer"


def oracle_actions(task_id: str) -> list[dict]:
    """The task's oracle as {tool, arguments} calls, ending with the answer (its own, or a plain one)."""
    catalog = task_catalog(EpisodeStore(trajectory_dir=None))
    run = catalog.start(task_id)
    calls = [{"tool": c.op.replace(".", "_"), "arguments": resolve(c.args, run.scope)}
             for c in catalog.tasks[task_id].oracle]
    if calls[-1]["tool"] != SUBMIT:
        calls.append({"tool": SUBMIT, "arguments": {"answer": "Done."}})
    return calls
