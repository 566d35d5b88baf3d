"""Compile a world into each app's pristine database image, cached on disk by content.

The cache key joins the digest of the world's files with the digest of the app's code, so an
unchanged world starts without rebuilding (nor even reading its messages and documents: the digest
is kept with the files' sizes and times, ``worlds.digest.content_hash``), and a change to either
rebuilds only what it affects.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

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
                 digest: str | None = None) -> Mapping[str, bytes]:
    """Each app's pristine image for the world folder ``root`` (whose ``content_hash`` is ``digest`` when the
    caller has it); the world is loaded (and checked) only when some app's image is not in the cache yet.
    Images found in the cache are opened here and read on first use (``Images``)."""
    directory = directory or cache_dir()
    digest = digest or content_hash(root)  # once: the loader is handed it rather than reading every file again
    paths = {app_name: _path(directory, name, digest, app) for app_name, app in apps.items()}
    files: dict[str, BinaryIO] = {}
    try:
        for app_name, path in paths.items():
            files[app_name] = open(path, "rb")
    except OSError:   # not compiled yet (or gone meanwhile)
        for opened in files.values():
            opened.close()
        return compile_world(load_world(root, world_sections(apps), digest), apps, directory)
    return Images(files)


class Images(Mapping[str, bytes]):
    """Each app's image, from its cache file opened when the world was made ready and read when the image
    is first asked for: an ``xl`` world's mail image is 280 MB (0.3 s to read), and a server needs it only
    once an episode reads its mail. The open file is the one found then, whatever happens to the cache
    folder meanwhile. Pickled (for a Ray node) as the plain images."""

    def __init__(self, files: dict[str, BinaryIO]):
        self._names = list(files)
        self._files = files
        self._read: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def __getitem__(self, app: str) -> bytes:
        image = self._read.get(app)
        if image is None:
            with self._lock:
                image = self._read.get(app)
                if image is None:
                    with self._files.pop(app) as file:   # KeyError for an app the world has no image of
                        image = self._read[app] = _whole(file.fileno())
        return image

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __reduce__(self):
        return dict, (dict(self),)


def _whole(fd: int) -> bytes:
    """A file's bytes read by position (``pread``), not from the shared offset: a process forked from this one
    holds the same open file, and its reads would move a ``read()`` here."""
    size, parts, at = os.fstat(fd).st_size, [], 0
    while at < size:
        part = os.pread(fd, size - at, at)
        if not part:
            break
        parts.append(part)
        at += len(part)
    return b"".join(parts)


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
