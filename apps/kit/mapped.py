"""Clones of a database image that share its memory until they write (copy on write), on Linux.

An episode's first write into an app clones the world's pristine image. SQLite's ``deserialize`` (the
``sqlite3`` module's) copies the whole image into memory just allocated, and on a server whose episodes
all start at once (a training run) that memory is new to the process: every 4 KB page of the copy is a
page fault, which here cost more than the copy itself (mail's 1.15 MB image: 0.65 ms of CPU, 0.5 ms of it
the kernel's, in 300 faults; 0.03 ms when the memory was reused). Here the image is written once into a
memory file (``memfd``) and each clone maps it privately (``MAP_PRIVATE``): the kernel shares its pages
between clones and copies a page only when a clone writes into it, so a clone costs two ``mmap`` calls and
its memory is what it wrote. SQLite is handed the mapping with ``sqlite3_deserialize`` on the connection's
own handle (``_handle``: the ``sqlite3 *`` that CPython's connection object holds first), without
``SQLITE_DESERIALIZE_FREEONCLOSE`` or ``RESIZEABLE``: the buffer is ours, and SQLite may grow the database
in it up to ``CAP``, the limit its own in-memory databases have (``SQLITE_MEMDB_DEFAULT_MAXSIZE``). The
mapping is a reservation of ``CAP`` bytes, anonymous (``MAP_NORESERVE``: untouched, it costs nothing),
with the image's file mapped over its start. It is unmapped when the connection closes
(``MappedConnection.close``), after any open transaction is rolled back, so that nothing SQLite defers
to the end of the last statement writes into it afterwards.

SQLite reads a clone's pages from the mapping itself (``READ_MAPPED``: ``mmap_size``) rather than copying
each into its page cache, which held a second copy of every page read. 300 acme episodes that ran the
write mix's session took 524 MB of proportional memory (PSS) instead of 1,160; their resident size (RSS)
counts a shared page once per clone that maps it, 905 MB. Both went back to the start's after deletion.

``Image.connect`` answers None wherever this cannot work (not Linux, not CPython, a ``_sqlite3`` that does
not export ``sqlite3_deserialize``, ``mmap`` refused) and the caller copies as before. Mappings count
against the kernel's ``vm.max_map_count`` (two per clone); past a quarter of it (``_budget``) clones copy
too, so that the process's other allocations never run short of mappings.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import sqlite3
import sys
import threading
import weakref
from pathlib import Path
from typing import Any

CAP = 1 << 30   # the most a mapped database can grow to: SQLite's SQLITE_MEMDB_DEFAULT_MAXSIZE, its own limit
_MAP_FIXED = 0x10
_MAP_NORESERVE = 0x4000
_MAP_FAILED = ctypes.c_void_p(-1).value
_MADV_NOHUGEPAGE = 15
READ_MAPPED = True   # SQLite reads a clone's pages from the mapping itself (``mmap_size``), not from copies of them
_lock = threading.Lock()
_mapped = 0   # clones mapped now


def _bind() -> tuple[Any, Any] | None:
    """(``_sqlite3``'s SQLite library, the C library), or None where mapping cannot work."""
    if not sys.platform.startswith("linux") or sys.implementation.name != "cpython" \
            or not hasattr(os, "memfd_create"):
        return None
    try:
        import _sqlite3
        sqlite = ctypes.CDLL(_sqlite3.__file__)   # its own SQLite (linked in or a dependency), never another copy
        libc = ctypes.CDLL(None, use_errno=True)
        sqlite.sqlite3_libversion.restype = ctypes.c_char_p
        if sqlite.sqlite3_libversion() != sqlite3.sqlite_version.encode():
            return None
        sqlite.sqlite3_deserialize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                                               ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                              ctypes.c_long]
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        return sqlite, libc
    except (ImportError, OSError, AttributeError):
        return None


_libs = _bind()


