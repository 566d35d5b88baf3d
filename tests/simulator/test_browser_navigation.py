"""An action that starts a page load answers with the page it led to: a form submitted by a click at coordinates
(which Playwright does not wait for) is observed once the slow save has answered and the next page has loaded, in
every observation mode; a link answered without a page (a 204) does not hold the action up."""

from __future__ import annotations

import time
import uuid
from types import SimpleNamespace

import pytest
from gui_world import chromium_or_skip
from stand_in_http import Quiet, serving

from simulator.gui import pixels
from simulator.gui.browser import Browser

ROOT = "/episodes/ep-nav/gui"
SAVE_S = 1.5   # the save answers this late: far longer than a render of the form takes
FORM = f"""<html><body><h1>Edit deal</h1><a href="{ROOT}/nothing">Nothing here</a>
<form method="post" action="{ROOT}/save"><input name="stage" aria-label="Stage" value="Closed Won">
<button style="position:absolute; left:100px; top:300px; width:120px; height:40px">Save</button></form></body></html>"""
SAVED = "<html><body><h1>Deal saved</h1></body></html>"


class Gui(Quiet):
    saves: list[str] = []

    def do_GET(self) -> None:
        if self.path == f"{ROOT}/nothing":
            self.send_response(204)
            self.end_headers()
            return
        self._page(SAVED if self.path == f"{ROOT}/saved" else FORM)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"])).decode()
        time.sleep(SAVE_S)
        Gui.saves.append(body)
        self.send_response(303)
        self.send_header("location", f"{ROOT}/saved")
        self.send_header("content-length", "0")
        self.end_headers()

    def _page(self, html: str) -> None:
        data = html.encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def gui():
    chromium_or_skip()
    with serving(Gui) as url, Browser() as browser:
        yield url, browser


def session(gui, observation: str):
    url, browser = gui
    episode = SimpleNamespace(id=f"ep-nav-{uuid.uuid4().hex[:8]}", trajectory=[], browser_actions=[],
                              recorder=None)
    made = browser.session(episode, url, observation=observation)
    made.root = url + ROOT   # the stand-in serves one episode's GUI at ROOT
    return made


@pytest.mark.parametrize("observation", ["marks", "pixels"])
def test_a_click_at_coordinates_that_submits_a_form_shows_the_saved_page(gui, observation):
    Gui.saves.clear()
    clicker = session(gui, observation)
    clicker.observe()
    seen = clicker.act("click", x=160, y=320)
    assert seen["error"] is None and seen["url"].endswith(f"{ROOT}/saved"), seen["url"]
    assert Gui.saves == ["stage=Closed+Won"]
    assert "Deal saved" in clicker.renders[-1].shown["text"] and clicker.renders[-1].url.endswith("/saved")


def test_a_snapshot_after_pressing_enter_in_a_form_shows_the_saved_page(gui):
    Gui.saves.clear()
    typist = session(gui, "snapshot")
    seen = typist.act("fill", ref=None, label="Stage", text="Closed Lost")
    assert seen["error"] is None and "Edit deal" in seen["snapshot"]
    seen = typist.act("press", key="Enter")   # in a form's field, Enter submits the form
    assert Gui.saves == ["stage=Closed+Lost"]
    assert seen["error"] is None and "Deal saved" in seen["snapshot"] and seen["url"].endswith("/saved")


def test_a_link_answered_without_a_page_leaves_the_page_as_it_was(gui):
    reader = session(gui, "snapshot")
    reader.observe()
    seen = reader.act("click", text="Nothing here")
    assert seen["error"] is None and seen["url"].endswith(f"{ROOT}/") and "Edit deal" in seen["snapshot"]


class Navigating:
    """A page whose first screenshots meet a navigation as Chromium answers it, then show the new page."""

    def __init__(self, failures: list[str]):
        self.failures, self.loads, self.url = list(failures), 0, "http://gui/saved"

    def evaluate(self, script, *args):
        return {"records": [], "fields": [], "text": ["Deal saved"]} if "innerText" in script else []

    def screenshot(self):
        if self.failures:
            raise RuntimeError(self.failures.pop(0))
        return b"\x89PNG"

    def wait_for_load_state(self):
        self.loads += 1

    def wait_for_timeout(self, ms):
        pass


def test_a_render_that_meets_a_navigation_waits_for_the_new_page_and_renders_it():
    page = Navigating(["Page.screenshot: Protocol error (Page.captureScreenshot): Unable to capture screenshot",
                       "Page.screenshot: Timeout 5000ms exceeded."])
    shot = pixels.render(page, 0, marks=True)
    assert shot.png == b"\x89PNG" and shot.shown["text"] == ["Deal saved"] and page.loads == 2


def test_a_render_that_fails_otherwise_says_so_at_once():
    page = Navigating(["Target page, context or browser has been closed"])
    with pytest.raises(RuntimeError, match="has been closed"):
        pixels.render(page, 0, marks=True)
    assert page.loads == 0
