"""Give freed memory back to the system once episodes stop being deleted.

An episode's app databases are in-memory SQLite, allocated with ``malloc``; when they close, glibc
keeps the freed pages in its arenas, so the resident size after deleting every episode stayed at its
peak. ``release_soon`` (called on each delete) restarts a countdown; when no episode has been deleted
for ``_DELAY`` seconds, a thread runs a garbage collection (episodes hold reference cycles through
their closures) and ``malloc_trim(0)``, which returns the free pages of every arena. A server that
keeps creating and deleting episodes (a training run) never pays for it: releasing during the run cost
the task check a quarter of its time, in full collections and in pages SQLite had to fault back in, while
glibc reuses the freed pages for the next episodes anyway. Without glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
from typing import Callable

_DELAY = 2.0
_lock = threading.Lock()
_pending: threading.Timer | None = None

try:
    _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _trim: Callable[[int], int] | None = _libc.malloc_trim
except (OSError, AttributeError):  # not glibc
    _trim = None


def release_now() -> None:
    global _pending
    with _lock:
        if _pending is threading.current_thread():
            _pending = None
    gc.collect()
    if _trim is not None:
        _trim(0)


def release_soon() -> None:
    """Release freed memory once no episode has been deleted for ``_DELAY`` seconds."""
    global _pending
    with _lock:
        if _pending is not None:
            _pending.cancel()
        _pending = threading.Timer(_DELAY, release_now)
        _pending.daemon = True
        _pending.start()
