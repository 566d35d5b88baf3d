"""A browser for agents that act through the GUI: Playwright driving Debian's Chromium.

One Chromium serves many episodes: each episode gets its own browser context (cookies, history)
and one page. Playwright's sync API belongs to the thread that started it, so every browser call
runs on one worker thread; callers in any thread (or async code, through a thread) wait for it.

Actions: goto, click, fill, select, check, press, scroll, back, wait_for. Each returns an
observation: the URL, the title, an accessibility snapshot in text whose ``[ref=eN]`` marks name
the elements an action may target, and the operations the action caused. ``screenshot`` gives a
PNG. A session observing in ``pixels`` (or ``marks``: numbered set-of-marks on the clickable elements)
answers with a screenshot instead of the snapshot, and its actions may name an element by mark, by text
(or a field's label) or by coordinates; each render keeps what the page showed (``simulator.gui.pixels``).
Every action is recorded on the episode (``episode.browser_actions``) with the indices of the
Steps it caused, so the trajectory shows "clicked Send" next to the ``mail_reply`` it made.

The page may only reach its own episode's GUI: any other request (the control API, another
episode, the internet) is aborted, so a browser agent sees no more than an MCP agent does.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import queue
import shutil
import threading
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable

from apps.kit import Invalid
from apps.kit.settings import settings
from apps.kit.trajectory import BrowserAction
from simulator.gui import pixels

if TYPE_CHECKING:  # imported when a browser starts (playwright is slow to import)
    from playwright.sync_api import BrowserContext, Page

ACTIONS = ("goto", "click", "fill", "select", "check", "press", "scroll", "back", "wait_for")
OBSERVATIONS = ("snapshot", "pixels", "marks")
TIMEOUT_MS = 5000        # how long an action waits for its element: the agent's budget, a failed action is an observation
NAVIGATION_MS = 60000    # how long a page may take to load: the server's time, not the agent's (a busy host is slow)


def chromium_path() -> str:
    """Debian's Chromium (``dev.sh`` installs it); OFFICEWORLD_CHROMIUM overrides."""
    found = settings().chromium or shutil.which("chromium") or "/usr/lib/chromium/chromium"
    if not os.path.exists(found):
        raise RuntimeError("no Chromium: run ./dev.sh setup (it installs Debian's chromium) or set OFFICEWORLD_CHROMIUM")
    return found


class Browser:
    """One Chromium on one worker thread, shared by the episodes' sessions."""

    def __init__(self, executable: str | None = None):
        self.executable = executable
        self._jobs: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._sessions: dict[str, BrowserSession] = {}

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, fn: Callable[[Any], Any]) -> Any:
        """Run ``fn(chromium)`` on the browser's thread and return what it returns (or raise what it raised)."""
        with self._lock:
            if self._thread is None:
                ready: concurrent.futures.Future = concurrent.futures.Future()
                self._thread = threading.Thread(target=self._work, args=(ready,), name="officeworld-browser", daemon=True)
                self._thread.start()
                try:
                    ready.result(timeout=60)
                except BaseException:
                    self._thread = None  # the next call tries again (e.g. once Chromium is installed)
                    raise
        done: concurrent.futures.Future = concurrent.futures.Future()
        self._jobs.put((fn, done))
        return done.result()

    def _work(self, ready: concurrent.futures.Future) -> None:
        from playwright.sync_api import sync_playwright
        try:
            playwright = sync_playwright().start()
            chromium = playwright.chromium.launch(executable_path=self.executable or chromium_path(), headless=True)
        except Exception as exc:
            ready.set_exception(exc)
            return
        ready.set_result(True)
        while (job := self._jobs.get()) is not None:
            fn, done = job
            try:
                done.set_result(fn(chromium))
            except Exception as exc:
                done.set_exception(exc)
        chromium.close()
        playwright.stop()

    def session(self, episode, server_url: str, observation: str = "snapshot") -> "BrowserSession":
        """The episode's browser session (made on first use, observing as ``observation`` says) on the server
        at ``server_url``."""
        with self._lock:
            if episode.id not in self._sessions:
                self._sessions[episode.id] = BrowserSession(self, episode, server_url.rstrip("/"), observation)
            return self._sessions[episode.id]

    def discard(self, episode_id: str) -> None:
        session = self._sessions.pop(episode_id, None)
        context = session.context if session is not None else None
        if context is not None:
            self.run(lambda _: context.close())

    def close(self) -> None:
        for episode_id in list(self._sessions):
            self.discard(episode_id)
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join(timeout=30)
            self._thread = None


