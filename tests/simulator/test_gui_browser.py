"""People in a real browser (Playwright on Debian's Chromium) using the GUI; what they do lands as steps."""

from __future__ import annotations

import httpx
import pytest
from gui_world import chromium_or_skip, make_gui_world
from playwright.sync_api import expect, sync_playwright
from surfaces import CONTROL

from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("gui-browser")
    world = make_gui_world(root / "worlds")
    with serve_in_thread(build_app(EpisodeStore(cache_dir=root / "cache"))) as url:
        yield url, str(world)


@pytest.fixture(scope="module")
def chromium():
    executable = chromium_or_skip()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def user(server, chromium):
    """A fresh episode and a page on its home; yields (page, base URL of the API, episode id)."""
    url, world = server
    episode = httpx.post(f"{url}/v1/episodes", json={"world": world}, timeout=60, headers=CONTROL).json()
    context = chromium.new_context()
    context.set_default_timeout(10000)
    page = context.new_page()
    page.goto(f"{url}/episodes/{episode['id']}/gui/")
    yield page, url, episode["id"]
    context.close()


def gui_steps(url: str, episode_id: str, operation: str) -> list[dict]:
    steps = httpx.get(f"{url}/v1/episodes/{episode_id}/trajectory", headers=CONTROL).json()["steps"]
    return [s for s in steps if s["operation"] == operation and s["surface"] == "gui"]


def call(url: str, episode_id: str, app: str, op: str, **arguments) -> dict:
    response = httpx.post(f"{url}/episodes/{episode_id}/api/{app}/{op}", json=arguments)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_user_reads_a_thread_and_replies(user):
    page, url, episode_id = user
    page.get_by_test_id("open-mail").click()
    page.get_by_role("link", name="Globex renewal pricing").click()
    expect(page.get_by_test_id("thread-subject")).to_have_text("Globex renewal pricing")
    expect(page.get_by_text("we need the renewal quote by March 27")).to_be_visible()
    page.get_by_role("article", name="Message from Sam Ortiz").get_by_role("button", name="Reply", exact=True).click()
    page.get_by_label("Message").fill("Sam, the quote follows today.")
    page.get_by_test_id("send").click()
    expect(page.get_by_test_id("flash")).to_have_text("Message sent")
    expect(page.get_by_role("link", name="Re: Globex renewal pricing").first).to_be_visible()
    assert gui_steps(url, episode_id, "mark_read"), "opening the thread read it"
    reply = gui_steps(url, episode_id, "reply")
    assert len(reply) == 1 and reply[0]["arguments"]["body"] == "Sam, the quote follows today."


def test_a_user_converts_a_lead(user):
    page, url, episode_id = user
    page.get_by_test_id("nav-crm").click()
    page.get_by_test_id("tab-Lead").click()
    page.get_by_role("link", name="Jane Doe").click()
    page.get_by_test_id("convert").click()
    page.get_by_label("Opportunity name").fill("Hooli - First order")
    page.get_by_test_id("do-convert").click()
    expect(page.get_by_test_id("flash")).to_have_text("Lead converted")
    page.get_by_test_id("converted-opportunity").click()
    expect(page.get_by_test_id("record-title")).to_have_text("Hooli - First order")
    assert len(gui_steps(url, episode_id, "convert_lead")) == 1


def test_closed_lost_without_a_loss_reason_shows_the_error_by_the_field(user):
    page, url, episode_id = user
    opportunity = call(url, episode_id, "crm", "create_opportunity", account_id=1, name="Globex - Add-on",
                       close_date="2026-06-30")
    page.goto(page.url + f"crm/Opportunity/{opportunity['id']}")
    page.get_by_test_id("stage-Closed-Lost").click()
    expect(page.get_by_test_id("error-loss_reason")).to_contain_text("say why")
    expect(page.get_by_label("Loss reason")).to_have_attribute("aria-invalid", "true")
    page.get_by_label("Loss reason").fill("Went with a competitor")
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("stage-Closed-Lost")).to_have_attribute("aria-current", "step")
    assert [s["error"] is not None for s in gui_steps(url, episode_id, "update_opportunity")] == [True, False]


def test_a_user_shares_a_new_document_as_commenter(user):
    page, url, episode_id = user
    page.get_by_test_id("nav-docs").click()
    page.get_by_label("New file name").fill("Renewal FAQ")
    page.get_by_test_id("new-create").click()
    expect(page.get_by_test_id("file-title")).to_have_text("Renewal FAQ")
    page.get_by_test_id("share").click()
    page.get_by_label("Add people").fill("mei@small.test")
    page.get_by_label("Role").select_option("commenter")
    page.get_by_test_id("share-send").click()
    expect(page.get_by_test_id("role-mei@small.test")).to_have_text("commenter")
    share = gui_steps(url, episode_id, "share")
    assert share[0]["arguments"] == {"file_id": share[0]["arguments"]["file_id"], "email": "mei@small.test",
                                     "role": "commenter"} and share[0]["state_changed"]


