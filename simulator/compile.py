"""Compile a world into each app's pristine database image, cached on disk by content.

The cache key joins the digest of the world's files with the digest of the app's code, so an
unchanged world starts without rebuilding, and a change to either rebuilds only what it affects.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from apps.kit import App
from worlds.model import World


def cache_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "officeworld"
    return Path(os.environ.get("OFFICEWORLD_CACHE_DIR", default))


def compile_world(world: World, apps: dict[str, App], directory: Path | None = None) -> dict[str, bytes]:
    """Each app's pristine image for ``world``, built once and then read from the cache."""
    directory = directory or cache_dir()
    return {name: _image(world, app, directory) for name, app in apps.items()}


def _image(world: World, app: App, directory: Path) -> bytes:
    key = hashlib.sha256(f"{world.content_hash}:{app.code_hash()}".encode()).hexdigest()[:24]
    path = directory / f"{world.name}.{app.name}.{key}.sqlite"
    if path.is_file():
        return path.read_bytes()
    image = app.build(world).image()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(image)
        partial.replace(path)
    except OSError:
        pass  # a read-only cache only costs a rebuild next time
    return image
