"""The episode store: create, find, fork and delete episodes over compiled worlds.

Each app's state lives in one ``AppHost``: in this process by default, or in an app service when
``OFFICEWORLD_<APP>_URL`` (e.g. ``OFFICEWORLD_MAIL_URL=http://mail:8000``) names one.

With a trajectory folder (``OFFICEWORLD_TRAJECTORY_DIR``, or ``trajectory_dir``), every episode
streams its trajectory to ``<folder>/<episode id>.jsonl`` (``simulator.trajectories.files``);
``record`` at creation turns that off or on per episode. With an idle timeout
(``OFFICEWORLD_IDLE_TIMEOUT`` seconds), episodes with no call for that long are dropped when the
store is next asked to create or list.
"""

from __future__ import annotations

import contextlib
import math
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from apps.kit import App, Invalid, NotFound
from apps.kit.clock import VirtualClock
from apps.kit.episode import Episode
from apps.kit.host import AppHost, LocalHost
from apps.kit.remote import RemoteHost
from apps.kit.settings import Settings, settings
from simulator.store.compile import world_images
from simulator.store.memory import release_soon
from simulator.store.registry import APPS, world_sections
from simulator.trajectories.files import Recorder, header_for
from tasks.events import EventsError, install
from worlds import WorldError, content_hash, load_info
from worlds.model import WorldInfo


@dataclass
class CompiledWorld:
    """What episodes need of a world: its name, folder, ``world.yaml`` and each app's pristine image
    (``compile.Images``: read on first use)."""

    name: str
    root: Path
    info: WorldInfo
    images: Mapping[str, bytes]
    digest: str | None = None   # the files' digest the images were found by (made on first use when adopted)

    @property
    def content_hash(self) -> str:
        if self.digest is None:
            self.digest = content_hash(self.root)
        return self.digest


_FROM_ENV = object()  # a setting not given reads its environment variable


