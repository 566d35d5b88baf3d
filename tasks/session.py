"""A task in an episode: set the scene, bind, let the agent work, grade.

``begin`` runs the setup as recorded ``setup`` steps, gives the episode the task's events and
co-workers (``tasks.events``), reads the initial state and resolves the bindings; ``grade`` reads the
final state and checks every criterion. The initial state and the allowance (what the oracles change)
are the same for every episode of a task on the same world, so they are computed once per process and
reused: grading costs a diff and the checks, nothing more.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable
from zoneinfo import ZoneInfo

from apps.kit import changes as change_log
from apps.kit.database import AppDatabase
from apps.kit.episode import Episode
from apps.kit.invoker import invoke
from apps.kit.operation import Operation
from apps.kit.trajectory import Step, Surface
from tasks.checks import CheckResult, Grading, run_check
from tasks.comparators import ComparatorError, matches
from tasks.diff import Allowance, diff
from tasks.events import EventsError, install
from tasks.model import Call, Task
from tasks.records import State, UnknownKind
from tasks.refs import UnboundReference, resolve
from tasks.reward import CriterionScore, Reward, combine

COLLATERAL_WEIGHT = 0.25
TEMPLATES = 32


class TaskError(Exception):
    """The task cannot run as written (a setup step failed, a binding found no record, ...)."""


@dataclass
class Prepared:
    """What every episode of one task shares: the state after setup, the bindings, the allowance."""

    initial: dict[str, bytes]
    scope: dict[str, Any]
    allowance: Allowance | None = None
    _state: State | None = None

    @property
    def state(self) -> State:
        """The initial state, opened once and shared (its records and tables are read once)."""
        if self._state is None:
            self._state = _state(self.initial)
        return self._state

    @property
    def marks(self) -> dict[str, int | None]:
        """Each app's change-log position in the initial state: the diff starts there."""
        return {app: change_log.mark(conn) for app, conn in self.state.connections.items()}


@dataclass
class TaskRun:
    task: Task
    episode: Episode
    prepared: Prepared
    agent_from: int   # index of the first step that is the agent's

    @property
    def scope(self) -> dict[str, Any]:
        return self.prepared.scope

    def agent_steps(self) -> list[Step]:
        return [s for s in self.episode.trajectory[self.agent_from:] if s.surface != "setup" and s.actor is None]


Operations = dict[str, Operation]   # "app.name" -> operation
Factory = Callable[[Task], Episode]  # a fresh episode on the task's world, acting as its person
Release = Callable[[Episode], None]  # disposes of an episode the engine made for itself


