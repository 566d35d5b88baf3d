"""Give freed memory back to the system once episodes stop being deleted.

An episode's app databases are in-memory SQLite, allocated with ``malloc``; when they close, glibc
keeps the freed pages in its arenas, so the resident size after deleting every episode stayed at its
peak. ``release_soon`` (called on each delete) restarts a countdown; when no episode has been deleted
for ``_DELAY`` seconds, a thread runs a garbage collection (episodes hold reference cycles through
their closures) and ``malloc_trim(0)``, which returns the free pages of every arena; and once more
``_AGAIN`` seconds later, for what was freed after the first (connections the server closed idle, after
``service/serve.KEEP_ALIVE_S``: with 33 client connections left open after 300 episodes were deleted, 9% above
the start after the first release, 4% after the second). A server that
keeps creating and deleting episodes (a training run) never pays for it: releasing during the run cost
the task check a quarter of its time, in full collections and in pages SQLite had to fault back in, while
glibc reuses the freed pages for the next episodes anyway. Without glibc it does nothing. For the same
reason a release waits while live episodes are being called (``_release``), and one that finds no episode
refreezes (``_refrozen``); ``officeworld up`` also makes full collections rarer (``fewer_full_collections``).

Python's own small-object allocator (pymalloc) gives an arena (1 MiB) back only once every object in it
is gone, and the few long-lived objects a load creates (worker threads, grown dicts, a session's leftovers:
about 300 KB after 100 episodes, traced) pinned about 20 MB of arenas that the episodes had filled, so
the server stayed 13-28% above its start after 20 to 100 episodes were deleted, and 136% after 500 (a
1.1 GB peak). With ``PYTHONMALLOC=malloc`` every object is a glibc allocation and the trim gives back
every free page, bar those that hold a live chunk: 3-10% above the start after 20 to 200 episodes, 25%
after 500. After 500 episodes the heap's live bytes were back within 3.4 MB of the start (``mallinfo2``),
but 20 MB of pages stayed resident, each pinned by a chunk of a few hundred bytes: most were free chunks
held in the per-thread caches (tcache, up to 7 chunks per size class) of the ~30 anyio worker threads the
load had started, which stay idle for good (anyio stops an idle worker only when it next hands work to
the pool) and whose caches glibc empties only when the thread ends. So a release first retires the
serving loop's idle worker threads (``serving`` registers the loop, from the lifespan of ``officeworld
up`` and of an app service), waits for them to end, then collects and trims: the load run of 500 episodes
went from +23-25% to +4.5%. What stays (~5 MB of pages, 0.7 MB live, probed) is bounded and does not grow
with episodes: the event loop thread's own cache, the freelists of asyncio and uvloop (future iterators,
timer and call handles, up to 250 each) and a few hundred weakrefs, scattered over the pages the load
used. For the same reason, what the server keeps for good is made at its start, not on a first request
that may come after a load: such a request between the deletions and the trim puts its long-lived
allocations into the freed pages, one chunk in many pages, and the trim can give back none of those. The
HTTP client a worker of ``up --workers N`` asks its peers with (``simulator.gateway.peers``; ~3 MB, 1.2 MB
of it the certificate store every ``httpx`` client loads) was made on the worker's first ``/health`` across
workers, and the load bench's, right after the deletions, was the first for one worker in three runs of five
(the supervisor's own check at start had reached the other): that worker's heap stayed at 125 MB, the
other's at 104, after both releases (``/proc/PID/smaps``), +23-25% above its start for good. Made by the
lifespan at start, both workers end at +6-7%.
``MALLOC_ARENA_MAX=2`` and a fixed mmap threshold changed nothing. The
variable is read when the interpreter starts, so ``serve_with_system_malloc`` (``simulator/cli/ahead.py``,
called first thing by the ``officeworld`` command) executes ``officeworld up`` and ``officeworld app-service`` again with it set,
unless it is set already: ``PYTHONMALLOC=pymalloc`` keeps Python's allocator, for CPU over memory: an
operation called in-process took about 15% less CPU with it (0.86-0.94 against 0.98-1.14 ms, medians of
three runs each); the server's CPU per call over HTTP differed less than the noise of the shared machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import gc
import os
import threading
import time
from typing import Callable, ContextManager, Iterator, Protocol

_DELAY = 2.0
_AGAIN = 66.0   # seconds from the first release to the second: after idle connections are closed (KEEP_ALIVE_S, 65 s)
_QUIET_S = 1.0   # a release waits until no live episode has had a call for this long
_FULL_AFTER = 1000   # middle-generation collections before a full one (``fewer_full_collections``)
_THREADS_S = 2.0   # at most this long a release waits for the loop, then for the idle worker threads to end
_lock = threading.Lock()
_pending: _Countdown | None = None
_loops: set[asyncio.AbstractEventLoop] = set()   # serving loops whose idle worker threads a release retires
_frozen = False   # ``freeze_startup`` ran: a release that finds no episode refreezes (``_refrozen``)


class Watched(Protocol):
    """What a release asks of the episode store (``EpisodeStore``)."""

    def activity(self) -> tuple[int, float]: ...   # live episodes; seconds since the last call in any

    def emptied(self) -> ContextManager[bool]: ...  # no episode live nor being made, and none added inside


try:
    _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _trim: Callable[[int], int] | None = _libc.malloc_trim
except (OSError, AttributeError):  # not glibc
    _trim = None


def release_now(store: Watched | None = None) -> None:
    """Retire the idle worker threads, collect (refreezing when ``store`` has no episode: ``_refrozen``)
    and trim."""
    for loop in list(_loops):
        _ended(_retired(loop))
    if store is None or not _refrozen(store):
        gc.collect()
    if _trim is not None:
        _trim(0)


@contextlib.contextmanager
def serving(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """While the server runs on ``loop``, each release first retires its idle worker threads (the
    lifespan of ``officeworld up`` and of an app service)."""
    _loops.add(loop)
    try:
        yield
    finally:
        _loops.discard(loop)


def _retired(loop: asyncio.AbstractEventLoop) -> list[threading.Thread]:
    """Stop ``loop``'s idle anyio worker threads, as anyio stops those idle for 10 s (but only when it next
    hands work to a thread); a later call starts a new one. Nothing when anyio's pool is not found."""
    async def retire() -> list[threading.Thread]:
        try:
            from anyio._backends._asyncio import _threadpool_idle_workers
            idle = _threadpool_idle_workers.get(None)
        except (ImportError, AttributeError, LookupError):
            return []
        retired: list[threading.Thread] = []
        while idle:
            worker = idle.popleft()
            worker.root_task.remove_done_callback(worker.stop)
            worker.stop()
            retired.append(worker)
        return retired
    with contextlib.suppress(RuntimeError):   # on the loop's own thread it could not wait for the loop
        if asyncio.get_running_loop() is loop:
            return []
    try:
        return asyncio.run_coroutine_threadsafe(retire(), loop).result(timeout=_THREADS_S)
    except Exception:   # the loop stopped or closed meanwhile: nothing to retire
        return []


