"""An episode's state: its own copy of every app's state, a virtual clock and a trajectory."""

from __future__ import annotations

import io
import json
import threading
import zipfile
from datetime import datetime
from hashlib import sha256
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Protocol

from apps.kit import snapshots
from apps.kit.clock import EventQueue, VirtualClock
from apps.kit.database import AppDatabase
from apps.kit.errors import LostEpisode
from apps.kit.host import AppHost, LocalHost, Outcome
from apps.kit.operation import Operation, OperationSet
from apps.kit.trajectory import Step

if TYPE_CHECKING:
    from apps.kit.reactor import Reactor
    from worlds.model import WorldInfo


class EpisodeWorld(Protocol):
    """What an episode keeps of its world (``simulator.store.episodes.CompiledWorld``)."""

    @property
    def name(self) -> str: ...
    @property
    def root(self) -> Path: ...
    @property
    def info(self) -> WorldInfo: ...
    @property
    def images(self) -> Mapping[str, bytes]: ...  # each app's pristine database image (read on first use)


class Episode:
    """One isolated run of an agent in a world.

    Each app's state lives in that app's ``AppHost`` (in this process or in an app service). It is
    opened from the world's pristine copy on first use, so creating an episode costs nothing per
    app it never touches. ``world_ref`` is how hosts find the world (a shipped name or a folder
    path). ``lock`` serialises calls into the episode. ``events`` is what is due to happen and
    ``reactor`` what makes it happen (``apps.kit.reactor``; none by default: nothing happens unless
    someone acts).
    """

    def __init__(self, id: str, world: EpisodeWorld, actor: str, hosts: dict[str, AppHost], clock: VirtualClock,
                 world_ref: str | None = None, operations: dict[str, OperationSet] | None = None):
        self.id = id
        self.world = world
        self.world_ref = world_ref or str(world.root)
        self.actor = actor
        self.hosts = hosts
        self.clock = clock
        self.trajectory: list[Step] = []
        self.recorder: Callable[[Step], None] | None = None  # called with each step as it is appended (trajectory files)
        self.browser_actions: list = []  # BrowserAction records of a browser agent (simulator/gui/browser.py)
        self.tools: frozenset[str] | None = None  # the apps whose tools the agent is offered (None: every app's)
        self.lock = threading.RLock()
        self._opened: set[str] = set()
        self.operations = operations or {}
        self.events = EventQueue()
        self.reactor: Reactor | None = None
        self.settling = False   # the reactor is firing: the steps it makes do not settle again
        # Model-backed co-workers (scenarios.people.llm): how they answer (off: by their rules; live: the model,
        # through the reply cache; cached: the cache only, as in a replay), and the salt their replies are keyed by.
        self.models = "off"
        self.salt = ""
        # The last snapshot restored (its images, and the trajectory's length then): where a rebuild starts.
        self._restored: tuple[dict[str, bytes], int] | None = None

    def operation(self, app: str, name: str) -> Operation | None:
        """An operation of one of this episode's apps, by name (how peer requests find their target)."""
        ops = self.operations.get(app) if app in self.hosts else None
        return ops.operations.get(name) if ops is not None else None

    @property
    def apps(self) -> list[str]:
        return sorted(self.hosts)

    @property
    def opened(self) -> list[str]:
        """The apps whose state this episode has opened (any other is still the world's pristine copy)."""
        return sorted(self._opened)

    def host(self, app: str) -> AppHost:
        """The app's host, with this episode's state opened there."""
        with self.lock:
            if app not in self._opened:
                self.hosts[app].open(self.id, self.world_ref)
                self._opened.add(app)
            return self.hosts[app]

    def call(self, op: Operation, kwargs: dict, actor: str, now: datetime) -> Outcome:
        """Run ``op`` on its app's host; if the host lost this episode (an app service that restarted),
        rebuild the app's state there first (``rebuild``) and run it again."""
        host = self.host(op.app)
        if type(host) is LocalHost:   # its result goes only into a step, whose encoding writes NaN as null
            return host.call(self.id, op, kwargs, actor, now, finite=False)
        try:
            return host.call(self.id, op, kwargs, actor, now)
        except LostEpisode:
            self.rebuild(op.app)
            return host.call(self.id, op, kwargs, actor, now)

    def rebuild(self, app: str) -> None:
        """Give ``app``'s host this episode's state again from what the gateway knows: the world's
        pristine copy (or the last snapshot restored), then every successful write the trajectory
        holds for that app (peer steps included, their own requests not re-run), each at its recorded
        virtual time as its recorded person. State is deterministic, so the state is as it was."""
        with self.lock:
            images, start = self._restored or ({}, 0)
            host = self.hosts[app]
            host.open(self.id, self.world_ref, image=images.get(app))
            self._opened.add(app)
            operations = self.operations[app].operations
            for step in self.trajectory[start:]:
                if step.app == app and step.mutates and step.error is None:
                    op = operations[step.operation]
                    host.call(self.id, op, op.validate(step.arguments), step.actor or self.actor, step.virtual_time)

    def db(self, app: str) -> AppDatabase:
        """The app's database, for an app hosted in this process (tests and benchmarks read it)."""
        host = self.host(app)
        if not isinstance(host, LocalHost):
            raise TypeError(f"{app} runs in a separate service; read its state through digest() or snapshot()")
        return host.database(self.id)

    def read_db(self, app: str) -> AppDatabase:
        """The app's database to read only (grading, checks): for an app this episode has not written,
        the world's pristine copy or a fork's parent's, which episodes share, so reading clones nothing
        (``db`` would copy it first). Never write through it."""
        host = self.host(app)
        if not isinstance(host, LocalHost):
            raise TypeError(f"{app} runs in a separate service; read its state through digest() or snapshot()")
        return host.shared(self.id)

    def image(self, app: str) -> bytes:
        return self.host(app).image(self.id)

    def fork(self, new_id: str) -> "Episode":
        """A copy of the live state, clock and trajectory so far, which then diverges on its own."""
        with self.lock:
            child = Episode(new_id, self.world, self.actor, self.hosts, self.clock.copy(), self.world_ref,
                            self.operations)
            child.trajectory = list(self.trajectory)
            child.browser_actions = list(self.browser_actions)
            child.tools = self.tools
            child._restored = self._restored
            child.events, child.reactor = self.events.copy(), self.reactor
            child.models, child.salt = self.models, self.salt
            for app in sorted(self._opened):
                self.hosts[app].open(new_id, self.world_ref, fork_from=self.id)
                child._opened.add(app)
            return child

    def digests(self) -> dict[str, str]:
        with self.lock:
            out = {}
            for app in self.apps:
                try:
                    out[app] = self.host(app).digest(self.id)
                except LostEpisode:
                    self.rebuild(app)
                    out[app] = self.host(app).digest(self.id)
            return out

    def digest(self) -> str:
        """One digest of every app's content: equal digests mean equal state."""
        return sha256(json.dumps(self.digests(), sort_keys=True).encode()).hexdigest()

    def app_states(self) -> dict[str, str | None]:
        """Per app, ``None`` when its state is reachable, else the reason it is not."""
        with self.lock:
            return {app: self.hosts[app].status(self.id, app in self._opened) for app in self.apps}

    def snapshot(self) -> bytes:
        """The state as bytes (a zip of each app's database and the clock); see ``restore``."""
        with self.lock:
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
                meta = {"world": self.world.name, "actor": self.actor, "now": self.clock.now().isoformat()}
                zf.writestr("episode.json", json.dumps(meta))
                zf.writestr("events.json", json.dumps(self.events.dump()))
                for app in self.apps:
                    zf.writestr(f"{app}.sqlite", self.image(app))
            return buffer.getvalue()

    def restore(self, snapshot: bytes) -> None:
        """Return the apps, the clock and the event queue to a snapshot of this world; the trajectory and the
        acting person are kept. The snapshot is checked whole first (``snapshots.read``: ``SnapshotError`` says
        what is wrong, and nothing changed), then every app is swapped; a host that fails midway gets its state
        back."""
        images, now, events = snapshots.read(snapshot, self.world.name, self.apps, self._schema)
        with self.lock:
            remote = [app for app in self._opened if not isinstance(self.hosts[app], LocalHost)]
            previous = {app: self.image(app) for app in remote}
            swapped: list[str] = []
            try:
                for app, image in images.items():
                    self.hosts[app].open(self.id, self.world_ref, image=image)
                    swapped.append(app)
            except Exception:
                for app in swapped:
                    self.hosts[app].open(self.id, self.world_ref, image=previous.get(app))
                raise
            self._opened.update(images)
            self._restored = (images, len(self.trajectory))
            self.clock = VirtualClock(now, self.clock.tick_size)
            events.observed = len(self.trajectory)   # the steps before the restore are not the snapshot's to react to
            self.events = events

    def _schema(self, app: str) -> frozenset:
        """The tables ``app``'s state holds, read from this episode's own copy (an image of it from a service)."""
        host = self.host(app)
        if isinstance(host, LocalHost):
            return snapshots.schema(host.shared(self.id).conn)
        return snapshots.image_schema(host.image(self.id))

    def close(self) -> None:
        with self.lock:
            for app in self._opened:
                self.hosts[app].close(self.id)
            self._opened.clear()
