"""Reading an episode's snapshot (``Episode.snapshot``): a zip of ``episode.json`` and one ``<app>.sqlite``
image per app. ``read`` checks all of it before anything is replaced: the zip, the world it is of, its
clock, and each image (SQLite opens it, its integrity check passes, and it holds the tables the world's
own image holds). Anything else is a ``SnapshotError`` naming what is wrong.
"""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile
from datetime import datetime, timezone
from typing import Callable

from apps.kit.clock import LATEST, EventQueue


class SnapshotError(ValueError):
    """Not a snapshot this episode can restore; the message says why."""


def read(data: bytes, world: str, apps: list[str],
         expected: Callable[[str], frozenset]) -> tuple[dict[str, bytes], datetime, EventQueue]:
    """Each app's image, the clock and the event queue of snapshot ``data``, taken of ``world``, each image
    holding the tables ``expected(app)`` names (``schema``); ``SnapshotError`` when any part is missing or wrong.
    A snapshot without ``events.json`` (made before worlds had events) has an empty queue."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            meta = _meta(zf.read("episode.json"), world)
            images = {app: zf.read(f"{app}.sqlite") for app in apps}
            events = _events(zf.read("events.json")) if "events.json" in zf.namelist() else EventQueue()
    except (zipfile.BadZipFile, KeyError, EOFError, OSError) as exc:
        raise SnapshotError(f"not a snapshot zip ({type(exc).__name__}: {exc})") from None
    for app, image in images.items():
        _check_image(app, image, expected(app))
    return images, meta, events


def _events(raw: bytes) -> EventQueue:
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise TypeError("not an object")
        return EventQueue.load(data)
    except (ValueError, TypeError, KeyError, RecursionError) as exc:
        raise SnapshotError(f"events.json is not an event queue ({type(exc).__name__}: {str(exc)[:80]})") from None


def _meta(raw: bytes, world: str) -> datetime:
    try:
        meta = json.loads(raw)
    except (ValueError, RecursionError):
        raise SnapshotError("episode.json is not JSON") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("world"), str) or not isinstance(meta.get("now"), str):
        raise SnapshotError("episode.json must be an object with the world and the clock (now)")
    if meta["world"] != world:
        raise SnapshotError(f"snapshot is of world {meta['world']!r}, not {world!r}")
    try:
        now = datetime.fromisoformat(meta["now"])
    except ValueError:
        raise SnapshotError(f"episode.json: now is not a time ({meta['now'][:40]!r})") from None
    now = now if now.tzinfo else now.replace(tzinfo=timezone.utc)
    if now > LATEST:
        raise SnapshotError(f"episode.json: now is past the latest a clock may stand ({LATEST:%Y-%m-%d})")
    return now


def _check_image(app: str, image: bytes, tables: frozenset) -> None:
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(image)
        ok = conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        if not ok or schema(conn) != tables:
            raise SnapshotError(f"{app}.sqlite does not hold {app}'s tables" if ok
                                else f"{app}.sqlite fails SQLite's integrity check")
    except (sqlite3.Error, MemoryError, OverflowError) as exc:
        raise SnapshotError(f"{app}.sqlite is not an SQLite database ({type(exc).__name__}: {exc})") from None
    finally:
        conn.close()


def schema(conn: sqlite3.Connection) -> frozenset:
    """What a database holds: its tables, indexes and triggers, each with its SQL."""
    return frozenset(conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall())


def image_schema(image: bytes) -> frozenset:
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(image)
        return schema(conn)
    finally:
        conn.close()