def _ended(threads: list[threading.Thread]) -> None:
    """Wait until ``threads`` have exited (``_THREADS_S`` at most): glibc gives a thread's cached free chunks
    back to their arena only then, after the Python thread has finished."""
    deadline = time.monotonic() + _THREADS_S
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
        while thread.native_id is not None and os.path.exists(f"/proc/self/task/{thread.native_id}") \
                and time.monotonic() < deadline:
            time.sleep(0.005)


def release_soon(store: Watched | None = None) -> None:
    """Release freed memory once no episode has been deleted for ``_DELAY`` seconds, and once more
    ``_AGAIN`` seconds later (``_release``); with the ``store`` the deletion came from, each waits until
    its live episodes are quiet and, when none is live, refreezes (``_refrozen``)."""
    global _pending
    with _lock:
        if _pending is not None:
            if _pending.put_off(_DELAY, store):
                return
            _pending.cancel()
        _pending = _timer(_DELAY, True, store)


def _timer(delay: float, again: bool, store: Watched | None) -> "_Countdown":
    countdown = _Countdown(delay, again, store)
    _start(countdown)
    return countdown


class _Countdown(threading.Thread):
    """``threading.Timer`` running ``_release(self)``, whose deadline a deletion in a row moves
    (``put_off``): a new timer per deletion started a thread each time, ~0.3 ms of CPU, almost all of what
    deleting an episode cost. ``fire`` is what the thread does at the deadline; a test that replaces
    ``_start`` (and ``_clock``) calls it itself, so nothing in it waits on the machine's speed."""

    def __init__(self, delay: float, again: bool, store: Watched | None):
        super().__init__(daemon=True, name="memory release countdown")
        self.again, self.store = again, store
        self.deadline = _clock() + delay
        self._state = threading.Condition()
        self._fired = self._cancelled = False

    def put_off(self, delay: float, store: Watched | None) -> bool:
        """Fire ``delay`` seconds from now instead; False when it has fired or was cancelled, or when it is not
        the first countdown of deletions from ``store``."""
        with self._state:
            if self._fired or self._cancelled or not self.again or self.store is not store:
                return False
            self.deadline = _clock() + delay
            return True

    def cancel(self) -> None:
        with self._state:
            self._cancelled = True
            self._state.notify()

    def run(self) -> None:
        with self._state:
            while not self._cancelled and (left := self.deadline - _clock()) > 0:
                self._state.wait(left)
        self.fire()

    def fire(self) -> bool:
        """Release now (``_release``), unless cancelled or fired already; whether it did."""
        with self._state:
            if self._cancelled or self._fired:
                return False
            self._fired = True
        _release(self)
        return True


