"""Where an app's per-episode state lives: the one seam between the simulator and an app's storage.

An ``AppHost`` keeps one app's state for many episodes. ``LocalHost`` keeps it in this process
(in-memory SQLite clones of the world's pristine image); ``RemoteHost`` (``apps.kit.remote``) asks an
app service over its internal admin API, which runs a ``LocalHost`` itself. The invoker validates
arguments, keeps the clock and records the Step wherever the state lives; only execution moves.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Protocol

from apps.kit.app import App
from apps.kit.context import Ctx
from apps.kit.database import AppDatabase
from apps.kit.errors import NotFound, OpError
from apps.kit.limits import last_defence
from apps.kit.operation import Operation

if TYPE_CHECKING:
    from worlds.model import WorldInfo

# A world reference (a shipped world's name or a folder path) -> (the world's info, the app's pristine image).
WorldSource = Callable[[str], "tuple[WorldInfo, bytes]"]


@dataclass
class Outcome:
    """What one call did: its dumped result or its tool error, and whether it wrote anything."""

    result: Any = None
    error: dict | None = None
    state_changed: bool = False
    requests: list[dict] = field(default_factory=list)  # peer requests (``apps.kit.peers``), made on success


class AppHost(Protocol):
    app: str

    def open(self, episode_id: str, world: str, *, image: bytes | None = None,
             fork_from: str | None = None) -> None:
        """Give the episode its state: the world's pristine copy, ``image``, or a copy of ``fork_from``'s.
        Opening an episode that is already open replaces its state (that is how restore works)."""

    def call(self, episode_id: str, op: Operation, kwargs: dict[str, Any], actor: str, now: datetime) -> Outcome:
        """Run ``op`` with validated ``kwargs``; a tool error comes back in the outcome, a bug raises."""

    def digest(self, episode_id: str) -> str: ...

    def image(self, episode_id: str) -> bytes: ...

    def close(self, episode_id: str) -> None: ...

    def status(self, episode_id: str, opened: bool) -> str | None:
        """``None`` when the episode's state is reachable, else the reason it is not."""


class LocalHost:
    """An app's per-episode databases in this process."""

    def __init__(self, app: App, source: WorldSource):
        self.app = app.name
        self._source = source
        self._dbs: dict[str, AppDatabase] = {}
        self._infos: dict[str, WorldInfo] = {}
        # A fork shares its parent's database until one of them writes (copy on write): forking costs
        # no copy, and a fork that only reads never pays for one. Database -> the episodes sharing it.
        self._sharing: dict[AppDatabase, set[str]] = {}
        # Each world's pristine database, opened once and shared by every episode until it writes: a fresh
        # episode's first read costs what any read costs (no copy, no schema to parse), an app it only
        # reads costs no memory. World reference -> (the image it was opened from, the database).
        self._pristine: dict[str, tuple[bytes, AppDatabase]] = {}
        self._lock = threading.RLock()

    def open(self, episode_id: str, world: str, *, image: bytes | None = None,
             fork_from: str | None = None) -> None:
        info, pristine = self._source(world)
        with self._lock:
            if fork_from is not None:
                db = self.shared(fork_from)
                if not db.pristine:
                    self._sharing.setdefault(db, {fork_from}).add(episode_id)
            elif image is None:
                db = self._pristine_db(world, pristine)
            else:
                db = AppDatabase.from_image(image)
            self._release(episode_id)
            self._dbs[episode_id], self._infos[episode_id] = db, info

    def _pristine_db(self, world: str, image: bytes) -> AppDatabase:
        opened = self._pristine.get(world)
        if opened is None or opened[0] is not image:   # a world compiled again has a new image
            opened = self._pristine[world] = (image, AppDatabase.from_image(image, pristine=True))
        return opened[1]

    def shared(self, episode_id: str) -> AppDatabase:
        """The episode's database, perhaps shared with forks: only to read."""
        db = self._dbs.get(episode_id)
        if db is None:
            raise NotFound(f"{self.app} holds no episode {episode_id!r}", field="episode_id")
        return db

    def database(self, episode_id: str) -> AppDatabase:
        """The episode's own database (copied first if a fork still shares it), safe to write."""
        with self._lock:
            db = self.shared(episode_id)
            sharers = self._sharing.get(db)
            if not sharers and not db.pristine:
                return db
            own = db.clone()
            self._leave(db, episode_id)
            self._dbs[episode_id] = own
            return own

    def _leave(self, db: AppDatabase, episode_id: str) -> bool:
        """Take the episode out of ``db``'s sharers; true when nobody else holds ``db``."""
        sharers = self._sharing.get(db)
        if sharers is None:
            return True
        sharers.discard(episode_id)
        if len(sharers) <= 1:
            del self._sharing[db]
        return False

    def _release(self, episode_id: str) -> None:
        db = self._dbs.pop(episode_id, None)
        self._infos.pop(episode_id, None)
        if db is not None and not db.pristine and self._leave(db, episode_id):
            db.close()

    def call(self, episode_id: str, op: Operation, kwargs: dict[str, Any], actor: str, now: datetime, *,
             finite: bool = True) -> Outcome:
        """``AppHost.call``; the result holds no NaN or Infinity (``Operation.dump``) unless ``finite`` is false:
        the invoker's own call, whose step's encoding writes them ``null`` (``trajectory.kept``) as ``dump``
        would, without looking at every value of the result first."""
        db = self.database(episode_id) if op.mutates else self.shared(episode_id)
        conn = db.conn
        before = conn.total_changes   # ``db.changes()``
        ctx = Ctx(db, actor, now, self._infos[episode_id], episode_id)
        try:
            result = op.fn(ctx, **kwargs)
            data = op.dump(result) if finite else op.dumped(result)
        except OpError as exc:
            ctx.finish(commit=False)
            return Outcome(error=exc.to_dict())
        except BaseException as exc:
            ctx.finish(commit=False)
            refused = last_defence(exc, kwargs)  # an input SQLite or Python cannot take, not a bug
            if refused is None:
                raise
            return Outcome(error=refused.to_dict())
        # A read is rolled back too: whatever it touched by mistake does not stay.
        ctx.finish(commit=op.mutates)
        requests = ctx.peers.dump() if ctx.peers.requests else []
        return Outcome(data, None, conn.total_changes != before, requests)

    def digest(self, episode_id: str) -> str:
        return self.shared(episode_id).digest()

    def image(self, episode_id: str) -> bytes:
        return self.shared(episode_id).image()

    def close(self, episode_id: str) -> None:
        with self._lock:
            self._release(episode_id)

    def status(self, episode_id: str, opened: bool) -> str | None:
        return None

    def __len__(self) -> int:
        return len(self._dbs)