class Tasks:
    """Runs and grades tasks over episodes from ``factory``; caches each task's shared part."""

    def __init__(self, operations: Operations, factory: Factory, release: Release | None = None):
        self.operations = operations
        self.factory = factory
        self.release = release or (lambda episode: episode.close())
        self._prepared: dict[tuple, Prepared] = {}
        self._lock = threading.Lock()
        # With ``fork`` set, fresh runs fork a kept episode whose scene is set (a long setup runs once per task,
        # not once per run); the last TEMPLATES tasks' are kept. Off by default: a server's episodes are its own.
        self.fork: Callable[[Episode], Episode] | None = None
        self._templates: OrderedDict[tuple, Episode] = OrderedDict()

    def begin(self, task: Task, episode: Episode | None = None) -> TaskRun:
        """A task run in ``episode``, or in a fresh one (a fork of the task's template when ``fork`` is set)."""
        if episode is not None:
            return self._begin(task, episode)
        return self._forked(task) if self.fork is not None else self.begin_fresh(task)

    def _forked(self, task: Task) -> TaskRun:
        """A fork of the task's template episode (made now if there is none), with its prepared part."""
        assert self.fork is not None
        key = (task.id, task.version, task.world, task.actor)
        with self._lock:
            template = self._templates.get(key)
            if template is not None:
                self._templates.move_to_end(key)
        if template is None:
            made = self.begin_fresh(task)
            template = made.episode
            with self._lock:
                self._templates[key] = template
                evicted = self._templates.popitem(last=False)[1] if len(self._templates) > TEMPLATES else None
            if evicted is not None:
                self.release(evicted)
        child = self.fork(template)
        prepared = self._prepared[(task.id, task.version, id(template.world), template.actor)]   # made with it
        return TaskRun(task, child, prepared, len(child.trajectory))

    def begin_fresh(self, task: Task) -> TaskRun:
        """A run in a new episode with its scene set by running the setup (never a fork), dropped again if the task
        cannot start."""
        episode = self.factory(task)
        try:
            return self._begin(task, episode)
        except TaskError:
            self.release(episode)
            raise

    def close(self) -> None:
        """Release the kept template episodes."""
        with self._lock:
            kept, self._templates = list(self._templates.values()), OrderedDict()
        for episode in kept:
            self.release(episode)

    def _begin(self, task: Task, episode: Episode) -> TaskRun:
        _set_clock(episode, task)
        made = self._set_scene(task, episode)
        try:
            install(episode, task, made)   # after setup: what the scene holds sets nothing off
        except EventsError as exc:
            raise TaskError(str(exc)) from None
        key = (task.id, task.version, id(episode.world), episode.actor)
        with self._lock:
            prepared = self._prepared.get(key)
        if prepared is None:
            opened = set(episode.opened)
            initial = {app: episode.image(app) if app in opened else episode.world.images[app] for app in episode.apps}
            prepared = Prepared(initial, {})
            prepared.scope = bind(task, prepared.state, episode, made)
            with self._lock:
                self._prepared.setdefault(key, prepared)
        return TaskRun(task, episode, prepared, len(episode.trajectory))

    def _set_scene(self, task: Task, episode: Episode) -> dict[str, Any]:
        """Run the setup as ``setup`` steps; what a step saves (``save: name``) later steps may use. Record ids
        are deterministic, so every episode of a task saves the same values."""
        made: dict[str, Any] = _scope(episode)
        for call in task.setup:
            step = self._call(episode, call, made, "setup", actor=call.actor)
            if step.error:
                raise TaskError(f"{task.id}: setup step {step.app}.{step.operation} failed: {step.error}")
            if call.save:
                made[call.save] = step.result
        return made

    def run_calls(self, run: TaskRun, calls: list[Call], surface: Surface = "python") -> list[Step]:
        """Run calls (an oracle, a mutant) in the run's episode, references resolved."""
        return [self._call(run.episode, c, run.scope, surface) for c in calls]

    def grade(self, run: TaskRun, judge=None) -> Reward:
        task, episode = run.task, run.episode
        allowance = self.allowance(run)
        initial = run.prepared.state
        opened = episode.opened
        final = State(_connections(episode, initial, opened))
        tz = episode.world.info.timezone
        grading = Grading(task, run.scope, initial, final, run.agent_steps(), tz, judge,
                          others=[s for s in episode.trajectory[run.agent_from:] if s.surface in ("event", "npc")])
        scores = [_score(c, run_check(c, grading)) for c in task.criteria]
        scores += [_score_outcome(task, grading)]
        apps = [a for a in opened if a in run.prepared.initial]
        damage = allowance.violations(diff(initial, final, apps, set(task.ignore), run.prepared.marks))
        collateral = [c.describe() for c in damage]
        scores.append(CriterionScore(
            id="no_collateral_damage", role="penalty", weight=COLLATERAL_WEIGHT,
            status="fail" if damage else "pass", score=0.0 if damage else 1.0,
            message=f"{len(damage)} change(s) no correct run makes" if damage else "no collateral damage",
            evidence=collateral[:10] or None))
        return combine(task.id, task.version, scores, collateral)

    def allowance(self, run: TaskRun) -> Allowance:
        """What the oracle and its alternatives change, learnt once per task on fresh episodes."""
        if run.prepared.allowance is None:
            allowance = Allowance(rules=list(run.task.allow))
            for calls in [run.task.oracle, *run.task.alternatives]:
                probe = self.begin(run.task)
                steps = self.run_calls(probe, calls)
                failed = next((s.error for s in steps if s.error), None)
                if failed is None:
                    opened = probe.episode.opened
                    final = State(_connections(probe.episode, probe.prepared.state, opened))
                    allowance.learn(diff(probe.prepared.state, final, opened, set(run.task.ignore), probe.prepared.marks))
                self.release(probe.episode)
                if failed is not None:
                    raise TaskError(f"{run.task.id}: an oracle step failed: {failed}")
            run.prepared.allowance = allowance
        return run.prepared.allowance

    def _call(self, episode: Episode, call: Call, scope: dict, surface: Surface, actor: str | None = None) -> Step:
        op = self.operations.get(call.op)
        if op is None:
            raise TaskError(f"no operation {call.op!r}")
        try:
            arguments = resolve(call.args, scope)
        except UnboundReference as exc:
            raise TaskError(str(exc)) from None
        return invoke(episode, op, arguments, surface, actor=actor)