_clock: Callable[[], float] = time.monotonic   # what countdowns count on
_start: Callable[[_Countdown], None] = threading.Thread.start   # how a countdown starts waiting


def _release(countdown: _Countdown) -> None:
    """A release, then (``again``) a second one ``_AGAIN`` seconds later unless a deletion restarted the
    countdown meanwhile: what the server frees after the first (the buffers of the clients' connections,
    which the server closes after KEEP_ALIVE_S idle) would otherwise stay resident until the next deletions.

    While live episodes are being called (one had a call in the last ``_QUIET_S``), the release waits
    (checks again ``_DELAY`` later): its full collection walks every live episode's objects with the GIL
    held, and 500 live episodes' calls stalled for it (a release 8 s after the load bench's warm-up
    deletion landed in its paced REST run: 0.1-0.25 s). The freed pages are reused by the next
    episodes meanwhile, and the release comes once the calls stop."""
    global _pending
    again, store = countdown.again, countdown.store
    if store is not None:
        live, quiet_s = store.activity()
        if live and quiet_s < _QUIET_S:
            with _lock:
                if _pending is countdown:   # else deleted again meanwhile: that one goes on
                    _pending = _timer(_DELAY, again, store)
            return
    with _lock:
        if _pending is countdown:
            _pending = None
    release_now(store)
    if again:
        with _lock:
            if _pending is None:   # else deleted again meanwhile: that countdown releases (twice) in turn
                _pending = _timer(_AGAIN, False, store)


def freeze_startup() -> None:
    """Move every object alive now to the collector's permanent generation, which no collection scans:
    called by ``officeworld up`` once its imports, compiled world and task catalog are loaded, before any
    episode exists (an episode frozen, then deleted, would keep its reference cycles for good). Those
    startup objects are most of what the collector tracks: ~230,000 at start against ~80 per episode
    of eight REST calls and ~290 per MCP session (census of a running server), and a full collection
    walked them all each time. Frozen objects freed by their reference count are freed as before.

    Nothing is collected first: the collector is held off during the start (``simulator.cli.ahead``), and
    a collection here walked those ~190,000 objects for 0.15-0.25 s of every start to free ~1,600 (the
    classes and functions imports leave in cycles: the pure-Python ``datetime`` replaced by its C twin,
    copies of module namespaces), ~0.7 MB resident (80.7 against 80.1 MB, at ``xl``). They stay frozen
    until the first release that finds no episode (``_refrozen``) collects them."""
    global _frozen
    gc.freeze()
    _frozen = True


def fewer_full_collections(after: int = _FULL_AFTER) -> None:
    """Let the collector run a full collection only after ``after`` collections of the middle generation
    (Python's default is 10), that is about every 7,000,000 net allocations of containers instead of
    70,000; the young generations are collected as before (their pauses stay ~1-10 ms). A full collection
    walks every live object with the GIL held: with 500 live episodes and their MCP sessions, 240,000 to
    356,000 objects and 0.28-0.38 s in the load bench, found nothing to free (collected 0 every time),
    and came every 7,000 calls or so (the default's other rule: a quarter more objects than at the last
    one), so that at 800 calls/s a few percent of all calls waited behind one, more than a p99 allows.
    What a full collection frees (the cycles of deleted episodes; their databases
    are closed on deletion) is collected by the release once the calls stop, or by the next full collection. Called by
    ``officeworld up``."""
    gen0, gen1, _ = gc.get_threshold()
    gc.set_threshold(gen0, gen1, after)


def _refrozen(store: Watched) -> bool:
    """When no episode is live nor being made (and none can be added meanwhile), unfreeze, collect and
    freeze again: what was loaded since the start is then frozen too, and what was frozen but has
    since become garbage is collected. That is mostly the MCP SDK and server, built on the first MCP
    request (``simulator.gateway.mcp_lazy``), after ``freeze_startup``: ~57,000 tracked objects that
    every full collection walked, with 500 live episodes a quarter of its work. Only once
    ``freeze_startup`` ran (``officeworld up``); False when episodes were live."""
    if not _frozen:
        return False
    with store.emptied() as empty:
        if empty:
            gc.unfreeze()
            gc.collect()
            gc.freeze()
        return empty