class BrowserSession:
    """One episode's page. Every method is an agent's action and returns the observation after it."""

    def __init__(self, browser: Browser, episode, server_url: str, observation: str = "snapshot"):
        if observation not in OBSERVATIONS:
            raise Invalid(f"observation: {observation!r} is not one of {', '.join(OBSERVATIONS)}", field="observation")
        self.browser, self.episode, self.server, self.observation = browser, episode, server_url, observation
        self.renders: list[pixels.Render] = []   # in pixels modes: every screenshot the agent was shown
        self.root = f"{server_url}/episodes/{episode.id}/gui"
        self.context: BrowserContext | None = None
        self.page: Page | None = None

    def _open(self, chromium) -> Page:
        if self.page is None:
            context = self.context = chromium.new_context(viewport={"width": 1280, "height": 900})
            context.set_default_timeout(TIMEOUT_MS)
            context.set_default_navigation_timeout(NAVIGATION_MS)
            context.route("**/*", self._guard)
            context.add_init_script(_Navigations.LEAVING)
            page = self.page = context.new_page()
            page.goto(self.root + "/")
        return self.page

    def _guard(self, route) -> None:
        url = route.request.url
        if url == self.root or url.startswith(self.root + "/") or url.startswith(self.root + "?"):
            route.continue_()
        else:
            route.abort("blockedbyclient")

    def act(self, action: str, **arguments: Any) -> dict:
        """Do one action and record it with the Steps it caused; a failed action is an observation too."""
        if action not in ACTIONS:
            raise Invalid(f"action: {action!r} is not one of {', '.join(ACTIONS)}", field="action")
        started, wall = time.perf_counter(), datetime.now(timezone.utc)
        first = len(self.episode.trajectory)

        def run(chromium):
            page = self._open(chromium)
            error = None
            try:
                with _Navigations(page) as navigations:
                    getattr(self, f"_{action}")(page, **arguments)
                    navigations.wait()
            except TypeError as exc:
                error = f"arguments: {exc}"
            except Exception as exc:  # Playwright's timeouts and bad refs: the agent reads them and tries again
                error = str(exc).split("\n")[0][:300]
            return page.url, page.title(), self._seen(page), error

        url, title, seen, error = self.browser.run(run)
        steps = self.episode.trajectory[first:]
        record = BrowserAction(index=len(self.episode.browser_actions), action=action, arguments=arguments, url=url,
                               error=error, steps=[s.index for s in steps], wall_time=wall,
                               duration_ms=round((time.perf_counter() - started) * 1000, 3))
        self.episode.browser_actions.append(record)
        caused = [{"tool": s.tool, "error": s.error} for s in steps if s.mutates]
        return self._answer(url, title, seen, error, caused, record)

    def observe(self) -> dict:
        url, title, seen = self.browser.run(lambda c: (lambda p: (p.url, p.title(), self._seen(p)))(self._open(c)))
        return self._answer(url, title, seen, None, [], None)

    def _seen(self, page):
        """The accessibility snapshot, or in pixels modes a render (kept in ``renders``)."""
        if self.observation == "snapshot":
            return _snapshot(page)
        return pixels.render(page, len(self.renders), marks=self.observation == "marks")

    def _answer(self, url, title, seen, error, caused, record: BrowserAction | None) -> dict:
        out = {"url": url, "title": title, "error": error, "operations": caused}
        if isinstance(seen, str):
            return {**out, "snapshot": seen}
        if record is not None:
            seen.action, seen.steps = record.index, record.steps
        self.renders.append(seen)
        pixels.keep(seen, self.episode)
        return {**out, "screenshot": seen.png, "render": seen.index}

    def screenshot(self, full_page: bool = False) -> bytes:
        return self.browser.run(lambda c: self._open(c).screenshot(full_page=full_page))

    # The actions. A ``ref`` is an ``eN`` mark from the last snapshot; in pixels modes an element is named by
    # ``mark`` (the number drawn on it in the last render), ``text`` (what it says), a field's ``label``, or
    # ``x`` and ``y`` (pixels from the top left of the view).
    def _goto(self, page, url: str) -> None:
        page.goto(url if url.startswith("http") else self.root + "/" + url.lstrip("/"))

    def _click(self, page, ref: str | None = None, x: int | None = None, y: int | None = None, **named) -> None:
        if x is not None and y is not None and ref is None and not named:
            page.mouse.click(x, y)
            return
        _target(page, ref, **named).click()

    def _fill(self, page, text: str, ref: str | None = None, x: int | None = None, y: int | None = None,
              **named) -> None:
        if x is not None and y is not None and ref is None and not named:
            page.mouse.click(x, y)
            page.keyboard.press("Control+a")
            page.keyboard.type(text)
            return
        _target(page, ref, **named).fill(text)

    def _select(self, page, value: str, ref: str | None = None, **named) -> None:
        _target(page, ref, **named).select_option(value)  # by value or by the label shown

    def _check(self, page, ref: str | None = None, checked: bool = True, **named) -> None:
        _target(page, ref, **named).set_checked(checked)

    def _press(self, page, key: str, ref: str | None = None) -> None:
        (_target(page, ref).press(key) if ref else page.keyboard.press(key))

    def _scroll(self, page, dy: int = 600) -> None:
        page.mouse.wheel(0, dy)

    def _back(self, page) -> None:
        page.go_back()

    def _wait_for(self, page, text: str, timeout_ms: int = TIMEOUT_MS) -> None:
        page.get_by_text(text).first.wait_for(timeout=min(timeout_ms, 30000))