def _budget() -> int:
    try:
        return int(Path("/proc/sys/vm/max_map_count").read_text()) // 8   # two mappings a clone: a quarter
    except (OSError, ValueError):
        return 0


_BUDGET = _budget() if _libs is not None else 0


def available() -> bool:
    """Whether clones map their image here (else they copy it)."""
    return _BUDGET > 0


def _handle(conn: sqlite3.Connection) -> int | None:
    """The ``sqlite3 *`` of a connection: the first field of CPython's ``pysqlite_Connection``, right after
    the object's header (``object.__basicsize__``), in every CPython since the module's start."""
    return ctypes.c_void_p.from_address(id(conn) + object.__basicsize__).value


class MappedConnection(sqlite3.Connection):
    """A connection over a mapped clone (``Image.connect``), which it unmaps when it closes."""

    _mapping: tuple[int, int] | None = None   # (address, length)

    def close(self) -> None:
        mapping, self._mapping = self._mapping, None
        if mapping is None:
            return super().close()
        try:   # with no transaction left, closing writes nothing into the mapping, now or later
            if self.in_transaction:
                self.rollback()
            safe = not self.in_transaction
        except sqlite3.Error:
            safe = False
        super().close()
        if safe:   # else leave it mapped: a statement still open may roll back into it when it ends
            _unmap(*mapping)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:   # at interpreter shutdown
            pass


def _map(fd: int, size: int) -> tuple[int, int] | None:
    """A private mapping of ``CAP`` bytes whose first ``size`` bytes are the file's, as (address, length);
    None when refused or past the budget."""
    global _mapped
    assert _libs is not None
    with _lock:
        if _mapped >= _BUDGET:
            return None
        _mapped += 1
    libc, length = _libs[1], CAP
    rw, private = mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_PRIVATE
    address = libc.mmap(None, length, rw, private | mmap.MAP_ANONYMOUS | _MAP_NORESERVE, -1, 0)
    span = -(-size // mmap.PAGESIZE) * mmap.PAGESIZE
    if address in (None, _MAP_FAILED):
        _unmap(0, 0)
        return None
    if span and libc.mmap(address, span, rw, private | _MAP_FIXED, fd, 0) != address:
        _unmap(address, length)
        return None
    libc.madvise(address, length, _MADV_NOHUGEPAGE)   # where huge pages are the default, a growing clone took 2 MB
    return address, length


def _unmap(address: int, length: int) -> None:
    global _mapped
    if address and _libs is not None:
        _libs[1].munmap(address, length)
    with _lock:
        _mapped -= 1


class Image:
    """A database image in a memory file, which every clone maps (``connect``)."""

    def __init__(self, image: bytes):
        self.size = len(image)
        self._fd: int | None = None   # none where mapping cannot work, or the file could not be made
        if available():
            try:
                self._fd = _written(image)
            except OSError:   # out of file descriptors or memory: clones copy
                pass
            else:
                weakref.finalize(self, os.close, self._fd)   # a clone's mapping holds the file on its own

    def connect(self) -> MappedConnection | None:
        """A new connection to a copy-on-write clone of the image; None where none can be made."""
        if self._fd is None or (mapping := _map(self._fd, self.size)) is None:
            return None
        conn = sqlite3.connect(":memory:", check_same_thread=False, factory=MappedConnection)
        assert _libs is not None
        if _libs[0].sqlite3_deserialize(_handle(conn), b"main", mapping[0], self.size, mapping[1], 0) != 0:
            conn.close()
            _unmap(*mapping)
            return None
        conn._mapping = mapping
        if READ_MAPPED:
            conn.execute(f"pragma mmap_size={CAP}")
        return conn


def _written(image: bytes) -> int:
    """A memory file holding ``image``."""
    fd = os.memfd_create("officeworld-image", os.MFD_CLOEXEC)
    try:
        view = memoryview(image)
        while view:
            view = view[os.write(fd, view):]
    except OSError:
        os.close(fd)
        raise
    return fd
