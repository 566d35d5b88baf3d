"""Rebuild a server's live episodes from their trajectory files after a crash (``officeworld up --resume``).

Each file whose last record is not a footer belongs to an episode that was live when the server
died (a finished or deleted episode's file ends with its footer). Such an episode is made again
with the same id, world and acting person; a task episode runs its task's setup again; then every
recorded write is re-run at its recorded virtual time as its recorded person, its result compared
with the recorded one (``replay``). The episode then takes the recorded steps as its trajectory
(reads included, same indices), its clock where it stood, and goes on appending to the same file,
so clients carry on with the same URLs. State is deterministic, so the rebuilt state equals the
state before the crash: every answered step was flushed to the file before its answer left.
A refused step changed nothing and is not run again (``replay.replayable``).

Not rebuilt (``skipped``): an episode that restored a snapshot (the file cannot say what the snapshot
held), an episode created with ``record: false`` (it has no file), a file that cannot be read or names
no valid episode id, and one whose rebuild fails in any way. Stopped (``error``): an episode whose
replay diverged from its file; it is not served, since its state would not be the one its clients saw.
Each is reported with its reason; its file is left as it is. One episode's failure never stops the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from apps.kit.clock import LATEST, VirtualClock
from apps.kit.errors import Invalid, OpError
from simulator.store.episodes import EpisodeStore
from simulator.trajectories.files import Recorder, TrajectoryFile, TrajectoryFileError, read
from simulator.trajectories.replay import Replay, _replay_step, replayable, replaying

_EPISODE_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")   # what ``EpisodeStore`` makes: a path segment, never ".."


@dataclass
class Resumed:
    episode: str
    status: str                      # "resumed", "skipped" (not rebuilt) or "error" (stopped: diverged)
    steps: int = 0
    replayed: int = 0
    reason: str | None = None
    divergences: list[str] = field(default_factory=list)

    def describe(self) -> str:
        if self.status == "error":
            return f"{self.episode}: stopped, not served: {self.reason}"
        if self.status != "resumed":
            return f"{self.episode}: not resumed: {self.reason}"
        text = f"{self.episode}: resumed ({self.steps} steps, {self.replayed} writes re-run)"
        return text + "".join(f"\n  diverged: {d}" for d in self.divergences)


def resume(store: EpisodeStore, catalog=None) -> list[Resumed]:
    """Rebuild every unfinished episode whose file is in ``store.trajectory_dir`` and not live yet;
    ``catalog`` (a ``tasks.catalog.Catalog``) is needed for task episodes."""
    if store.trajectory_dir is None or not store.trajectory_dir.is_dir():
        return []
    out = []
    for path in sorted(store.trajectory_dir.glob("*.jsonl")):
        try:
            file = read(path)
        except (TrajectoryFileError, ValueError, RecursionError, OSError) as exc:
            out.append(Resumed(path.stem, "skipped", reason=f"unreadable file: {_short(exc)}"))
            continue
        if file.finished or file.header.episode in store:
            continue
        out.append(_guarded(store, catalog, file))
    return out


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {'; '.join(str(exc).splitlines()[:3])[:300]}"


def _guarded(store: EpisodeStore, catalog, file: TrajectoryFile) -> Resumed:
    """``_resume_one``, any failure of it reported as that episode's reason: the server still starts."""
    try:
        return _resume_one(store, catalog, file)
    except Exception as exc:
        if file.header.episode in store:
            store.delete(file.header.episode)   # no recorder yet: the file is left untouched
        return Resumed(file.header.episode, "skipped", reason=f"could not be rebuilt ({_short(exc)})")


def _resume_one(store: EpisodeStore, catalog, file: TrajectoryFile) -> Resumed:
    header = file.header
    if not _EPISODE_ID.fullmatch(header.episode):
        return Resumed(header.episode, "skipped", reason="the file names no valid episode id")
    if any(e.get("event") == "restore" for e in file.events):
        return Resumed(header.episode, "skipped", reason="it restored a snapshot, which its file cannot rebuild")
    if file.path.stem != header.episode:
        return Resumed(header.episode, "skipped", reason=f"the file {file.path.name} names another episode")
    try:
        # Rebuilt from the co-workers' cached replies only (never asked again); live again once rebuilt.
        episode = store.create(header.world_ref, header.actor, episode_id=header.episode, meta=header.meta,
                               salt=header.salt, models=replaying(header.models))
    except OpError as exc:
        return Resumed(header.episode, "skipped", reason=exc.message)
    try:
        run = None
        if header.task is not None:
            if catalog is None:
                raise Invalid("a task episode needs the server's task catalog", field="task")
            run = catalog.start(header.task.id, include_quarantined=True, episode=episode)
        result = Replay(file, episode, run)
        operations = {f"{op.app}.{op.name}": op for app in store.apps.values() for op in app.operations}
        for step in file.steps:
            if (step.surface == "setup" and run is not None) or step.surface in ("peer", "event", "npc") \
                    or not replayable(step):
                continue  # setup ran again with the task; peer, event and NPC steps are set off again
            _replay_step(result, step, operations)
            if result.divergences:   # what follows would be built on state the file does not describe
                store.delete(episode.id)
                return Resumed(header.episode, "error", replayed=result.replayed,
                               reason=f"diverged from its file at {result.divergences[0].describe()}",
                               divergences=[d.describe() for d in result.divergences])
    except OpError as exc:
        store.delete(episode.id)   # no recorder yet: the file is left untouched
        return Resumed(header.episode, "skipped", reason=exc.message)
    with episode.lock:
        episode.trajectory = list(file.steps)
        episode.events.observed = len(file.steps)   # the replay has set off (and queued) all they set off
        episode.clock = _clock_after(file, episode.clock)
        episode.recorder = Recorder(file.path, header, reopen=True)
        episode.models = header.models
    return Resumed(episode.id, "resumed", len(file.steps), result.replayed,
                   divergences=[d.describe() for d in result.divergences])


def _clock_after(file: TrajectoryFile, clock: VirtualClock) -> VirtualClock:
    """Where the clock stood: a tick past the last step, or a later recorded clock move."""
    now = clock.now()
    if file.steps:
        now = file.steps[-1].virtual_time + clock.tick_size
    for event in file.events:
        if event.get("event") == "clock" and event.get("now"):
            now = max(now, datetime.fromisoformat(event["now"]))
    if now > LATEST:
        raise Invalid(f"the file's clock stands at {now:%Y-%m-%d}, past the latest a clock may stand ({LATEST:%Y-%m-%d})")
    return VirtualClock(now, clock.tick_size)

