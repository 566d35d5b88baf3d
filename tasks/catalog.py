"""The shipped suites as a server sees them: find tasks, open task episodes, finish and grade them.

A ``Catalog`` holds the tasks (loaded and checked once), the engine that runs them, and the task
side of every live task episode. It knows nothing of HTTP: the control API and the CLIs call it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

import orjson

from apps.kit import Invalid, NotFound
from apps.kit.episode import Episode
from apps.kit.invoker import invoke
from tasks.corpus import Corpus, difficulty, measure
from tasks.judge import Judge
from tasks.loader import SUITES_DIR, load_suites
from tasks.model import Task
from tasks.quarantine import load_quarantine
from tasks.reward import Reward
from tasks.session import Factory, Operations, Release, TaskError, TaskRun, Tasks


class Catalog:
    """``corpus``, when given, writes the generated tasks (``tasks.corpus``); it runs on the first need of a task
    that is not in the suites (a listing, or an id the suites lack), once."""

    def __init__(self, operations: Operations, factory: Factory, root: Path = SUITES_DIR,
                 release: Release | None = None, corpus: Callable[[], Corpus] | None = None):
        self.operations = operations
        self.engine = Tasks(operations, factory, release)
        self.written: dict[str, Task] = {t.id: _measured(t, operations) for t in load_suites(root, operations)}
        self._corpus = corpus
        self._generated: Corpus | None = None
        self._all: dict[str, Task] | None = None if corpus else self.written
        self._corpus_lock = threading.Lock()
        self.quarantined: dict[str, str] = load_quarantine(root)
        self._public: dict[str, bytes] = {}
        self.judge = Judge.from_env()
        self._runs: dict[str, TaskRun] = {}
        self._rewards: dict[str, Reward] = {}
        self._lock = threading.Lock()

    @property
    def tasks(self) -> dict[str, Task]:
        """Every task: the written suites, then the generated corpus (written now if it is not yet)."""
        if self._all is None:
            with self._corpus_lock:
                if self._all is None and self._corpus is not None:
                    self._generated = self._corpus()
                    self._all = {**{t.id: t for t in self._generated.tasks}, **self.written}
        return self._all if self._all is not None else self.written

    @property
    def corpus(self) -> Corpus | None:
        """The generated corpus with what it skipped and its problems (None when this catalog has none); written
        now if it is not yet."""
        _ = self.tasks   # writes it on first need
        return self._generated

    def get(self, task_id: str, include_quarantined: bool = True) -> Task:
        task = self.written.get(task_id) or self.tasks.get(task_id)
        if task is None or (not include_quarantined and task_id in self.quarantined):
            raise NotFound(f"no task {task_id!r}" + (" (quarantined)" if task else ""), field="task")
        return task

    def select(self, suite: str | None = None, tag: str | None = None, world: str | None = None,
               include_quarantined: bool = False, split: str | None = None, family: str | None = None,
               difficulty: str | None = None) -> list[Task]:
        written_suite = suite is not None and any(t.suite == suite for t in self.written.values())
        pool = self.written if written_suite else self.tasks
        return [t for t in pool.values()
                if (suite is None or t.suite == suite) and (tag is None or tag in t.tags)
                and (world is None or t.world == world) and (split is None or t.split == split)
                and (family is None or t.family == family) and (difficulty is None or t.difficulty == difficulty)
                and (include_quarantined or t.id not in self.quarantined)]

    def public_json(self, task: Task, more: Callable[[Task], dict] | None = None) -> bytes:
        """What ``Task.public`` gives (with what ``more`` adds, the same for every call), as JSON bytes, made once
        per task."""
        made = self._public.get(task.id)
        if made is None:
            made = self._public.setdefault(task.id, orjson.dumps({**task.public(), **(more(task) if more else {})}))
        return made

    def suites(self) -> list[str]:
        return sorted({t.suite for t in self.tasks.values()})

    def start(self, task_id: str, include_quarantined: bool = False, episode: Episode | None = None) -> TaskRun:
        """A fresh episode (or ``episode``, fresh on the task's world) with the task's scene set and its
        bindings resolved."""
        task = self.get(task_id, include_quarantined)
        try:
            run = self.engine.begin(task, episode)
        except TaskError as exc:
            raise Invalid(f"task {task_id}: {exc}", field="task") from None
        with self._lock:
            self._runs[run.episode.id] = run
        return run

    def run_of(self, episode_id: str) -> TaskRun | None:
        return self._runs.get(episode_id)

    def forked(self, parent: str, child: Episode) -> None:
        """A fork of a task episode is a task episode too, from the same point."""
        run = self._runs.get(parent)
        if run is not None:
            with self._lock:
                self._runs[child.id] = TaskRun(run.task, child, run.prepared, run.agent_from)

    def finish(self, episode: Episode, answer: str | None = None, status: str | None = None,
               judge=None) -> Reward:
        """Record the final answer (if given, as a step), then grade; finishing again regrades."""
        run = self._runs.get(episode.id)
        if run is None:
            raise Invalid(f"episode {episode.id} was not created for a task", field="episode_id")
        if answer is not None or status is not None:
            args = {"answer": answer or "", **({"status": status} if status else {})}
            step = invoke(episode, self.operations["task.submit_answer"], args, "control")
            if step.error:
                raise Invalid(f"answer: {step.error['message']}", field=step.error.get("field") or "answer")
        try:
            reward = self.engine.grade(run, judge or self.judge)
        except TaskError as exc:
            raise Invalid(f"task {run.task.id}: {exc}", field="task") from None
        with self._lock:
            self._rewards[episode.id] = reward
        return reward

    def reward(self, episode_id: str) -> Reward | None:
        return self._rewards.get(episode_id)

    def forget(self, episode_id: str) -> None:
        with self._lock:
            self._runs.pop(episode_id, None)
            self._rewards.pop(episode_id, None)


def _measured(task: Task, operations: Operations) -> Task:
    """A written task with its figures and the difficulty they give (a written task is in the train split)."""
    task.figures = {"distractors": 0, "setup_calls": len(task.setup), **task.figures, **measure(task, operations)}
    task.difficulty = difficulty(task.figures)
    task.split = task.split or "train"
    return task
