"""The episode store: create, find, fork and delete episodes over compiled worlds.

Each app's state lives in one ``AppHost``: in this process by default, or in an app service when
``OFFICEWORLD_<APP>_URL`` (e.g. ``OFFICEWORLD_MAIL_URL=http://mail:8000``) names one.
"""

from __future__ import annotations

import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from apps.kit import App, Invalid, NotFound
from apps.kit.clock import VirtualClock
from apps.kit.episode import Episode
from apps.kit.host import AppHost, LocalHost
from apps.kit.remote import RemoteHost
from apps.kit.trajectory import Trajectory
from simulator.compile import world_images
from simulator.registry import APPS
from worlds import WorldError, load_info
from worlds.model import WorldInfo


@dataclass
class CompiledWorld:
    """What episodes need of a world: its name, folder, ``world.yaml`` and each app's pristine image."""

    name: str
    root: Path
    info: WorldInfo
    images: dict[str, bytes]


class EpisodeStore:
    """Every live episode of one server. Worlds are loaded and compiled once, on first use."""

    def __init__(self, apps: dict[str, App] = APPS, cache_dir: Path | None = None,
                 app_urls: dict[str, str] | None = None):
        self.apps = apps
        self.cache_dir = cache_dir
        urls = app_urls_from_env(apps) if app_urls is None else app_urls
        # Where finished (deleted) episodes leave their trajectory; compose mounts a volume there.
        trajectories = os.environ.get("OFFICEWORLD_TRAJECTORY_DIR", "").strip()
        self.trajectory_dir = Path(trajectories) if trajectories else None
        token = os.environ.get("OFFICEWORLD_ADMIN_TOKEN", "").strip() or None  # for remote app services
        self.hosts: dict[str, AppHost] = {
            name: RemoteHost(name, urls[name], token=token) if name in urls else LocalHost(app, self._source(name))
            for name, app in apps.items()}
        self._worlds: dict[str, CompiledWorld] = {}
        self._episodes: dict[str, Episode] = {}
        self._lock = threading.Lock()

    def _source(self, app: str):
        def source(world: str) -> tuple[object, bytes]:
            compiled = self.world(world)
            return compiled.info, compiled.images[app]
        return source

    def _local_apps(self) -> dict[str, App]:
        return {name: app for name, app in self.apps.items() if isinstance(self.hosts[name], LocalHost)}

    def world(self, name: str) -> CompiledWorld:
        with self._lock:
            if name not in self._worlds:
                try:
                    root, info = load_info(name)
                    images = world_images(root, info.name, self._local_apps(), self.cache_dir)
                except WorldError as exc:
                    raise NotFound(str(exc), field="world") from None
                self._worlds[name] = CompiledWorld(info.name, root, info, images)
            return self._worlds[name]

    def create(self, world: str, actor: str | None = None) -> Episode:
        compiled = self.world(world)
        info = compiled.info
        actor = (actor or info.default_actor).strip().lower()
        if actor not in info.people_by_email():
            raise Invalid(f"as: {actor} is not a person of world {world!r}", field="as")
        episode = Episode(_new_id(), compiled, actor, self.hosts, VirtualClock(info.now_utc), world_ref=world)
        with self._lock:
            self._episodes[episode.id] = episode
        return episode

    def get(self, episode_id: str) -> Episode:
        episode = self._episodes.get(episode_id)
        if episode is None:
            raise NotFound(f"no episode {episode_id!r}", field="episode_id")
        return episode

    def fork(self, episode_id: str) -> Episode:
        child = self.get(episode_id).fork(_new_id())
        with self._lock:
            self._episodes[child.id] = child
        return child

    def delete(self, episode_id: str) -> None:
        episode = self.get(episode_id)
        with self._lock:
            self._episodes.pop(episode_id, None)
        if self.trajectory_dir is not None:
            self._write_trajectory(episode)
        episode.close()

    def _write_trajectory(self, episode: Episode) -> None:
        self.trajectory_dir.mkdir(parents=True, exist_ok=True)
        (self.trajectory_dir / f"{episode.id}.json").write_text(Trajectory.of(episode).model_dump_json(indent=1))

    def __contains__(self, episode_id: str) -> bool:
        return episode_id in self._episodes

    def __len__(self) -> int:
        return len(self._episodes)

    def list(self) -> list[Episode]:
        return list(self._episodes.values())


def app_urls_from_env(apps: dict[str, App]) -> dict[str, str]:
    """``OFFICEWORLD_<APP>_URL`` for each app that runs as its own service."""
    urls = {name: os.environ.get(f"OFFICEWORLD_{name.upper()}_URL", "").strip() for name in apps}
    return {name: url for name, url in urls.items() if url}


def _new_id() -> str:
    return "ep_" + secrets.token_hex(8)