class EpisodeStore:
    """Every live episode of one server. Worlds are loaded and compiled once, on first use."""

    def __init__(self, apps: dict[str, App] = APPS, cache_dir: Path | None = None,
                 app_urls: dict[str, str] | None = None, trajectory_dir=_FROM_ENV, idle_timeout=_FROM_ENV):
        self.apps = apps
        self.cache_dir = cache_dir
        urls = app_urls_from_env(apps) if app_urls is None else app_urls
        # Where episodes stream their trajectory files; compose mounts a volume there.
        env = settings()
        if trajectory_dir is _FROM_ENV:
            trajectory_dir = env.trajectory_dir
        self.trajectory_dir = Path(trajectory_dir) if trajectory_dir else None
        if idle_timeout is _FROM_ENV:
            idle_timeout = env.idle_timeout or None
        self.idle_timeout: float | None = idle_timeout
        # How model-backed co-workers answer in new episodes (scenarios.people.llm): live when an endpoint is set.
        self.models = "live" if env.npc_url else "off"
        self.on_delete: list[Callable[[str], None]] = []   # told of every episode deleted or dropped
        self._created: dict[str, float] = {}
        self._last_sweep = time.monotonic()
        token = env.admin_token or None  # for remote app services
        self.hosts: dict[str, AppHost] = {
            name: RemoteHost(name, urls[name], token=token) if name in urls else LocalHost(app, self._source(name))
            for name, app in apps.items()}
        self._worlds: dict[str, CompiledWorld] = {}
        self._episodes: dict[str, Episode] = {}
        self._making = 0   # episodes being created or forked, not yet added (``emptied``)
        # One worker of ``up --workers N``: its tag goes into every id it makes (simulator/service/shards.py)
        self.worker = env.worker
        self._lock = threading.Lock()

    def _source(self, app: str):
        def source(world: str) -> tuple[object, bytes]:
            compiled = self.world(world)
            return compiled.info, compiled.images[app]
        return source

    def quick(self, world: str | None = None) -> bool:
        """Whether work on episodes (creating one of ``world``, forking, reading, deleting) is quick: every app
        in this process (no network round trip) and, with ``world``, the world already made ready (not
        seconds of compiling)."""
        return all(isinstance(h, LocalHost) for h in self.hosts.values()) and (world is None or world in self._worlds)

    def _local_apps(self) -> dict[str, App]:
        return {name: app for name, app in self.apps.items() if isinstance(self.hosts[name], LocalHost)}

    def world(self, name: str) -> CompiledWorld:
        with self._lock:
            if name not in self._worlds:
                try:
                    root, info = load_info(name, world_sections(self.apps))
                    # Once per world: an xl world's digest stats 105,000 files (trajectory headers carry it too).
                    digest = content_hash(root)
                    images = world_images(root, info.name, self._local_apps(), self.cache_dir, digest)
                except WorldError as exc:
                    raise NotFound(str(exc), field="world") from None
                self._worlds[name] = CompiledWorld(info.name, root, info, images, digest)
            return self._worlds[name]

    def adopt(self, name: str, images: Mapping[str, bytes]) -> CompiledWorld:
        """Serve world ``name`` from pristine images compiled elsewhere (shipped to a Ray node once)
        instead of compiling it here; only its ``world.yaml`` is read from the local folder."""
        try:
            root, info = load_info(name, world_sections(self.apps))
        except WorldError as exc:
            raise NotFound(str(exc), field="world") from None
        with self._lock:
            self._worlds[name] = CompiledWorld(info.name, root, info, dict(images))
            return self._worlds[name]

    def create(self, world: str, actor: str | None = None, *, task=None, record: bool | None = None,
               meta: dict | None = None, episode_id: str | None = None, salt: str = "",
               models: str | None = None) -> Episode:
        """A fresh episode; ``task`` (a ``tasks.model.Task``) goes into its trajectory file's header.
        ``episode_id`` is for an episode rebuilt from its file (``simulator.trajectories.resume``),
        which keeps its id and its file (no recorder is made here: the caller reopens the file).
        ``salt`` keys its co-workers' model replies (another salt, another reply); ``models`` is how they
        answer (``scenarios.people.llm``: by default live when an endpoint is configured, else off)."""
        self.drop_idle()
        with self._made():
            return self._create(world, actor, task=task, record=record, meta=meta, episode_id=episode_id,
                                salt=salt, models=models)

    def _create(self, world: str, actor: str | None, *, task, record: bool | None, meta: dict | None,
                episode_id: str | None, salt: str = "", models: str | None = None) -> Episode:
        compiled = self.world(world)
        info = compiled.info
        actor = (actor or info.default_actor).strip().lower()
        if actor not in info.people_by_email():
            raise Invalid(f"as: {actor} is not a person of world {world!r}", field="as")
        if episode_id is not None and episode_id in self._episodes:
            raise Invalid(f"episode_id: {episode_id} is already live", field="episode_id")
        episode = Episode(episode_id or _new_id(self.worker), compiled, actor, self.hosts, VirtualClock(info.now_utc),
                          world_ref=world,
                          operations={name: app.operations for name, app in self.apps.items()})
        episode.salt, episode.models = salt, models or self.models
        if record and self.trajectory_dir is None:
            raise Invalid("record: this server keeps no trajectory files (set OFFICEWORLD_TRAJECTORY_DIR)",
                          field="record")
        if task is None:   # a task's episode gets its world's people and events with the task's (``Tasks.begin``)
            try:
                install(episode)
            except EventsError as exc:
                raise Invalid(f"world: {exc}", field="world") from None
        if self.trajectory_dir is not None and record is not False and episode_id is None:
            episode.recorder = Recorder(self._file(episode.id), header_for(episode, compiled, task, meta=meta))
        self._add(episode)
        return episode

    @contextlib.contextmanager
    def _made(self):
        with self._lock:
            self._making += 1
        try:
            yield
        finally:
            with self._lock:
                self._making -= 1

    @contextlib.contextmanager
    def emptied(self):
        """Whether no episode is live nor being made, held true while inside: no episode can be added
        meanwhile (``simulator.store.memory`` freezes what is alive only then)."""
        with self._lock:
            yield not self._episodes and not self._making

    def activity(self) -> tuple[int, float]:
        """Live episodes, and the seconds since the last call in any of them (or its creation)."""
        live = self.list()
        return len(live), min((self.idle_for(e) for e in live), default=math.inf)

    def _file(self, episode_id: str) -> Path:
        assert self.trajectory_dir is not None  # asked only when episodes are recorded
        return self.trajectory_dir / f"{episode_id}.jsonl"

    def _add(self, episode: Episode) -> None:
        with self._lock:
            self._episodes[episode.id] = episode
            self._created[episode.id] = time.time()

    def get(self, episode_id: str) -> Episode:
        episode = self._episodes.get(episode_id)
        if episode is None:
            raise NotFound(f"no episode {episode_id!r}", field="episode_id")
        return episode

    def fork(self, episode_id: str) -> Episode:
        """A copy of the episode; when the parent keeps a file, so does the child (its file starts with
        the parent's header and steps, so that it replays alone)."""
        parent = self.get(episode_id)
        with self._made(), parent.lock:
            child = parent.fork(_new_id(self.worker))
            if isinstance(parent.recorder, Recorder):
                header = parent.recorder.header.model_copy(update={"episode": child.id, "forked_from": parent.id})
                child.recorder = Recorder(self._file(child.id), header, child.trajectory)
        self._add(child)
        return child

    def finished(self, episode: Episode, reward) -> None:
        """Write the footer with ``reward`` (a ``tasks.reward.Reward``) to the episode's file, if it keeps one."""
        if isinstance(episode.recorder, Recorder):
            with episode.lock:
                episode.recorder.footer(episode, "finish", reward)

    def restored(self, episode: Episode) -> None:
        """Note in the file that the state jumped to a snapshot (replay cannot pass that point)."""
        if isinstance(episode.recorder, Recorder):
            episode.recorder.event("restore", step=len(episode.trajectory))

    def clock_moved(self, episode: Episode) -> None:
        """Note in the file that the clock was moved (so that a resumed episode's clock stands there too)."""
        if isinstance(episode.recorder, Recorder):
            episode.recorder.event("clock", now=episode.clock.now().isoformat())

    def delete(self, episode_id: str) -> None:
        episode = self.get(episode_id)
        with self._lock:
            self._episodes.pop(episode_id, None)
            self._created.pop(episode_id, None)
        recorder = episode.recorder
        if isinstance(recorder, Recorder):
            with episode.lock:
                if not recorder.finished:
                    recorder.footer(episode, "delete")
                recorder.close()
        episode.close()
        for listener in self.on_delete:
            listener(episode_id)
        release_soon(self)

    def idle_for(self, episode: Episode) -> float:
        """Seconds since the episode's last call (or its creation)."""
        last = episode.trajectory[-1].wall_time.timestamp() if episode.trajectory else 0.0
        return time.time() - max(last, self._created.get(episode.id, 0.0))

    def drop_idle(self, force: bool = False) -> list[str]:
        """Delete the episodes idle longer than the idle timeout (at most once a second unless forced)."""
        if self.idle_timeout is None or (not force and time.monotonic() - self._last_sweep < 1.0):
            return []
        self._last_sweep = time.monotonic()
        idle = [e.id for e in self.list() if self.idle_for(e) > self.idle_timeout]
        for episode_id in idle:
            try:
                self.delete(episode_id)
            except NotFound:  # deleted meanwhile
                pass
        return idle

    def __contains__(self, episode_id: str) -> bool:
        return episode_id in self._episodes

    def __len__(self) -> int:
        return len(self._episodes)

    def list(self) -> list[Episode]:
        return list(self._episodes.values())


def app_urls_from_env(apps: dict[str, App]) -> dict[str, str]:
    """``OFFICEWORLD_<APP>_URL`` for each app that runs as its own service."""
    urls = {name: Settings.app_url(name) for name in apps}
    return {name: url for name, url in urls.items() if url}


def _new_id(worker: str = "") -> str:
    """``ep_`` and 16 hex digits; a worker of ``up --workers N`` puts its tag between (``ep_w1_...``)."""
    return f"ep_{worker}_{secrets.token_hex(8)}" if worker else "ep_" + secrets.token_hex(8)


def worker_of(episode_id: str) -> str | None:
    """The tag of the worker whose id this is (``ep_w1_...``: ``w1``, as ``_new_id`` makes it); None for one
    server's (``ep_`` and the hex digits only)."""
    parts = episode_id.split("_")
    return parts[1] if len(parts) == 3 and parts[0] == "ep" else None