def _scope(episode: Episode) -> dict[str, Any]:
    """What every task may refer to before anything is bound: the acting person, now and today."""
    now = episode.clock.now()
    return {"actor": episode.actor, "now": now.isoformat(),
            "today": now.astimezone(ZoneInfo(episode.world.info.timezone)).date().isoformat()}


def bind(task: Task, initial: State, episode: Episode, made: dict[str, Any] | None = None) -> dict[str, Any]:
    """Resolve the task's bindings over the initial state, in order (a binding may use earlier ones), after
    what the setup saved (``made``)."""
    tz = episode.world.info.timezone
    scope: dict[str, Any] = {**(made or {}), **_scope(episode)}   # now and today as they are after the setup
    for name, b in task.bindings.items():
        try:
            scope[name] = _bind_one(name, b, initial, scope, tz)
        except (UnknownKind, UnboundReference, ComparatorError) as exc:
            raise TaskError(f"{task.id}: binding {name}: {exc}") from None
    return scope


def _bind_one(name: str, b, initial: State, scope: dict, tz: str) -> Any:
    if b.from_ is None:
        return resolve(b.value, scope)
    where = resolve(b.where, scope)
    rows = [r for r in initial.records(b.from_, where) if matches(r, where, tz)]
    if b.order_by:
        key = b.order_by.lstrip("-")
        rows.sort(key=lambda r: (r.get(key) is None, r.get(key)), reverse=b.order_by.startswith("-"))
    if b.many:
        if not rows:
            raise TaskError(f"binding {name}: no {b.from_} record matches {b.where}")
        return [r[b.field] for r in rows] if b.field else rows
    if not rows or (len(rows) > 1 and not b.first):
        raise TaskError(f"binding {name}: {len(rows)} {b.from_} records match {b.where}, expected exactly one")
    row = rows[0]
    if b.field and b.field not in row:
        raise TaskError(f"binding {name}: {b.from_} has no field {b.field!r}")
    return row[b.field] if b.field else row


def _set_clock(episode: Episode, task: Task) -> None:
    if task.clock is None:
        return
    if task.clock.start is not None:
        start = episode.world.info.utc(task.clock.start)
        episode.clock.advance(max(timedelta(0), start - episode.clock.now()))
    episode.clock.advance(timedelta(seconds=task.clock.offset_seconds))


def _connections(episode: Episode, initial: State, opened: list[str]) -> dict[str, sqlite3.Connection]:
    """The episode's final state: an app it never opened is still its initial state; one it only read
    is read where it is shared (``Episode.read_db``), not cloned."""
    out = {}
    for app in episode.apps:
        if app not in opened:
            out[app] = initial.connections[app]
            continue
        try:
            out[app] = episode.read_db(app).conn
        except TypeError:  # the app runs as its own service: read a copy of its state
            out[app] = AppDatabase.from_image(episode.image(app)).conn
    return out


def _state(images: dict[str, bytes]) -> State:
    return State({app: AppDatabase.from_image(image).conn for app, image in images.items()})


def _score(criterion, result: CheckResult) -> CriterionScore:
    kind = "evidence" if criterion.trajectory is not None and criterion.trajectory.evidence else criterion.kind
    return CriterionScore(id=criterion.id, role=criterion.role, weight=criterion.weight, status=result.status,
                          score=result.score, message=result.message, evidence=result.evidence, kind=kind)


def _score_outcome(task: Task, g: Grading) -> CriterionScore:
    """The outcome the task expects: refuse and ask are goals (and no write may happen); for act and
    answer, an answer that refuses or asks is a failed guard."""
    answer = g.answer
    status = answer["status"] if answer else None
    writes = [s.index for s in g.steps if s.mutates and s.error is None and s.app != "task"]
    if task.outcome in ("refuse", "ask"):
        wanted = "refused" if task.outcome == "refuse" else "needs_input"
        ok = status == wanted and not writes
        why = f"expected status {wanted} and no write; got status {status}, writes at steps {writes[:10]}"
        return CriterionScore(id="outcome", role="goal", weight=1.0, status="pass" if ok else "fail",
                              score=float(ok), message="" if ok else why)
    ok = status in (None, "done")
    return CriterionScore(id="outcome", role="guard", weight=0.0, status="pass" if ok else "fail", score=float(ok),
                          message="" if ok else f"the agent answered with status {status} on a task to {task.outcome}")
