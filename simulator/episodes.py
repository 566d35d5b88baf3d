"""The episode store: create, find, fork and delete episodes over compiled worlds."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from apps.kit import App, Invalid, NotFound
from apps.kit.clock import VirtualClock
from apps.kit.episode import Episode
from simulator.compile import compile_world
from simulator.registry import APPS
from worlds import WorldError, load_world
from worlds.model import World


@dataclass
class CompiledWorld:
    world: World
    images: dict[str, bytes]


class EpisodeStore:
    """Every live episode of one server. Worlds are loaded and compiled once, on first use."""

    def __init__(self, apps: dict[str, App] = APPS, cache_dir: Path | None = None):
        self.apps = apps
        self.cache_dir = cache_dir
        self._worlds: dict[str, CompiledWorld] = {}
        self._episodes: dict[str, Episode] = {}
        self._lock = threading.Lock()

    def world(self, name: str) -> CompiledWorld:
        with self._lock:
            if name not in self._worlds:
                try:
                    world = load_world(name)
                except WorldError as exc:
                    raise NotFound(str(exc), field="world") from None
                self._worlds[name] = CompiledWorld(world, compile_world(world, self.apps, self.cache_dir))
            return self._worlds[name]

    def create(self, world: str, actor: str | None = None) -> Episode:
        compiled = self.world(world)
        info = compiled.world.info
        actor = (actor or info.default_actor).strip().lower()
        if actor not in info.people_by_email():
            raise Invalid(f"as: {actor} is not a person of world {world!r}", field="as")
        episode = Episode(_new_id(), compiled.world, actor, compiled.images, VirtualClock(info.now_utc))
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
        episode.close()

    def __contains__(self, episode_id: str) -> bool:
        return episode_id in self._episodes

    def __len__(self) -> int:
        return len(self._episodes)

    def list(self) -> list[Episode]:
        return list(self._episodes.values())


def _new_id() -> str:
    return "ep_" + secrets.token_hex(8)
