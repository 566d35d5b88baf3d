"""The browser harness for agents: actions by snapshot refs, recorded with the steps they caused,
confined to the episode's GUI, and offered as MCP tools to episodes that opted in."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
from gui_world import chromium_or_skip, make_gui_world
from mcp import Client
from surfaces import CONTROL

from simulator.gateway.server import build_app
from simulator.gui.browser import Browser
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    chromium_or_skip()
    root = tmp_path_factory.mktemp("harness")
    world = make_gui_world(root / "worlds")
    store = EpisodeStore(cache_dir=root / "cache")
    with serve_in_thread(build_app(store)) as url:
        yield url, str(world), store


def ref(snapshot: str, role: str, name: str) -> str:
    """The ref of the element with this role and accessible name in a snapshot."""
    found = re.search(rf'- {role} "{re.escape(name)}"[^\n]*\[ref=(\w+)\]', snapshot)
    assert found, f"no {role} {name!r} in:\n{snapshot}"
    return found.group(1)


def test_an_agent_acts_by_refs_and_each_action_records_the_steps_it_caused(server):
    url, world, store = server
    episode = store.create(world)
    with Browser() as browser:
        session = browser.session(episode, url)
        seen = session.act("goto", url="mail")
        assert seen["title"] == "Inbox · Mail" and seen["error"] is None
        seen = session.act("click", ref=ref(seen["snapshot"], "link", "Globex renewal pricing"))
        assert "we need the renewal quote" in seen["snapshot"]
        assert {"tool": "mail_mark_read", "error": None} in seen["operations"]
        seen = session.act("click", ref=ref(seen["snapshot"], "button", "Reply all"))
        seen = session.act("fill", ref=ref(seen["snapshot"], "textbox", "Message"), text="Thanks, all.")
        seen = session.act("click", ref=ref(seen["snapshot"], "button", "Send"))
        assert seen["operations"] == [{"tool": "mail_reply_all", "error": None}] and "Message sent" in seen["snapshot"]
        missing = session.act("click", ref="e9999")
        assert "no element" in missing["error"]
        outside = session.act("goto", url=f"{url}/v1/episodes")
        assert outside["error"] and "/v1/episodes" not in outside["snapshot"]
        png = session.screenshot()
    assert png.startswith(b"\x89PNG")
    actions = episode.browser_actions
    assert [a.action for a in actions] == ["goto", "click", "click", "fill", "click", "click", "goto"]
    reply = next(s for s in episode.trajectory if s.operation == "reply_all")
    assert actions[4].steps[0] == reply.index and reply.surface == "gui"
    assert actions[5].error and actions[5].steps == []


async def _mcp(url: str, calls: list[tuple[str, dict]]):
    async with Client(url) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        return names, [await client.call_tool(name, args) for name, args in calls]


def test_browser_tools_are_offered_over_mcp_only_to_episodes_that_opted_in(server):
    url, world, _ = server
    with_browser = httpx.post(f"{url}/v1/episodes", json={"world": world, "browser": True}, headers=CONTROL).json()
    names, (goto, bad) = asyncio.run(_mcp(with_browser["mcp_url"], [
        ("browser_goto", {"url": "crm/Opportunity"}), ("browser_fill", {"ref": "e1"})]))
    assert {"browser_goto", "browser_click", "browser_snapshot", "browser_screenshot", "mail_search"} <= set(names)
    assert not goto.is_error and "Globex - Renewal 2026" in goto.content[0].text
    assert bad.is_error and '"field": "text"' in bad.content[0].text
    trajectory = httpx.get(f"{url}/v1/episodes/{with_browser['id']}/trajectory", headers=CONTROL).json()
    assert trajectory["browser_actions"][0]["action"] == "goto" and trajectory["browser_actions"][0]["steps"]
    assert httpx.delete(f"{url}/v1/episodes/{with_browser['id']}", headers=CONTROL).status_code == 204

    plain = httpx.post(f"{url}/v1/episodes", json={"world": world}, headers=CONTROL).json()
    names, (refused,) = asyncio.run(_mcp(plain["mcp_url"], [("browser_goto", {"url": "mail"})]))
    assert not [n for n in names if n.startswith("browser_")]
    assert refused.is_error and "browser" in refused.content[0].text
