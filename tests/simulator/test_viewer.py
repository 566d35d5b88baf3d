"""The trajectory viewer: ``officeworld view`` writes a page that works offline, and the server serves it at ``/v1/view``.

Rollouts are recorded on acme: the RFP forward task solved (pass) and sent to the wrong person (fail), and a
task whose setup sends an email (its setup step is marked as such). The page is read in a real browser with
every request but the page's own refused.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from gui_world import chromium_or_skip
from playwright.sync_api import expect, sync_playwright
from surfaces import CONTROL, ROOT

from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from simulator.trajectories.files import read
from simulator.viewer.episode import episode_view
from tasks.model import Call

FORWARD = "mail-forward-rfp-to-greg"
SETUP = "cross-case-from-customer-email"
# A one-pixel PNG: a GUI step's kept screenshot.
PIXEL = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cf"
                      "c0f01f0005000201a5e0e5d10000000049454e44ae426082")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("rollouts")
    store = EpisodeStore(trajectory_dir=folder, idle_timeout=None)
    catalog = task_catalog(store)
    forward = catalog.get(FORWARD)
    wrong = [forward.oracle[0], Call.model_validate({"op": "mail.forward", "args": {
        "message_id": "$rfp.id", "to": ["sam@example.com"], "body": "Could you start on the security section?"}})]
    out = {}
    for name, task_id, calls in [("pass", FORWARD, forward.oracle), ("fail", FORWARD, wrong),
                                 ("setup", SETUP, catalog.get(SETUP).oracle)]:
        task = catalog.get(task_id)
        episode = store.create(task.world, task.actor, task=task)
        run = catalog.start(task.id, episode=episode)
        catalog.engine.run_calls(run, calls)
        store.finished(episode, catalog.finish(episode))
        store.delete(episode.id)
        out[name] = folder / f"{episode.id}.jsonl"
    return out


def test_each_write_shows_its_state_diff_and_the_criteria_cite_their_steps(recorded):
    view = episode_view(read(recorded["fail"]))
    forward = next(sv for sv in view.steps if sv.step.operation == "forward")
    outbound = [c for c in forward.changes if c["table"] == "mail_outbound"]
    assert outbound and outbound[0]["change"] == "create" and outbound[0]["record"]["recipient"] == "sam@example.com"
    search = next(sv for sv in view.steps if sv.step.operation == "search")
    assert search.changes is None   # a read has no diff
    assert view.reward["passed"] is False
    assert view.citations["only_greg"] == [forward.step.index] and "only_greg" in forward.cited_by
    kinds = {sv.kind for sv in episode_view(read(recorded["setup"]), diffs=False).steps}
    assert kinds == {"setup", "agent"}


def test_a_file_that_cannot_be_replayed_says_so_instead_of_a_diff(recorded, tmp_path):
    lines = recorded["pass"].read_text().splitlines()
    header = json.loads(lines[0])
    header["world_ref"] = header["world"] = str(tmp_path / "gone")
    header["task"] = None   # an episode on a world that no longer exists
    (tmp_path / "gone.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    view = episode_view(read(tmp_path / "gone.jsonl"))
    assert view.diff_note.startswith("no state diffs: this file could not be replayed")
    forward = next(sv for sv in view.steps if sv.step.operation == "forward")
    assert forward.changes is None and "could not be replayed" in forward.diff_note


def _offline_page(browser, html: Path):
    """The page opened from disk; any request but its own file is refused and counted."""
    context = browser.new_context()
    asked: list[str] = []

    def only_the_file(route):
        if route.request.url.startswith("file://"):
            return route.continue_()
        asked.append(route.request.url)
        return route.abort()
    context.route("**/*", only_the_file)
    page = context.new_page()
    page.goto(html.as_uri())
    return page, asked


def test_the_view_command_writes_a_page_that_works_offline_in_a_browser(recorded, tmp_path):
    folder = recorded["pass"].parent
    shots = recorded["fail"].with_suffix(".shots")
    shots.mkdir(exist_ok=True)
    (shots / "step-1.png").write_bytes(PIXEL)
    out = tmp_path / "page.html"
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "view", str(folder), "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    html = out.read_text()
    assert not re.search(r'(src|href)="(https?:)?//', html)   # nothing fetched from anywhere
    fail_id, pass_id = read(recorded["fail"]).header.episode, read(recorded["pass"]).header.episode
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_or_skip(), headless=True)
        page, asked = _offline_page(browser, out)
        expect(page.locator("table.listing tr")).to_have_count(4)   # a header and three rollouts
        comparison = page.locator("table.comparison")
        expect(comparison.locator("th").nth(1)).to_contain_text(pass_id)
        expect(comparison.locator("th").nth(2)).to_contain_text("fail")
        expect(comparison.locator("tr.diverge")).to_contain_text("first divergence")
        expect(comparison.locator("tr.diverge")).to_contain_text("sam@example.com")
        failed = page.locator(f"#ep-{fail_id}")
        failed.locator(f"#e-{fail_id}-c-only_greg a.cite").click()
        target = page.locator(f"#e-{fail_id}-s-1")
        assert page.url.endswith(f"#e-{fail_id}-s-1")
        expect(target).to_contain_text("mail_outbound")
        expect(target.locator("img.shot")).to_have_count(1)
        setup = page.locator(".step.kind-setup")
        expect(setup).to_have_count(1)
        expect(setup).to_contain_text("as hiro.tanaka@globexlogistics.com")
        reads = page.locator(".step.read").first
        expect(reads).to_be_visible()
        page.locator("input.toggle-reads").first.check()
        expect(reads).to_be_hidden()
        browser.close()
    assert asked == []


def test_the_server_serves_the_viewer_behind_the_token(recorded):
    folder = recorded["pass"].parent
    fail_id = read(recorded["fail"]).header.episode
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=folder, idle_timeout=None))) as url:
        assert httpx.get(f"{url}/v1/view").status_code == 401
        listing = httpx.get(f"{url}/v1/view", params={"diffs": "false"}, headers=CONTROL, timeout=120)
        assert listing.status_code == 200 and listing.headers["content-type"].startswith("text/html")
        assert f'href="?episode={fail_id}"' in listing.text and "first divergence" in listing.text
        one = httpx.get(f"{url}/v1/view", params={"episode": fail_id}, headers=CONTROL, timeout=300)
        assert one.status_code == 200 and "mail_outbound" in one.text and "sam@example.com" in one.text
        both = httpx.get(f"{url}/v1/view", params={"task": FORWARD, "diffs": "false"}, headers=CONTROL, timeout=120)
        assert both.status_code == 200 and both.text.count('class="episode"') == 2
        for params, status, field in [({"episode": "../etc/passwd"}, 422, "episode"),
                                      ({"episode": "ep_nothing"}, 404, "episode"), ({"task": "no-such"}, 404, "task")]:
            wrong = httpx.get(f"{url}/v1/view", params=params, headers=CONTROL)
            assert wrong.status_code == status and wrong.json()["error"]["field"] == field, wrong.text
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None, idle_timeout=None))) as url:
        refused = httpx.get(f"{url}/v1/view", headers=CONTROL)
        assert refused.status_code == 409 and "OFFICEWORLD_TRAJECTORY_DIR" in refused.text


def test_the_view_command_refuses_a_folder_without_trajectories(tmp_path):
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "view", str(tmp_path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and "no *.jsonl trajectory files" in done.stderr


def test_peer_and_other_people_s_steps_are_marked_and_a_write_shows_what_its_peers_changed(tmp_path):
    from apps.kit.invoker import invoke

    store = EpisodeStore(trajectory_dir=tmp_path, idle_timeout=None)
    episode = store.create("acme")
    calendar, mail = store.apps["calendar"].operations, store.apps["mail"].operations
    invoke(episode, calendar["create_event"], {"title": "Renewal prep", "start": "2026-03-18T15:00:00",
                                               "end": "2026-03-18T15:30:00",
                                               "attendees": ["greg.novak@acmeanalytics.com"]}, "rest")
    invoke(episode, mail["send"], {"to": ["dana.whitfield@acmeanalytics.com"], "subject": "Agenda",
                                   "body": "See you there."}, "rest", actor="greg.novak@acmeanalytics.com")
    store.finished(episode, None)
    store.delete(episode.id)
    view = episode_view(read(tmp_path / f"{episode.id}.jsonl"))
    assert [sv.kind for sv in view.steps] == ["agent", "peer", "other"]
    created, peer, other = view.steps
    assert {c["app"] for c in created.changes} == {"calendar", "mail"}   # the invitation the peer step sent
    assert peer.changes is None and "the step that set it off" in peer.diff_note
    assert any(c["app"] == "mail" and c["change"] == "create" for c in other.changes)