class _Navigations:
    """The page load an action started, so that the action's observation shows where it led.

    Playwright returns from a click (by coordinates above all) or a key press before the form it submitted has
    navigated: the page still shows the form, the server may not have saved yet, and a screenshot taken as the new
    page commits fails. Each document notes in ``window.__owLeaving`` that it started a navigation to another document
    (the Navigation API's ``navigate`` event, ``LEAVING``); ``wait`` lets the page run what the action queued, and if
    it is leaving (or a navigation request of the main frame has shown), waits for the new document to commit and
    load. A navigation answered without a new page (a 204, a download) or refused by the episode's guard ends the
    wait too."""

    LEAVING = ("window.navigation && navigation.addEventListener('navigate', "
               "e => { if (!e.destination.sameDocument) window.__owLeaving = true; });")
    ANSWERED_S = 2.0   # a navigation answered this long ago without committing left no new page

    def __init__(self, page):
        self.page = page
        self.committed = False
        self.request = None                  # the latest navigation request of the main frame
        self.answered: float | None = None   # when its answer came in
        self.refused = False
        self._listeners = {"request": self._request, "requestfinished": self._finished,
                           "requestfailed": self._failed, "framenavigated": self._navigated}

    def __enter__(self) -> "_Navigations":
        for event, listener in self._listeners.items():
            self.page.on(event, listener)
        return self

    def __exit__(self, *exc) -> None:
        for event, listener in self._listeners.items():
            self.page.remove_listener(event, listener)

    def _request(self, request) -> None:
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            self.request, self.answered, self.refused = request, None, False

    def _finished(self, request) -> None:
        if request is self.request:
            self.answered = time.monotonic()

    def _failed(self, request) -> None:
        if request is self.request:
            self.refused = True

    def _navigated(self, frame) -> None:
        if frame == self.page.main_frame:
            self.committed = True

    def wait(self) -> None:
        try:   # two turns of the page's event loop: a form submitted by the action has started navigating by then
            leaving = self.page.evaluate("new Promise(done => setTimeout(() => setTimeout(() => "
                                         "done(window.__owLeaving === true), 0), 0))")
        except Exception:   # the new document committed meanwhile
            leaving = False
        # It may also have answered from the new document before Playwright told of the commit: the request shows.
        leaving = leaving or self.request is not None
        deadline = time.monotonic() + NAVIGATION_MS / 1000
        while leaving and not self.committed and not self.refused and time.monotonic() < deadline:
            if self.answered is not None and time.monotonic() - self.answered > self.ANSWERED_S:
                with contextlib.suppress(Exception):   # the page stays: its next action starts afresh
                    self.page.evaluate("delete window.__owLeaving")
                break
            self.page.wait_for_timeout(20)   # Playwright delivers the page's events while it waits
        self.page.wait_for_load_state()


def _target(page, ref: str | None, **named):
    if ref is None:
        return pixels.target(page, **named)
    found = page.locator(f"aria-ref={ref}")
    if found.count() == 0:
        raise LookupError(f"ref: no element {ref!r} on this page; read the latest snapshot for refs")
    return found


def _snapshot(page) -> str:
    return page.aria_snapshot(mode="ai")
