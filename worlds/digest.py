"""A world folder's digest, and whether the folder changed since it was taken.

``content_hash`` digests every file of a world (equal digests, equal worlds) and keeps the digest in the
compiled-world cache with the world's listing beside it, so a server on an unchanged world stats that
listing instead of walking and reading the world (the freshness rule: ``docs/architecture.md``, worlds).
``stamp_ahead`` takes that stamp in a child process while ``officeworld up`` imports.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import threading
import time
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path

_SETTLED_S = 1.0  # a digest is kept only for files unchanged this long (file times are coarse)
_NAME = attrgetter("name")
_LISTING = ".list"   # beside a digest's memo: the folders and entries its quick stamp stats
_AHEAD: dict[str, tuple[int, int]] = {}   # a world folder -> (the child taking its stamp, the pipe's read end)


def content_hash(root: Path, memo: Path | None = None) -> str:
    """A digest of every file in the world folder: equal digests mean equal worlds.

    The digest is kept in ``memo`` (default: a file under the compiled-world cache) with the world's
    listing beside it (``.list``: every folder and every other entry, by path): while no folder and no
    entry changed its size, times or inode, the files are neither read nor even listed again, only
    stat'ed (``_quick_stamp``). A file edited in place shows a new time; one added, removed or renamed
    changes its folder's times (the folders are stat'ed before they are listed). Kept only when every
    file and folder is older than a second, so a change made later always shows a newer time."""
    memo = memo or memo_for(root)
    ahead = _taken_ahead(root)
    kept = _kept_digest(memo)
    if kept.get("quick") is not None:
        taken = ahead if ahead is not None else _quick_stamp(root, _listing_of(memo))
        if taken == kept["quick"]:
            return kept["digest"]
    walked = _walk_world(root)
    stamp = _stamp(walked.files)
    if kept.get("stamp") == stamp:   # the files are the same (a folder's times moved): read none again
        digest = kept["digest"]
    else:
        hashed, base = hashlib.sha256(), str(root)
        for rel, _ in walked.files:
            hashed.update(os.fsencode(rel) + b"\0")   # a name as its bytes, UTF-8 or not
            with open(os.path.join(base, rel), "rb") as f:
                hashed.update(hashlib.sha256(f.read()).digest())
        digest = hashed.hexdigest()
    if memo and settled(walked.newest()):
        listing = walked.listing()
        quick = _quick(listing, walked.stats()) if listing is not None else None
        if listing is not None and quick is not None:
            keep_text(memo.with_suffix(_LISTING), listing)   # first: a memo never names a listing not yet there
        _keep(memo, {"root": str(root), "stamp": stamp, "digest": digest, "quick": quick})
    return digest


def _kept_digest(memo: Path | None) -> dict:
    try:
        kept = json.loads(memo.read_text()) if memo else None
    except (OSError, ValueError):
        kept = None
    return kept if isinstance(kept, dict) and isinstance(kept.get("digest"), str) else {}


def _listing_of(memo: Path | None) -> str | None:
    """The listing kept beside the digest's ``memo`` (``_Walk.listing``), or None."""
    try:
        return memo.with_suffix(_LISTING).read_text(encoding="utf-8", errors="surrogateescape") if memo else None
    except OSError:
        return None


def _quick_stamp(root: Path, listing: str | None) -> str | None:
    """The stamp of ``listing`` (kept by the last walk) as the folders and entries it names stand now: each
    one stat'ed, none listed or read. Equal to the kept one only while nothing in the world changed."""
    if not listing:
        return None
    head, _, body = listing.partition("\n")
    names = body.split("\n")
    if not head.isdigit() or int(head) > len(names):
        return None
    folders = int(head)
    stat_at = os.stat
    if stat_at in os.supports_dir_fd:   # names relative to the world's folder: shorter lookups
        try:
            fd = os.open(root, os.O_RDONLY)
        except OSError:
            return None
        try:
            return _quick(listing, _stats(names, folders, lambda name: stat_at(name, dir_fd=fd)))
        finally:
            os.close(fd)
    base = str(root) + "/"
    return _quick(listing, _stats(names, folders, lambda name: stat_at(base + name)))


def _stats(names: list[str], folders: int, stat_of) -> Iterator[os.stat_result | None]:
    """The folders' stats (the first ``folders`` names: a folder that cannot be stat'ed is a change), then
    each entry's, links followed as the walk does (None where it cannot be stat'ed, as in the walk)."""
    for name in names[:folders]:
        yield stat_of(name)
    for name in names[folders:]:
        try:
            yield stat_of(name)
        except OSError:
            yield None


def _quick(listing: str, stats: Iterable[os.stat_result | None]) -> str | None:
    """The digest of a listing and its entries' sizes, times, inodes and modes; None where a value does not
    fit (a time before 1970) or a folder cannot be stat'ed: then the world is walked."""
    values = array("Q")
    try:
        for s in stats:
            values.extend((0, 0, 0, 0, 0) if s is None else (s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_ino,
                                                              s.st_mode))
    except (OSError, OverflowError):
        return None
    digest = hashlib.sha256(listing.encode("utf-8", "surrogateescape"))
    digest.update(values)
    return digest.hexdigest()