def test_a_sheet_recalculates_after_an_edit(user):
    page, url, episode_id = user
    page.get_by_test_id("nav-docs").click()
    page.get_by_role("link", name="Sales").click()
    page.get_by_role("link", name="Forecasts").click()
    page.get_by_role("link", name="Pipeline forecast").click()
    expect(page.get_by_test_id("cell-D2")).to_have_text("110400")
    page.get_by_test_id("cell-B2").click()
    expect(page.get_by_label("Cell", exact=True)).to_have_value("B2")
    page.get_by_label("Cell content").fill("200000")
    page.get_by_label("Cell content").press("Enter")
    expect(page.get_by_test_id("cell-D2")).to_have_text("120000")
    expect(page.get_by_test_id("cell-B4")).to_have_text("250000")
    assert gui_steps(url, episode_id, "update_cells")[0]["arguments"]["cells"] == {"B2": 200000}


def test_a_user_creates_an_event_with_a_guest_in_the_week_view(user):
    page, url, episode_id = user
    page.get_by_test_id("nav-calendar").click()
    expect(page.get_by_test_id("agenda-title")).to_have_text("Week of Mar 16, 2026")
    page.get_by_test_id("new-event").click()
    page.get_by_label("Title *").fill("Globex pricing call")
    page.get_by_label("Start *").fill("2026-03-18T10:00")
    page.get_by_label("End *").fill("2026-03-18T10:30")
    page.get_by_label("Description").fill("Agenda:\nprices\nterms")
    page.get_by_label("Guests (addresses, comma-separated)").fill("ravi@small.test")
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("event-title")).to_have_text("Globex pricing call")
    expect(page.get_by_test_id("answer-ravi@small.test")).to_have_text("Awaiting")
    page.get_by_test_id("view-week").click()
    expect(page.get_by_test_id("day-2026-03-18").get_by_role("link", name="Globex pricing call")).to_be_visible()
    made = gui_steps(url, episode_id, "create_event")
    assert len(made) == 1 and made[0]["arguments"]["description"] == "Agenda:\nprices\nterms"   # LF, as typed
    assert made[0]["arguments"]["attendees"] == ["ravi@small.test"]


def test_a_user_answers_an_invitation(user):
    page, url, episode_id = user
    invite = httpx.post(f"{url}/v1/episodes/{episode_id}/call", headers=CONTROL, json={
        "tool": "calendar_create_event", "as": "ravi@small.test", "arguments": {
            "title": "Forecast sync", "start": "2026-03-17T14:00:00Z", "end": "2026-03-17T14:30:00Z",
            "attendees": ["dana@small.test"]}}).json()["result"]
    page.get_by_test_id("nav-calendar").click()
    page.get_by_role("link", name="Forecast sync").click()
    page.get_by_label("Note to the organizer").fill("Joining from the train")
    page.get_by_test_id("respond-accepted").click()
    expect(page.get_by_test_id("answer-dana@small.test")).to_have_text("Yes")
    answer = gui_steps(url, episode_id, "respond")
    assert answer[0]["arguments"] == {"event_id": invite["id"], "response": "accepted",
                                      "comment": "Joining from the train"}


def test_a_user_adds_a_tab_whose_formula_reads_the_first(user):
    page, url, episode_id = user
    page.get_by_test_id("nav-docs").click()
    page.get_by_role("link", name="Sales").click()
    page.get_by_role("link", name="Forecasts").click()
    page.get_by_role("link", name="Pipeline forecast").click()
    page.get_by_label("Tab name").fill("Q1 Plan")
    page.get_by_test_id("tab-add").click()
    expect(page.get_by_role("link", name="Q1 Plan")).to_have_attribute("aria-current", "page")
    page.get_by_label("Cell", exact=True).fill("A1")
    page.get_by_label("Cell content").fill("=Sheet1!B4/2")
    page.get_by_label("Cell content").press("Enter")
    expect(page.get_by_test_id("cell-A1")).to_have_text("117000")
    page.get_by_role("link", name="Sheet1").click()
    expect(page.get_by_test_id("cell-B4")).to_have_text("234000")
    typed = gui_steps(url, episode_id, "update_cells")[0]["arguments"]
    assert (typed["cells"], typed["tab"]) == ({"A1": "=Sheet1!B4/2"}, "Q1 Plan")
