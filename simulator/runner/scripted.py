"""A scripted policy for tests and smoke runs: it replays each task's oracle, one call a turn.

With chance ``slip`` a rollout goes wrong (one oracle call left out, or, for a task whose oracle is
only the answer, a wrong answer), decided by a random generator seeded with (seed, task, sample):
a run gives mixed rewards, the same for the same (task, sample) in any process, on any machine, in
any order. It reads the oracle from the task files (never from the control API, which does not
show it to agents), with references resolved against a task run in an episode store of its own.
"""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass, field
from pathlib import Path

import httpx

SUBMIT = ("task.submit_answer", "task_submit_answer")
WRONG_ANSWER = "I could not find out."


@dataclass
class OraclePolicy:
    slip: float = 0.3
    seed: int = 0
    tasks_root: Path | None = None
    _calls: dict[str, list[tuple[str, dict]]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.slip <= 1.0:
            raise ValueError("slip: a chance, from 0 to 1")

    def __getstate__(self) -> dict:
        return {"slip": self.slip, "seed": self.seed, "tasks_root": self.tasks_root, "_calls": dict(self._calls)}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def describe(self) -> dict:
        return {"model": "scripted:oracle", "model_name": f"oracle slip={self.slip:g} seed={self.seed}"}

    def prepare(self, tasks: list[str]) -> None:
        """Resolve the oracles of ``tasks`` now (before shipping the policy elsewhere)."""
        missing = [t for t in tasks if t not in self._calls]
        if missing:
            self._calls.update(_resolved_oracles(missing, self.tasks_root))

    def plan(self, task: str, sample: int) -> list[tuple[str, dict]]:
        """The (tool, arguments) this rollout sends, the answer last."""
        self.prepare([task])
        calls = list(self._calls[task])
        if not any(name == SUBMIT[1] for name, _ in calls):
            calls.append((SUBMIT[1], {"answer": "Done."}))
        rng = random.Random(f"{self.seed}:{task}:{sample}")
        if rng.random() < self.slip:
            work = [n for n, (name, _) in enumerate(calls) if name != SUBMIT[1]]
            if work:
                del calls[rng.choice(work)]
            else:
                calls = [(SUBMIT[1], {"answer": WRONG_ANSWER})]
        return calls

    async def reply(self, http: httpx.AsyncClient, messages: list[dict], tools: list[dict], *,
                    task: str, sample: int) -> dict:
        turn = sum(m.get("role") == "assistant" for m in messages)
        calls = self.plan(task, sample)
        if turn >= len(calls):
            return {"role": "assistant", "content": "Nothing left to do.", "tool_calls": []}
        name, arguments = calls[turn]
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{turn}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments, default=str)}}]}


_LOCK = threading.Lock()
_CATALOGS: dict = {}


def _resolved_oracles(tasks: list[str], root: Path | None) -> dict[str, list[tuple[str, dict]]]:
    """Each task's oracle as tool calls, arguments resolved in a task run of this process's own store."""
    from simulator.store.episodes import EpisodeStore
    from simulator.tasks.catalog import task_catalog
    from tasks.refs import resolve

    with _LOCK:
        if root not in _CATALOGS:
            _CATALOGS[root] = task_catalog(EpisodeStore(trajectory_dir=None), root)
        catalog = _CATALOGS[root]
        out = {}
        for task_id in tasks:
            task = catalog.get(task_id)
            run = catalog.engine.begin(task)
            try:
                out[task_id] = [(call.op.replace(".", "_", 1), resolve(call.args, run.scope)) for call in task.oracle]
            finally:
                catalog.engine.release(run.episode)
        return out
