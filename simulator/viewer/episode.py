"""What the viewer shows of one trajectory file: its steps, each write's state diff, the reward and its citations.

State diffs come from replay (``simulator.trajectories.replay``): the file's writes are run again on a
fresh episode and, after each one, the apps' state is compared with the start (``tasks.diff``: the
state after the task's setup, or the world's own for an episode without a task). A step's diff is
what that write added or changed among those changes. Where replay cannot run (the world or the task
is gone), stops (a snapshot was restored) or diverges from the recording, the view says so instead.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from apps.kit import changes as change_log
from apps.kit.database import AppDatabase
from apps.kit.errors import OpError
from apps.kit.trajectory import Step
from simulator.trajectories.files import TrajectoryFile
from simulator.trajectories.replay import Replay, replay
from tasks.diff import diff
from tasks.records import State
from tasks.session import TaskError

StepKind = Literal["agent", "setup", "peer", "npc", "event", "other"]


@dataclass
class StepView:
    step: Step
    kind: StepKind
    changes: list[dict] | None = None     # this write's changes, against the start; None: not computed
    diff_note: str = ""                   # why there is no diff, or what it is worth
    shots: list[str] = field(default_factory=list)   # PNG screenshots as data: URIs
    cited_by: list[str] = field(default_factory=list)


@dataclass
class EpisodeView:
    file: TrajectoryFile
    steps: list[StepView]
    diff_note: str = ""                   # about the diffs of the whole file
    citations: dict[str, list[int]] = field(default_factory=dict)   # criterion id -> step indices

    @property
    def id(self) -> str:
        return self.file.header.episode

    @property
    def reward(self) -> dict | None:
        return self.file.footer.reward if self.file.footer else None


def kind_of(step: Step) -> StepKind:
    """Setup steps set the scene; peer steps are apps answering each other (an invitation mailed); ``npc`` and
    ``event`` steps are the world acting by itself (a co-worker replying, a scheduled event); ``other`` is a call
    made as someone else."""
    if step.surface in ("setup", "peer", "npc", "event"):
        return step.surface
    return "other" if step.actor is not None else "agent"


def episode_view(file: TrajectoryFile, store=None, catalog=None, diffs: bool = True) -> EpisodeView:
    """The view of ``file``; with ``diffs``, its writes are replayed (``store`` and ``catalog`` as ``replay`` takes them)."""
    view = EpisodeView(file, [StepView(s, kind_of(s)) for s in file.steps])
    _attach_shots(view)
    if diffs:
        _attach_diffs(view, store, catalog)
    else:
        view.diff_note = "state diffs were not computed (asked not to)"
    view.citations = citations(view.reward, file.steps)
    for criterion, indices in view.citations.items():
        for sv in view.steps:
            if sv.step.index in indices:
                sv.cited_by.append(criterion)
    return view


class _Differ:
    """After each replayed write: the changes since the start, and which of them are new."""

    def __init__(self, view: EpisodeView):
        self.view = view
        self.by_index = {sv.step.index: sv for sv in view.steps}
        self.start: State | None = None
        self.marks: dict[str, int | None] = {}
        self.seen: dict[tuple, dict] = {}
        self.diverged: int | None = None

    def __call__(self, step: Step, result: Replay) -> None:
        if self.start is None:
            self.start, self.marks = _start(result)
        if self.diverged is None and result.divergences:
            self.diverged = result.divergences[0].step
        episode = result.episode
        current = State({app: episode.read_db(app).conn if app in episode.opened else conn
                         for app, conn in self.start.connections.items()})
        now = {}
        for change in diff(self.start, current, [a for a in episode.opened if a in self.start.connections],
                           marks=self.marks):
            described = {"app": change.app, **change.describe()}
            now[(change.app, change.table, tuple(change.key))] = described
        sv = self.by_index[step.index]
        sv.changes = [d for k, d in now.items() if self.seen.get(k) != d]
        sv.changes += [{**d, "change": "undone"} for k, d in self.seen.items() if k not in now]
        if self.diverged is not None:
            sv.diff_note = f"replay diverged from the recording at step {self.diverged}: this diff is the replay's"
        self.seen = now


def _start(result: Replay) -> tuple[State, dict[str, int | None]]:
    if result.run is not None:
        return result.run.prepared.state, result.run.prepared.marks
    images = result.episode.world.images
    state = State({app: AppDatabase.from_image(images[app]).conn for app in result.episode.apps})
    return state, {app: change_log.mark(conn) for app, conn in state.connections.items()}


def _attach_diffs(view: EpisodeView, store, catalog) -> None:
    differ = _Differ(view)
    try:
        done = replay(view.file, store, catalog, after=differ)
    except (OpError, TaskError, KeyError, OSError, ValueError) as exc:
        view.diff_note = f"no state diffs: this file could not be replayed ({type(exc).__name__}: {exc})"
        _note_writes(view, "not computed: the file could not be replayed")
        return
    notes = list(done.notes)
    if done.divergences:
        notes.append(f"{len(done.divergences)} divergence(s) from the recording: "
                     + "; ".join(d.describe().splitlines()[0] for d in done.divergences[:3]))
    view.diff_note = " · ".join(notes)
    if store is not None:
        store.delete(done.episode.id)
    _note_writes(view, "not computed: replay stopped before this step (a snapshot was restored)")


def _note_writes(view: EpisodeView, why: str) -> None:
    for sv in view.steps:
        if sv.changes is not None or not sv.step.mutates:
            continue
        if sv.step.error is not None:
            sv.diff_note = "refused: the write changed nothing"
        elif sv.kind == "setup":
            sv.diff_note = "setup: part of the start every diff is taken against"
        elif sv.kind in ("peer", "npc", "event"):
            sv.diff_note = "its changes are shown on the step that set it off (replay derives it again)"
        else:
            sv.diff_note = sv.diff_note or why


def _attach_shots(view: EpisodeView) -> None:
    """Screenshots kept beside the file: ``<file stem>.shots/step-<index>*.png``."""
    folder = view.file.path.with_suffix(".shots")
    if not folder.is_dir():
        return
    for sv in view.steps:
        for png in sorted(folder.glob(f"step-{sv.step.index}.png")) + sorted(folder.glob(f"step-{sv.step.index}-*.png")):
            sv.shots.append("data:image/png;base64," + base64.b64encode(png.read_bytes()).decode())


_STEP_WORDS = re.compile(r"\bsteps?\s*\[?((?:\d+\s*,?\s*)+)")


def citations(reward: dict | None, steps: list[Step]) -> dict[str, list[int]]:
    """Per criterion, the steps it cites: named in its message ("step 4", "steps [3, 5]"), listed in its
    evidence (indices, ``[index, tool]`` pairs), the answer step for an answer, and the steps whose
    arguments or result hold a record id its evidence shows (writes first; reads when no write does)."""
    if not reward:
        return {}
    known = {s.index for s in steps}
    out = {}
    for criterion in reward.get("criteria", []):
        cited = _named(criterion.get("message") or "") | _listed(criterion.get("evidence"))
        cited |= _by_record(criterion.get("evidence"), steps)
        if isinstance(criterion.get("evidence"), dict) and "answer" in criterion["evidence"]:
            cited |= {s.index for s in steps if s.app == "task" and s.error is None}
        hits = sorted(cited & known)
        if hits:
            out[criterion["id"]] = hits
    return out


def _named(message: str) -> set[int]:
    return {int(n) for match in _STEP_WORDS.finditer(message) for n in re.findall(r"\d+", match.group(1))}


def _listed(evidence: Any) -> set[int]:
    """Indices listed in the evidence: a list of them, ``[index, tool]`` pairs, or records' ``steps``."""
    if not isinstance(evidence, list):
        return set()
    if all(type(e) is int for e in evidence):
        return set(evidence)
    out = {e[0] for e in evidence if isinstance(e, (list, tuple)) and e and type(e[0]) is int}
    return out | {i for e in evidence if isinstance(e, dict) for i in e.get("steps") or [] if type(i) is int}


def _ids(evidence: Any) -> set[str]:
    records = evidence if isinstance(evidence, list) else [evidence]
    out: set[str] = set()
    for record in records:
        if not isinstance(record, dict):
            continue
        for name in ("id", "key"):
            value = record.get(name) if name in record else (record.get("record") or {}).get(name)
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, (str, int)) and len(str(v)) >= 3:
                    out.add(str(v))
    return out


def _by_record(evidence: Any, steps: list[Step]) -> set[int]:
    ids = _ids(evidence)
    if not ids:
        return set()
    acting = [s for s in steps if s.surface != "setup" and s.error is None]
    mentions = lambda s: any(i in json.dumps(s.arguments, default=str) or i in s.result_json.decode() for i in ids)  # noqa: E731
    writes = {s.index for s in acting if s.mutates and mentions(s)}
    return writes or {s.index for s in acting if mentions(s)}


def shot_folder(trajectory: Path) -> Path:
    """Where screenshots of a file's GUI steps are kept (``step-<index>.png``)."""
    return trajectory.with_suffix(".shots")
