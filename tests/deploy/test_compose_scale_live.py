"""compose.scale.yaml running for real: the gateway's replicas behind the router, checked over its published port.

`.ci/compose` runs the stack with OFFICEWORLD_GATEWAYS=2 and runs this file beside test_compose_live.py (same
settings, OFFICEWORLD_LIVE_GATEWAYS the replica count). Skipped without a live stack or with one replica. It
restarts one gateway replica.
"""

from __future__ import annotations

import asyncio
import re
import subprocess

import httpx
import pytest
from compose_stack import GATEWAYS, LIVE, Stack, wait_for
from surfaces import CONTROL, mcp_session

pytestmark = pytest.mark.skipif(not LIVE or GATEWAYS < 2, reason="no live compose stack with replicas "
                                "(OFFICEWORLD_LIVE_URL, OFFICEWORLD_LIVE_GATEWAYS; .ci/compose sets them)")
TAGS = {f"w{k}" for k in range(GATEWAYS)}
SEND = {"to": ["ravi@example.com"], "subject": "From a replica", "body": "Sent through the router"}


def tag(episode_id: str) -> str:
    return episode_id.split("_")[1]


def every_tag_routed(stack: Stack) -> bool:
    """Whether the router has found each tag's holder (it checks each replica for each tag every 2 s)."""
    return all(httpx.get(f"{stack.url}/health", headers={"x-officeworld-local": t}, timeout=60).status_code == 200
               for t in TAGS)


def one_per_replica(stack: Stack) -> dict[str, dict]:
    """Episodes made through the router until every tag has one (it spreads creations over the replicas it
    has checked, every 2 s)."""
    found: dict[str, dict] = {}

    def make() -> bool:
        made = stack.episode()
        found.setdefault(tag(made["id"]), made)
        return set(found) == TAGS
    wait_for(f"an episode on each of {sorted(TAGS)}", make, 120)
    wait_for("the router to route each tag", lambda: every_tag_routed(stack), 120)
    return found


def steps(stack: Stack, episode: dict) -> list[tuple[str, str]]:
    answer = httpx.get(f"{stack.url}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL, timeout=60)
    assert answer.status_code == 200, answer.text
    return [(s["surface"], s["operation"]) for s in answer.json()["steps"]]


def log(stack: Stack, container: str) -> str:
    said = subprocess.run([stack.engine, "logs", container], capture_output=True, text=True, timeout=60)
    return said.stdout + said.stderr


def holder(stack: Stack, wanted: str) -> str:
    """The gateway container holding tag ``wanted``: the last tag each one's log says it took."""
    for container in stack.containers("gateway"):
        taken = re.findall(r"this gateway is worker (w\d+) of", log(stack, container))
        if taken and taken[-1] == wanted:
            return container
    pytest.fail(f"no gateway container says it holds {wanted}")


def test_episodes_on_every_replica_answer_over_mcp_and_rest_and_the_listing_spans_them(stack):
    episodes = one_per_replica(stack)
    assert len(stack.containers("gateway")) == GATEWAYS and stack.container("router")
    for episode in episodes.values():
        assert episode["mcp_url"].startswith(stack.url) and episode["status"] == "ready", episode
        _, (found,) = asyncio.run(mcp_session(episode["mcp_url"], [("mail_search", {"query": "Globex"})]))
        assert not found.is_error and found.structured_content["total"] > 0, found.content
        sent = httpx.post(f"{episode['api_url']}/mail/send", json=SEND, timeout=60)
        assert sent.status_code == 200, sent.text
        assert steps(stack, episode) == [("mcp", "search"), ("rest", "send")]
    listing = httpx.get(f"{stack.url}/v1/episodes", headers=CONTROL, timeout=60)
    assert listing.status_code == 200 and "x-officeworld-workers-down" not in listing.headers, listing.headers
    listed = [e["id"] for e in listing.json()]
    assert {e["id"] for e in episodes.values()} <= set(listed) and len(listed) == len(set(listed))
    assert {tag(i) for i in listed} == TAGS
    health = httpx.get(f"{stack.url}/health", timeout=60).json()
    assert health["status"] == "ok" and set(health["workers"]) == TAGS, health


def test_a_peer_question_for_another_tag_is_refused_by_a_replica(stack):
    """The router's per-tag checks rest on it: a replica answers 200 only for its own tag."""
    probe = (f"import urllib.request as u, urllib.error as e\nfor t in {sorted(TAGS)!r}:\n"
             "    try: print(t, u.urlopen(u.Request('http://127.0.0.1:8000/health', "
             "headers={'x-officeworld-local': t}), timeout=5).status)\n"
             "    except e.HTTPError as r: print(t, r.code)")
    answers = [dict(line.split() for line in stack.exec_in(c, "python", "-c", probe).stdout.splitlines())
               for c in stack.containers("gateway")]
    own = [[t for t, status in a.items() if status == "200"] for a in answers]
    assert sorted(t for tags in own for t in tags) == sorted(TAGS) and all(len(tags) == 1 for tags in own), answers
    assert all(set(a.values()) <= {"200", "421"} for a in answers), answers


def test_a_restarted_replica_takes_its_tag_back_and_resumes_its_episodes_with_their_steps(stack):
    episodes = one_per_replica(stack)
    for episode in episodes.values():
        assert httpx.post(f"{episode['api_url']}/mail/send", json=SEND, timeout=60).status_code == 200
    restarted, other = episodes["w0"], episodes["w1"]
    container = holder(stack, "w0")
    stack.run(stack.engine, "restart", "--time", "10", container)
    # The other replica's episode never stopped answering.
    assert httpx.post(f"{other['api_url']}/mail/search", json={"query": "Globex"}, timeout=60).status_code == 200
    def back() -> bool:
        answer = httpx.get(f"{stack.url}/v1/episodes/{restarted['id']}", headers=CONTROL, timeout=60)
        if answer.status_code != 200:   # until it is back: the router's shaped answer, never another's state
            assert answer.status_code in (502, 503, 504), answer.text
            assert answer.json()["error"]["type"] == "unavailable", answer.text
        return answer.status_code == 200
    wait_for("the restarted replica's episode to answer", back, 240)
    assert holder(stack, "w0") == container   # it took its own tag back: the other replica holds the other
    resumed = re.findall(r"resumed (\d+) episode\(s\) from /trajectories/w0", log(stack, container))
    assert resumed and int(resumed[-1]) >= 1, log(stack, container)[-3000:]   # its start since the restart
    assert steps(stack, restarted) == [("rest", "send")]
    assert httpx.post(f"{restarted['api_url']}/mail/search", json={"query": "Globex"}, timeout=60).status_code == 200
    assert steps(stack, restarted) == [("rest", "send"), ("rest", "search")]
    assert steps(stack, other) == [("rest", "send"), ("rest", "search")]
