"""Giving memory back after deletions (``simulator.store.memory``): a release first retires the serving
loop's idle worker threads (glibc gives a thread's cached free chunks back only when the thread ends),
and the server starts new ones when it next needs them. No figure is asserted."""

from __future__ import annotations

import gc
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from fastapi.testclient import TestClient
from surfaces import CONTROL, TOKEN

from simulator.gateway.server import build_app
from simulator.service.app_service import build_app_service
from simulator.store import episodes as episodes_module
from simulator.store import memory
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import APPS


def _workers() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("AnyIO worker thread")}


def test_a_release_retires_the_gateways_idle_worker_threads_and_the_server_goes_on(monkeypatch):
    monkeypatch.setattr(memory, "_THREADS_S", 120.0)   # a loaded machine may take long to end a thread
    before = _workers()
    with TestClient(build_app(EpisodeStore(), token=TOKEN)) as api:
        def create(_) -> str:   # at once, in several: those before the world is ready run in a worker thread
            response = api.post("/v1/episodes", json={"world": "acme"}, headers=CONTROL)
            assert response.status_code == 201, response.text
            return response.json()["id"]
        with ThreadPoolExecutor(4) as pool:
            episodes = list(pool.map(create, range(8)))
        for episode in episodes:
            assert api.delete(f"/v1/episodes/{episode}", headers=CONTROL).status_code == 204
        used = _workers() - before
        assert used and len(memory._loops) == 1   # the lifespan registered the server's loop
        memory.release_now()
        assert not any(t.is_alive() for t in used)
        again = api.get("/v1/tasks", headers=CONTROL)   # a sync route: a new worker takes it
        assert again.status_code == 200 and api.get("/health").json()["episodes"] == 0
        assert _workers() - before - used
    assert not memory._loops   # the loop is forgotten when the server stops; a release then retires nothing
    memory.release_now()


def test_a_release_retires_an_app_services_idle_worker_threads(tmp_path, monkeypatch):
    monkeypatch.setattr(memory, "_THREADS_S", 120.0)
    before = _workers()
    service = build_app_service(APPS["mail"], cache_dir=tmp_path / "cache", token="s3cret")
    admin = {"authorization": "Bearer s3cret"}
    with TestClient(service) as api:
        assert api.put("/admin/episodes/e1", json={"world": "acme"}, headers=admin).status_code == 204
        assert api.delete("/admin/episodes/e1", headers=admin).status_code == 204
        used = _workers() - before
        assert used
        memory.release_now()
        assert not any(t.is_alive() for t in used)
        assert api.put("/admin/episodes/e2", json={"world": "acme"}, headers=admin).status_code == 204
        assert api.get("/health").json()["episodes"] == 1
    assert not memory._loops


class _Driven:
    """The countdowns and their clock, driven from the test: a countdown starts no thread and fires when
    the test says (``fire``), and the clock moves only when the test moves it (``advance``)."""

    def __init__(self, monkeypatch):
        _no_countdown_left()
        self.now = 1000.0
        self.started: list[memory._Countdown] = []
        self.trims: list[float] = []   # the clock at each release's trim
        monkeypatch.setattr(memory, "_pending", None)
        monkeypatch.setattr(memory, "_clock", lambda: self.now)
        monkeypatch.setattr(memory, "_start", self.started.append)
        monkeypatch.setattr(memory, "_trim", lambda pad: self.trims.append(self.now) or 0)

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def fire_pending(self) -> bool:
        """Fire the countdown waiting now, as its thread would at its deadline; False when none waits."""
        countdown = memory._pending
        if countdown is None:
            return False
        self.now = max(self.now, countdown.deadline)
        assert countdown.fire()
        return True


def test_deletions_release_twice_once_they_stop(monkeypatch):
    # Once after the countdown, once more later (what was freed meanwhile, e.g. connections closed idle).
    driven = _Driven(monkeypatch)
    memory.release_soon()
    assert driven.fire_pending() and len(driven.trims) == 1
    second = memory._pending
    assert second is not None and not second.again and second.deadline == driven.now + memory._AGAIN
    assert driven.fire_pending() and len(driven.trims) == 2
    assert memory._pending is None and not driven.fire_pending()   # no third release


def test_deletions_in_a_row_release_one_pair(monkeypatch):
    driven = _Driven(monkeypatch)
    for _ in range(5):   # deletions in a row restart the countdown: still one pair
        memory.release_soon()
        driven.advance(0.5)
    while driven.fire_pending():
        pass
    assert len(driven.trims) == 2 and len(driven.started) == 2


def test_a_release_waits_while_live_episodes_are_called_and_comes_once_they_stop(monkeypatch):
    # A release's full collection walks every live episode's objects with the GIL held: not while they are called.
    driven = _Driven(monkeypatch)
    store = EpisodeStore()
    gone, busy = store.create("acme"), store.create("acme")
    with TestClient(build_app(store, token=TOKEN)) as api:
        assert api.delete(f"/v1/episodes/{gone.id}", headers=CONTROL).status_code == 204
        for _ in range(3):   # a live episode called at each deadline: the release waits, again and again
            assert api.post(f"/episodes/{busy.id}/api/mail/search", json={"query": "renewal"}).status_code == 200
            waiting = memory._pending
            assert waiting is not None and waiting.again and driven.fire_pending()
            assert driven.trims == [] and memory._pending is not waiting   # waits another _DELAY
        # The calls stopped: the store's clock (when the last call was) moves past the quiet time.
        later = time.time() + memory._QUIET_S + 1
        monkeypatch.setattr(episodes_module, "time", SimpleNamespace(time=lambda: later, monotonic=time.monotonic))
        while driven.fire_pending():
            pass
        assert len(driven.trims) == 2 and len(store) == 1   # released, twice


