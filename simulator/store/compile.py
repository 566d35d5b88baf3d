"""Compile a world into each app's pristine database image, cached on disk by content.

The cache key joins the digest of the world's files with the digest of the app's code, so an
unchanged world starts without rebuilding (nor even reading its messages and documents: the digest
is kept with the files' sizes and times, ``worlds.loader.content_hash``), and a change to either
rebuilds only what it affects.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from apps.kit import App
from apps.kit.settings import settings
from simulator.store.registry import world_sections
from worlds import content_hash, load_world
from worlds.gcpause import paused
from worlds.model import World


def cache_dir() -> Path:
    return settings().cache


def compile_world(world: World, apps: dict[str, App], directory: Path | None = None) -> dict[str, bytes]:
    """Each app's pristine image for a loaded ``world``, built once and then read from the cache."""
    directory = directory or cache_dir()
    paths = {name: _path(directory, world.name, world.content_hash, app) for name, app in apps.items()}
    return {name: path.read_bytes() if path.is_file() else _build(world, apps[name], path)
            for name, path in paths.items()}


def world_images(root: Path, name: str, apps: dict[str, App], directory: Path | None = None,
                 digest: str | None = None) -> dict[str, bytes]:
    """Each app's pristine image for the world folder ``root`` (whose ``content_hash`` is ``digest`` when the
    caller has it); the world is loaded (and checked) only when some app's image is not in the cache yet."""
    directory = directory or cache_dir()
    digest = digest or content_hash(root)  # once: the loader is handed it rather than reading every file again
    paths = {app_name: _path(directory, name, digest, app) for app_name, app in apps.items()}
    if all(path.is_file() for path in paths.values()):
        return {app_name: path.read_bytes() for app_name, path in paths.items()}
    return compile_world(load_world(root, world_sections(apps), digest), apps, directory)


def _path(directory: Path, world_name: str, world_hash: str, app: App) -> Path:
    key = hashlib.sha256(f"{world_hash}:{app.code_hash()}".encode()).hexdigest()[:24]
    return directory / f"{world_name}.{app.name}.{key}.sqlite"


def _build(world: World, app: App, path: Path) -> bytes:
    directory = path.parent
    with paused():  # the rows of a large world's tables: alive until written, nothing to collect
        image = app.build(world).image()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(image)
        partial.replace(path)
    except OSError:
        pass  # a read-only cache only costs a rebuild next time
    return image
