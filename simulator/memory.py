"""Give freed memory back to the system after episodes are deleted.

An episode's app databases are in-memory SQLite, allocated with ``malloc``; when they close, glibc
keeps the freed pages in its arenas, so the resident size after deleting every episode stayed at its
peak. ``release_soon`` (called on each delete) runs, at most once per half second and off the
request's path, a garbage collection (episodes hold reference cycles through their closures) and
``malloc_trim(0)``, which returns the free pages of every arena. Without glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
from typing import Callable

_DELAY = 0.5
_lock = threading.Lock()
_pending: threading.Timer | None = None
_again = False   # a deletion came while a release was pending: release once more after it

try:
    _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _trim: Callable[[int], int] | None = _libc.malloc_trim
except (OSError, AttributeError):  # not glibc
    _trim = None


def release_now() -> None:
    global _pending, _again
    with _lock:
        _pending, again, _again = None, _again, False
    gc.collect()
    if _trim is not None:
        _trim(0)
    if again:   # deletions went on meanwhile: one more release after the last of them
        release_soon()


def release_soon() -> None:
    """Release freed memory shortly after the last deletion of a burst (at most one run per half second)."""
    global _pending, _again
    with _lock:
        if _pending is not None:
            _again = True
            return
        _pending = threading.Timer(_DELAY, release_now)
        _pending.daemon = True
        _pending.start()