def test_a_countdown_thread_releases_by_itself(monkeypatch):
    # The countdown as the server runs it, in its own thread; the test waits for it, bounded, and asserts no time.
    _no_countdown_left()
    trims: list[int] = []
    monkeypatch.setattr(memory, "_pending", None)
    monkeypatch.setattr(memory, "_trim", lambda pad: trims.append(pad) or 0)
    monkeypatch.setattr(memory, "_DELAY", 0.01)
    monkeypatch.setattr(memory, "_AGAIN", 0.01)
    started: list[memory._Countdown] = []
    monkeypatch.setattr(memory, "_start", lambda countdown: (started.append(countdown), countdown.start()))
    memory.release_soon()
    deadline = time.monotonic() + 120   # bounded, in case it never comes; no time is asserted
    while len(trims) < 2 and time.monotonic() < deadline:
        for countdown in list(started):
            countdown.join(1)
    assert len(trims) == 2 and len(started) == 2 and not started[1].again
    started[1].join(60)
    assert memory._pending is None


def _frozen_here(obj: object) -> bool:
    return not any(o is obj for o in gc.get_objects())   # tracked, and in no generation a collection scans


def test_a_release_refreezes_only_when_no_episode_is_live_nor_being_made(monkeypatch):
    monkeypatch.setattr(memory, "_frozen", True)   # as after ``freeze_startup`` in ``officeworld up``
    store = EpisodeStore()
    try:
        episode = store.create("acme")
        loaded = [{"since": "the start"}]   # e.g. the MCP SDK, imported on the first MCP request
        assert not memory._refrozen(store) and not _frozen_here(loaded) and not _frozen_here(episode)
        store.delete(episode.id)
        held = threading.Event()
        made: list = []
        with store.emptied() as empty:   # no episode can be added while a refreeze holds it
            assert empty
            maker = threading.Thread(target=lambda: (held.set(), made.append(store.create("acme"))))
            maker.start()
            held.wait(5)
            time.sleep(0.3)
            assert not made and len(store) == 0
        maker.join(10)
        assert made and not memory._refrozen(store)   # an episode live: nothing frozen
        store.delete(made[0].id)
        assert memory._refrozen(store) and _frozen_here(loaded)
        later = store.create("acme")   # episodes made afterwards stay where collections find them
        assert not _frozen_here(later) and gc.get_freeze_count() > 0
        store.delete(later.id)
    finally:
        gc.unfreeze()


def _full_collections_while_growing(objects: int) -> int:
    full: list[int] = []
    def seen(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)
    gc.callbacks.append(seen)
    try:
        kept = [[i] for i in range(objects)]   # long-lived containers, as live episodes' objects and steps
    finally:
        gc.callbacks.remove(seen)
    del kept
    return len(full)


def test_officeworld_up_lets_full_collections_come_far_more_seldom():
    # A full collection walks every live object with the GIL held (0.3 s with 500 episodes): rarely.
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)   # Python's default (another test of this process may have changed it)
        gc.collect()
        # A full collection also waits for a quarter more objects than the last one left: grow by more than
        # this process already holds, whatever ran before in it.
        objects = max(400_000, len(gc.get_objects()))
        assert _full_collections_while_growing(objects) >= 1   # Python's default: several along the way
        memory.fewer_full_collections()
        assert gc.get_threshold() == (700, 10, memory._FULL_AFTER)
        gc.collect()
        assert _full_collections_while_growing(objects) == 0
    finally:
        gc.set_threshold(*before)


def test_what_the_start_left_as_garbage_is_frozen_then_collected_by_the_first_refreeze(monkeypatch):
    """``freeze_startup`` freezes without collecting (the start's few cycles of garbage are not worth a walk of
    every startup object); the first release that finds no episode collects them."""
    import weakref

    class Cycle:
        me: object

    monkeypatch.setattr(memory, "_frozen", False)
    enabled = gc.isenabled()
    gc.disable()   # as during ``officeworld up``'s start (``ahead.hold_collector``)
    try:
        garbage = Cycle()
        garbage.me = garbage
        gone = weakref.ref(garbage)
        del garbage
        memory.freeze_startup()
        assert gone() is not None and gc.get_freeze_count() > 0   # frozen, not collected
        assert memory._refrozen(EpisodeStore()) and gone() is None
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def test_the_second_release_comes_after_the_server_has_closed_idle_connections():
    from simulator.service.serve import KEEP_ALIVE_S

    assert memory._DELAY < KEEP_ALIVE_S < memory._AGAIN


def _no_countdown_left() -> None:
    """Earlier tests' countdowns stopped (cancelled, or their release done), so none releases during this one."""
    for thread in threading.enumerate():
        if isinstance(thread, memory._Countdown):
            thread.cancel()
            thread.join(10)


def test_deletions_in_a_row_move_one_countdown_rather_than_start_a_thread_each(monkeypatch):
    driven = _Driven(monkeypatch)
    countdowns = []
    for _ in range(30):
        memory.release_soon()
        last_deletion = driven.now
        countdowns.append(memory._pending)
        driven.advance(0.01)
    assert all(c is countdowns[0] for c in countdowns) and len(driven.started) == 1   # one countdown thread
    assert countdowns[0].deadline == last_deletion + memory._DELAY   # counted from the last deletion
    while driven.fire_pending():
        pass
    assert len(driven.trims) == 2 and driven.trims[0] == last_deletion + memory._DELAY
