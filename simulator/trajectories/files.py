"""The trajectory file format, the recorder that writes it and the reader.

One JSON object per line, each with a ``kind``:

    header   first line: format, episode, task (id, version, prompt), world (name, ref, content hash),
             actor, seed, start (wall and virtual), officeworld version, forked_from, meta
    step     one per call from any surface (setup and the final answer included), as it is answered;
             the line is the ``Step`` itself. Each line is flushed, so a killed server loses no
             answered step.
    event    something that is not a call but changes what replay can do (a snapshot restored)
    footer   at finish: the reward and its breakdown, and the digest of every app the episode opened;
             on delete without finish, a footer with no reward. Steps after a footer reopen the file:
             only a footer on the last line makes it finished.

A file whose last line is not a footer is unfinished, not broken; a half-written last line (the
process died mid-write) is dropped when read.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field

from apps.kit.episode import Episode
from apps.kit.errors import OpError
from apps.kit.trajectory import Step

FORMAT = 1
_STEP_HEAD = b'{"kind":"step",'


def officeworld_version() -> str:
    try:
        return version("officeworld")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


class TaskRef(BaseModel):
    id: str
    version: int
    prompt: str = ""


class Header(BaseModel):
    model_config = ConfigDict(extra="ignore")
    kind: Literal["header"] = "header"
    format: int = FORMAT
    episode: str
    task: TaskRef | None = None
    world: str
    world_ref: str = Field(description="What the episode was created from: a shipped world's name or a folder")
    world_hash: str
    actor: str
    seed: int | None = Field(None, description="Episodes are deterministic; kept for runs that seed their policy")
    started: datetime
    virtual_start: datetime
    officeworld: str
    forked_from: str | None = None
    salt: str = Field("", description="What the co-workers' model replies are keyed by (scenarios.people.llm)")
    models: str = Field("off", description="How model-backed co-workers answered: off (by rules) or live")
    meta: dict[str, Any] = Field(default_factory=dict, description="The creator's labels (a run, a sample index)")


class Footer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    kind: Literal["footer"] = "footer"
    ended: datetime
    reason: Literal["finish", "delete"]
    steps: int
    reward: dict | None = None
    total: float | None = None
    passed: bool | None = None
    breakdown: dict[str, float] | None = None
    digests: dict[str, str] = Field(default_factory=dict, description="Per app the episode opened, its state digest")


class Recorder:
    """Streams one episode's trajectory to ``path``: called by the invoker after every step."""

    def __init__(self, path: Path, header: Header, steps: Sequence[Step] = (), *, reopen: bool = False):
        """``reopen``: go on appending to the file of an episode rebuilt from it (no new header)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.header = header
        self.finished = False
        self._lock = threading.Lock()
        if reopen:  # a half-written last line (the process died mid-write) is cut, so new lines start clean
            data = path.read_bytes()
            if data and not data.endswith(b"\n"):
                with path.open("r+b") as fh:
                    fh.truncate(data.rfind(b"\n") + 1)
        self._file = path.open("ab", buffering=0)   # each line one write(2): in the file once it is written
        if reopen:
            return
        self._write(header.model_dump_json())
        for step in steps:   # a fork starts with its parent's steps so that the file replays alone
            self(step)

    def __call__(self, step: Step) -> None:
        self._put(step.json_bytes(_STEP_HEAD) + b"\n")
        self.finished = False

    def event(self, name: str, **data: Any) -> None:
        self._write(json.dumps({"kind": "event", "event": name, **data}, default=str))

    def footer(self, episode: Episode, reason: Literal["finish", "delete"], reward=None) -> None:
        digests = {}
        for app in episode.opened:
            try:
                digests[app] = episode.host(app).digest(episode.id)
            except OpError:  # an app service that went away: its state is lost, the file still ends
                pass
        footer = Footer(ended=datetime.now(timezone.utc), reason=reason, steps=len(episode.trajectory),
                        digests=digests)
        if reward is not None:
            footer.reward = reward.model_dump(mode="json")
            footer.total, footer.passed, footer.breakdown = reward.total, reward.passed, reward.breakdown()
        self._write(footer.model_dump_json())
        self.finished = True

    def close(self) -> None:
        with self._lock:
            self._file.close()

    def _write(self, line: str) -> None:
        self._put(line.encode() + b"\n")

    def _put(self, data: bytes) -> None:
        with self._lock:
            if not self._file.closed:
                written = self._file.write(data)
                while written < len(data):   # a regular file takes it all at once, short of a full disk or a signal
                    data = data[written:]
                    written = self._file.write(data)


def header_for(episode: Episode, compiled, task=None, forked_from: str | None = None,
               meta: dict | None = None) -> Header:
    """The header of a new episode's file (``compiled`` is the store's ``CompiledWorld``)."""
    return Header(
        episode=episode.id, task=TaskRef(id=task.id, version=task.version, prompt=task.prompt) if task else None,
        world=compiled.name, world_ref=episode.world_ref, world_hash=compiled.content_hash, actor=episode.actor,
        started=datetime.now(timezone.utc), virtual_start=episode.clock.now(), officeworld=officeworld_version(),
        forked_from=forked_from, salt=episode.salt, models=episode.models, meta=meta or {})


class TrajectoryFileError(ValueError):
    """Not a trajectory file (no header, or a line that is not a record), with the line named."""


@dataclass
class TrajectoryFile:
    path: Path
    header: Header
    steps: list[Step] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    footer: Footer | None = None   # the last footer, when it is the last record

    @property
    def finished(self) -> bool:
        return self.footer is not None

    @property
    def writes(self) -> list[Step]:
        return [s for s in self.steps if s.mutates]


def read(path: Path) -> TrajectoryFile:
    """Parse a file; a torn last line (written by a process that died) is ignored."""
    # Records end at "\n" only: ``splitlines`` also cuts at U+2028 and the like, which JSON text may hold raw.
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        raise TrajectoryFileError(f"{path}: empty file, not a trajectory")
    records = []
    for number, line in enumerate(lines, 1):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            if number == len(lines):
                break
            raise TrajectoryFileError(f"{path}:{number}: not a JSON record") from None
    if not records or records[0].get("kind") != "header":
        raise TrajectoryFileError(f"{path}:1: the first line must be a header")
    out = TrajectoryFile(Path(path), Header.model_validate(records[0]))
    for number, record in enumerate(records[1:], 2):
        kind = record.pop("kind", None)
        if kind == "step":
            out.steps.append(Step.model_validate(record))
        elif kind == "event":
            out.events.append({**record, "after_step": len(out.steps)})
        elif kind != "footer":
            raise TrajectoryFileError(f"{path}:{number}: unknown record kind {kind!r}")
        out.footer = Footer.model_validate(record) if kind == "footer" else None
    return out


def files_in(target: Path) -> list[Path]:
    """``target`` itself, or every ``*.jsonl`` under a folder, sorted."""
    target = Path(target)
    return sorted(target.rglob("*.jsonl")) if target.is_dir() else [target]
