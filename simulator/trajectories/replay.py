"""Replay a trajectory file on a fresh episode, and regrade it with the current task definition.

As in tau2-bench only the writes are re-run: reads change nothing, and neither did a refused write
(a step with an error rolled back; its arguments were recorded made JSON-safe, ``Infinity`` as text,
a non-object body as ``{}``, long text cut, so run again it could be accepted). Each accepted write
runs at its recorded virtual time (so timestamps match) as its recorded person, and must give the
recorded result. At the end, every app's digest is compared with the footer's. A task episode
starts from the task's own setup (its setup steps in the file are not re-run); grading then sees
the recorded steps, reads included. What the world did by itself (``event`` and ``npc`` steps,
``apps.kit.reactor``) is not re-run either: the replayed steps set it off again, and the first step where
it differs from the recording is reported. Co-workers who answered by a model answer from the reply cache
(``scenarios.people.llm``, with the recording's salt): a reply not there, or another one, is never asked
for again and shows as that first difference.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from itertools import zip_longest
from typing import Any, Callable

from apps.kit.episode import Episode
from apps.kit.errors import OpError
from apps.kit.invoker import invoke
from apps.kit.reactor import settle
from apps.kit.trajectory import Step
from simulator.store.episodes import EpisodeStore
from simulator.trajectories.files import TrajectoryFile, read
from tasks.session import TaskError

MAX_DIFFERENCES = 20
REACTIONS = ("event", "npc")   # steps the world's reactor makes (re-derived, never re-run)


@dataclass
class Divergence:
    step: int | None          # the recorded step's index; None for the final state
    operation: str
    reason: str
    differences: list[dict] = field(default_factory=list)   # {path, recorded, replayed}

    def describe(self) -> str:
        where = f"step {self.step} {self.operation}" if self.step is not None else self.operation
        lines = [f"{where}: {self.reason}"]
        lines += [f"  {d['path']}: recorded {d['recorded']!r}, replayed {d['replayed']!r}" for d in self.differences]
        return "\n".join(lines)


@dataclass
class Replay:
    file: TrajectoryFile
    episode: Episode
    run: Any = None                  # the TaskRun, for a task episode
    replayed: int = 0
    skipped_reads: int = 0            # reads and refused calls: not run again
    divergences: list[Divergence] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.divergences


def replay(source, store: EpisodeStore | None = None, catalog=None,
           after: Callable[[Step, Replay], None] | None = None) -> Replay:
    """Re-run ``source`` (a path or a ``TrajectoryFile``) on a fresh episode of ``store`` (by default a
    store that keeps no files); ``catalog`` (a ``tasks.catalog.Catalog``) is needed for task episodes.
    ``after`` is called after each write is run again, with the recorded step (the viewer's state diffs)."""
    file = source if isinstance(source, TrajectoryFile) else read(source)
    store = store if store is not None else EpisodeStore(trajectory_dir=None, idle_timeout=None)
    result = _fresh(file, store, catalog)
    operations = {f"{op.app}.{op.name}": op for app in store.apps.values() for op in app.operations}
    restores = {e["after_step"] for e in file.events if e.get("event") == "restore"}
    for position, step in enumerate(file.steps):
        if position in restores:
            result.notes.append(f"stopped at step {step.index}: a snapshot was restored there, which replay cannot follow")
            return result
        if step.surface == "setup" and result.run is not None:
            continue
        if step.surface == "peer" or step.surface in REACTIONS:  # set off again by the steps that caused them
            continue
        if not replayable(step):
            result.skipped_reads += 1
            continue
        _replay_step(result, step, operations)
        if after is not None:
            after(step, result)
    _catch_up(result)
    _compare_reactions(result, result.run.agent_from if result.run is not None else 0)
    _compare_final(result)
    if result.run is not None:
        # Grading sees what the agent did, reads included: the recorded steps after the fresh setup.
        agent = [s for s in file.steps if s.surface != "setup"]
        result.episode.trajectory = result.episode.trajectory[:result.run.agent_from] + agent
    return result


def replaying(models: str) -> str:
    """How a replay's co-workers answer: from the cache where the recording asked a model, never anew."""
    return "cached" if models == "live" else models


def replayable(step: Step) -> bool:
    """Whether replay runs ``step`` again: an accepted write. A read, or a refused call, changed nothing."""
    return step.mutates and step.error is None


def _fresh(file: TrajectoryFile, store: EpisodeStore, catalog) -> Replay:
    header = file.header
    salt, models = header.salt, replaying(header.models)
    if header.task is None:
        return Replay(file, store.create(header.world_ref, header.actor, salt=salt, models=models))
    if catalog is None:
        from simulator.tasks.catalog import task_catalog
        catalog = task_catalog(store)
    task = catalog.get(header.task.id)
    run = catalog.engine.begin(task, store.create(task.world, task.actor, salt=salt, models=models))
    out = Replay(file, run.episode, run)
    if task.version != header.task.version:
        out.notes.append(f"task {task.id} is now version {task.version}; the file recorded version {header.task.version}")
    if run.episode.world.content_hash != header.world_hash:
        out.notes.append(f"world {header.world} has changed since the recording (content hash differs)")
    return out


def _replay_step(result: Replay, step: Step, operations: dict) -> None:
    episode = result.episode
    op = operations.get(f"{step.app}.{step.operation}")
    if op is None:
        result.divergences.append(Divergence(step.index, step.tool, "the operation no longer exists"))
        return
    with episode.lock:
        lag = step.virtual_time - episode.clock.now()
        if lag.total_seconds() > 0:
            episode.clock.advance(lag)
        settle(episode)   # what was due before this step happened before it, as when it was recorded
    again = invoke(episode, op, step.arguments, "replay", actor=step.actor)
    result.replayed += 1
    if again.error is not None:
        result.divergences.append(Divergence(step.index, step.tool, f"the replay failed: {again.error.get('message')}"))
        return
    replayed = json.loads(json.dumps(again.result, default=str))
    if replayed != step.result:
        result.divergences.append(Divergence(step.index, step.tool, "the result differs",
                                             _differences(step.result, replayed)))


def _catch_up(result: Replay) -> None:
    """Move the clock where the recording's last clock move left it, so what fell due by then happens."""
    moves = [datetime.fromisoformat(e["now"]) for e in result.file.events if e.get("event") == "clock" and e.get("now")]
    episode = result.episode
    if moves and max(moves) > episode.clock.now():
        with episode.lock:
            episode.clock.advance(max(moves) - episode.clock.now())
            settle(episode)


def _compare_reactions(result: Replay, start: int) -> None:
    """The first event or NPC step that differs from the recording's (their causes' step indices aside:
    a replay skips reads, so its indices are its own)."""
    recorded = [s for s in result.file.steps if s.surface in REACTIONS]
    derived = [s for s in result.episode.trajectory[start:] if s.surface in REACTIONS]
    for was, now in zip_longest(recorded, derived):
        if was is None or now is None or _reaction(was) != _reaction(now):
            where = was if was is not None else now
            reason = ("the world did not do this again" if now is None else
                      "the world did more than the recording holds" if was is None else
                      f"the world's reaction differs: recorded {_reaction(was)}, replayed {_reaction(now)}")
            result.divergences.append(Divergence(where.index, where.tool, reason))
            return


def _reaction(step: Step) -> tuple:
    return (step.surface, step.tool, step.actor, step.arguments, step.virtual_time.isoformat(), step.error is None)


def _compare_final(result: Replay) -> None:
    footer = result.file.footer
    if footer is None:
        result.notes.append("the file has no footer (unfinished): no final digest to compare")
        return
    for app, recorded in sorted(footer.digests.items()):
        if app not in result.episode.hosts:
            result.divergences.append(Divergence(None, "final state", f"app {app} is not in this registry"))
            continue
        replayed = result.episode.host(app).digest(result.episode.id)
        if replayed != recorded:
            result.divergences.append(Divergence(None, "final state", f"{app}'s state digest differs",
                                                 [{"path": app, "recorded": recorded[:16], "replayed": replayed[:16]}]))


def _differences(recorded: Any, replayed: Any, path: str = "$") -> list[dict]:
    """Where two JSON values differ, as paths (at most ``MAX_DIFFERENCES``)."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        out = []
        for key in sorted(set(recorded) | set(replayed), key=str):
            out += _differences(recorded.get(key), replayed.get(key), f"{path}.{key}")
        return out[:MAX_DIFFERENCES]
    if isinstance(recorded, list) and isinstance(replayed, list) and len(recorded) == len(replayed):
        out = []
        for i, (a, b) in enumerate(zip(recorded, replayed)):
            out += _differences(a, b, f"{path}[{i}]")
        return out[:MAX_DIFFERENCES]
    return [] if recorded == replayed else [{"path": path, "recorded": recorded, "replayed": replayed}]


@dataclass
class Regrade:
    path: str
    task: str | None
    recorded_version: int | None
    version: int | None
    before: float | None
    after: float | None
    passed_before: bool | None
    passed_after: bool | None
    divergences: int
    reward: Any = None
    error: str | None = None


def regrade(source, store: EpisodeStore | None = None, catalog=None) -> Regrade:
    """Rebuild the final state by replay, grade it with the current task definition, and set the
    reward beside the one the footer recorded."""
    file = source if isinstance(source, TrajectoryFile) else read(source)
    footer, task = file.footer, file.header.task
    out = Regrade(str(file.path), task.id if task else None, task.version if task else None, None,
                  footer.total if footer else None, footer.passed if footer else None, None, None, 0)
    if task is None:
        out.error = "not a task episode: nothing to grade"
        return out
    store = store if store is not None else EpisodeStore(trajectory_dir=None, idle_timeout=None)
    if catalog is None:
        from simulator.tasks.catalog import task_catalog
        catalog = task_catalog(store)
    try:
        done = replay(file, store, catalog)
        out.divergences, out.version = len(done.divergences), done.run.task.version
        out.reward = catalog.engine.grade(done.run)
    except (OpError, TaskError) as exc:  # a task gone or broken: reported in the table, the other files go on
        out.error = f"{type(exc).__name__}: {exc}"
        return out
    out.after, out.passed_after = out.reward.total, out.reward.passed
    store.delete(done.episode.id)
    return out