def stamp_ahead(root: Path, memo: Path | None = None) -> bool:
    """Take the quick stamp of ``root`` (``_quick_stamp``: its kept listing stat'ed, which ``content_hash``
    compares with its memo) in a child process while this one goes on; ``content_hash(root)`` takes it from
    there. For a server's start: its imports take a second or more, and stat'ing an ``xl`` world's 105,000
    files and 34,000 folders half a second, now on another core. Only where ``fork`` is safe (Linux, no
    other thread yet) and a listing is kept; False when not started. A stamp that does not match the memo
    is walked again."""
    if not sys.platform.startswith("linux") or threading.active_count() > 1 or str(root) in _AHEAD:
        return False
    listing = _listing_of(memo or memo_for(root))
    if listing is None:
        return False
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: the stamp down the pipe, and out without running any of the parent's exit code
        code = 1
        try:
            os.closerange(0, 3)   # whoever reads the server's output never waits for this child
            os.close(read)
            os.write(write, (_quick_stamp(root, listing) or "").encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    _AHEAD[str(root)] = (pid, read)
    return True


def _taken_ahead(root: Path) -> str | None:
    """The stamp ``stamp_ahead`` took of ``root`` (waiting for it), or None."""
    ahead = _AHEAD.pop(str(root), None)
    if ahead is None:
        return None
    pid, read = ahead
    try:
        with os.fdopen(read, "rb") as pipe:
            taken = pipe.read()
        os.waitpid(pid, 0)
    except OSError:
        return None
    return taken.decode() if len(taken) == 64 else None


def _stamp(files: list[tuple[str, os.stat_result]]) -> str:
    return hashlib.sha256(os.fsencode("\n".join(f"{rel}\0{signature(s)}" for rel, s in files))).hexdigest()


def signature(s: os.stat_result) -> str:
    """A file's size, times and inode: what changes when its content may have (as git's index keeps them)."""
    return f"{s.st_size}:{s.st_mtime_ns}:{s.st_ctime_ns}:{s.st_ino}"


def settled(newest_ns: int) -> bool:
    """Whether a file last changed at ``newest_ns`` is older than ``_SETTLED_S`` (file times are coarse)."""
    return newest_ns < (time.time() - _SETTLED_S) * 1e9


@dataclass
class _Walk:
    """One walk of a world folder: its folders (``.`` for the folder itself), each stat'ed before it was
    listed; every other entry (links followed; None where that failed); the regular files among them."""

    folders: list[tuple[str, os.stat_result]] = field(default_factory=list)
    entries: list[tuple[str, os.stat_result | None]] = field(default_factory=list)
    files: list[tuple[str, os.stat_result]] = field(default_factory=list)

    def listing(self) -> str | None:
        """The folders' and entries' paths as ``_quick_stamp`` reads them (the number of folders, then one
        path a line); None when a name holds a line break or is not UTF-8 (such a world is walked each time)."""
        names = [rel for rel, _ in self.folders] + [rel for rel, _ in self.entries]
        listing = f"{len(self.folders)}\n" + "\n".join(names)
        try:
            listing.encode()   # kept as UTF-8 text
        except UnicodeEncodeError:
            return None
        return None if listing.count("\n") != len(names) else listing

    def stats(self) -> Iterator[os.stat_result | None]:
        yield from (s for _, s in self.folders)
        yield from (s for _, s in self.entries)

    def newest(self) -> int:
        stats = [s for s in self.stats() if s is not None]
        return max((max(s.st_mtime_ns, s.st_ctime_ns) for s in stats), default=0)


def _walk_world(root: Path) -> _Walk:
    """Every folder and entry under ``root`` (``__pycache__`` left out; links followed to files, not into
    folders), in the order of their sorted ``Path``s: each folder's entries by name, a sub-folder's where
    its name falls."""
    walked = _Walk()
    if "__pycache__" not in root.parts:
        _walk(str(root), "", walked)
    return walked


def _walk(folder: str, prefix: str, walked: _Walk) -> None:
    try:
        walked.folders.append((prefix[:-1] or ".", os.stat(folder)))   # before its listing: a later change shows
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:   # gone (its parent's times moved) or not readable (a change of mode moves its own)
        return
    entries.sort(key=_NAME)
    regular = stat.S_ISREG
    for entry in entries:
        name = entry.name
        if name == "__pycache__":
            continue
        if entry.is_dir(follow_symlinks=False):
            _walk(entry.path, prefix + name + "/", walked)
            continue
        try:
            info: os.stat_result | None = entry.stat()
        except OSError:
            info = None
        walked.entries.append((prefix + name, info))
        if info is not None and regular(info.st_mode):
            walked.files.append((prefix + name, info))


def memo_for(root: Path) -> Path | None:
    """Where the digest of ``root`` is kept: the compiled-world cache, by the folder's resolved path."""
    try:
        from apps.kit.settings import settings

        where = str(root.resolve())
        return settings().cache / "hashes" / (hashlib.sha256(where.encode()).hexdigest()[:24] + ".json")
    except (ImportError, ValueError, OSError):  # no settings (a bad environment variable): no memo
        return None


def _keep(memo: Path, kept: dict) -> None:
    keep_text(memo, json.dumps(kept))


def keep_text(memo: Path, text: str) -> None:
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        partial = memo.with_name(f"{memo.name}.{os.getpid()}.tmp")
        partial.write_text(text, encoding="utf-8")
        partial.replace(memo)
    except OSError:
        pass  # a read-only cache only costs reading the world again next time
