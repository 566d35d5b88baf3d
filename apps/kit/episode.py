"""An episode's state: its own copy of every app's database, a virtual clock and a trajectory."""

from __future__ import annotations

import io
import json
import threading
import zipfile
from datetime import datetime
from hashlib import sha256

from apps.kit.clock import VirtualClock
from apps.kit.database import AppDatabase
from apps.kit.trajectory import Step


class Episode:
    """One isolated run of an agent in a world.

    App databases are cloned from the world's pristine images on first use, so creating an
    episode costs nothing per app it never touches. ``lock`` serialises calls into the episode.
    """

    def __init__(self, id: str, world, actor: str, pristine: dict[str, bytes], clock: VirtualClock):
        self.id = id
        self.world = world
        self.actor = actor
        self.pristine = pristine
        self.clock = clock
        self.trajectory: list[Step] = []
        self.lock = threading.RLock()
        self._dbs: dict[str, AppDatabase] = {}

    @property
    def apps(self) -> list[str]:
        return sorted(self.pristine)

    def db(self, app: str) -> AppDatabase:
        with self.lock:
            if app not in self._dbs:
                self._dbs[app] = AppDatabase.from_image(self.pristine[app])
            return self._dbs[app]

    def image(self, app: str) -> bytes:
        with self.lock:
            return self._dbs[app].image() if app in self._dbs else self.pristine[app]

    def fork(self, new_id: str) -> "Episode":
        """A copy of the live state, clock and trajectory so far, which then diverges on its own."""
        with self.lock:
            child = Episode(new_id, self.world, self.actor, self.pristine, self.clock.copy())
            child.trajectory = list(self.trajectory)
            child._dbs = {app: db.clone() for app, db in self._dbs.items()}
            return child

    def digests(self) -> dict[str, str]:
        with self.lock:
            return {app: self.db(app).digest() for app in self.apps}

    def digest(self) -> str:
        """One digest of every app's content: equal digests mean equal state."""
        return sha256(json.dumps(self.digests(), sort_keys=True).encode()).hexdigest()

    def snapshot(self) -> bytes:
        """The state as bytes (a zip of each app's database and the clock); see ``restore``."""
        with self.lock:
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
                meta = {"world": self.world.name, "actor": self.actor, "now": self.clock.now().isoformat()}
                zf.writestr("episode.json", json.dumps(meta))
                for app in self.apps:
                    zf.writestr(f"{app}.sqlite", self.image(app))
            return buffer.getvalue()

    def restore(self, snapshot: bytes) -> None:
        """Return the apps and the clock to a snapshot of this world; the trajectory is kept."""
        with zipfile.ZipFile(io.BytesIO(snapshot)) as zf:
            meta = json.loads(zf.read("episode.json"))
            if meta["world"] != self.world.name:
                raise ValueError(f"snapshot is of world {meta['world']!r}, not {self.world.name!r}")
            images = {app: zf.read(f"{app}.sqlite") for app in self.apps}
        with self.lock:
            for db in self._dbs.values():
                db.close()
            self._dbs = {app: AppDatabase.from_image(image) for app, image in images.items()}
            self.clock = VirtualClock(datetime.fromisoformat(meta["now"]), self.clock.tick_size)
            self.actor = meta["actor"]

    def close(self) -> None:
        with self.lock:
            for db in self._dbs.values():
                db.close()
            self._dbs.clear()
