"""compose.yaml running for real, checked over its published port and the container engine.

`.ci/compose` brings the stack up (rootful Podman here, the gateway scaled to 2 replicas behind the router of
compose.scale.yaml) and runs this file with the settings tests/compose_stack.py reads; without
OFFICEWORLD_LIVE_URL it is skipped, with it anything else missing fails. It stops and starts the crm container
and starts the agent profile. test_compose_scale_live.py checks the replicas themselves.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from compose_stack import LIVE, wait_for
from surfaces import CONTROL, mcp_session

from simulator.store.registry import service_apps

pytestmark = pytest.mark.skipif(not LIVE, reason="no live compose stack (OFFICEWORLD_LIVE_URL; .ci/compose sets it)")

# Run in the app containers: the routes they have, and whether an address outside answers.
PROBE = """
import json, socket
routes = [line.split()[1] for line in open('/proc/net/route').read().splitlines()[1:]]
try:
    socket.create_connection(('1.1.1.1', 53), timeout=3).close(); out = 'connected'
except OSError as error:
    out = type(error).__name__ + ': ' + str(error)
print(json.dumps({'default_route': '00000000' in routes, 'outside': out}))
"""


def test_every_app_runs_in_its_own_container_behind_the_gateway(stack):
    episode = stack.episode()
    assert episode["status"] == "ready" and episode["app_errors"] == {}
    assert episode["mcp_url"].startswith(stack.url)
    assert set(service_apps()) <= set(episode["apps"])
    for service in [*service_apps(), "gateway"]:
        assert stack.container(service)
    # An app service serves only its admin API, and only to the gateway, which holds the token.
    probe = "import urllib.request as u, urllib.error as e\ntry: u.urlopen('http://127.0.0.1:8000/admin/episodes/x')\n" \
            "except e.HTTPError as r: print(r.code)"
    assert stack.exec("mail", "python", "-c", probe).stdout.strip() == "403"


def test_an_episode_acts_over_mcp_and_its_state_lives_in_the_app_container(stack):
    episode = stack.episode()
    tools, (found, sent) = asyncio.run(mcp_session(episode["mcp_url"], [
        ("mail_search", {"query": "Globex"}),
        ("mail_send", {"to": ["ravi@example.com"], "subject": "From the containers", "body": "Sent over MCP"})]))
    assert {"mail_search", "crm_list_users", "docs_search", "calendar_create_event"} <= {t.name for t in tools}
    assert not found.is_error and found.structured_content["total"] > 0, found.content
    assert not sent.is_error, sent.content
    steps = httpx.get(f"{stack.url}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["operation"], s["state_changed"]) for s in steps] == [
        ("mcp", "search", False), ("mcp", "send", True)]
    digest = httpx.get(f"{stack.url}/v1/episodes/{episode['id']}/digest", headers=CONTROL).json()["apps"]
    fresh = httpx.get(f"{stack.url}/v1/episodes/{stack.episode()['id']}/digest", headers=CONTROL).json()["apps"]
    assert {app for app in digest if digest[app] != fresh[app]} == {"mail"}


def test_an_app_container_has_no_route_out_of_its_internal_network(stack):
    app = json.loads(stack.exec("mail", "python", "-c", PROBE).stdout)
    assert app["default_route"] is False and app["outside"] != "connected", app
    # The probe can see a way out: the gateway, also on the `edge` network, has one.
    assert json.loads(stack.exec("gateway", "python", "-c", PROBE).stdout)["default_route"] is True


def test_a_stopped_app_container_is_reported_and_the_episode_recovers_when_it_is_back(stack):
    touched, untouched = stack.episode(), stack.episode()
    assert httpx.post(f"{touched['api_url']}/crm/list_users", json={}).status_code == 200
    crm = stack.container("crm")
    stack.run(stack.engine, "stop", "--time", "5", crm)
    try:
        for episode in (touched, untouched):
            info = stack.info(episode)
            assert info["status"] == "error" and set(info["app_errors"]) == {"crm"}, info
            assert "crm service" in info["app_errors"]["crm"] and "cannot be reached" in info["app_errors"]["crm"]
        refused = httpx.post(f"{stack.episode()['api_url']}/crm/list_users", json={}, timeout=60)
        assert refused.status_code == 503 and "crm service" in refused.json()["error"]["message"]
        assert httpx.post(f"{untouched['api_url']}/mail/search", json={"query": "Globex"}).status_code == 200
    finally:
        stack.run(stack.engine, "start", crm)
    wait_for("the untouched episode to be ready again", lambda: stack.info(untouched)["status"] == "ready", 120)
    assert httpx.post(f"{untouched['api_url']}/crm/list_users", json={}, timeout=60).status_code == 200
    # The episode that had opened crm lost that state with the container, and says so.
    lost = stack.info(touched)
    assert lost["status"] == "error" and "lost this episode's state" in lost["app_errors"]["crm"], lost


def test_the_agent_shell_reaches_only_its_episode(stack):
    mine, other = stack.episode(), stack.episode()
    stack.run(*stack.compose, "--profile", "agent", "up", "--detach", "--no-build", "--no-deps",
              "agent-proxy", "agent-shell", env={"OW_EPISODE": mine["id"]})

    def search():
        done = stack.exec("agent-shell", "ow", "mail", "search", "Globex", "--json")
        return done if done.returncode == 0 else None
    found = wait_for("ow in the agent shell to answer", search, 90)
    assert json.loads(found.stdout)["total"] > 0
    steps = httpx.get(f"{stack.url}/v1/episodes/{mine['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["operation"]) for s in steps] == [("cli", "search")]

    refused = stack.exec("agent-shell", "ow", "mail", "list-labels", env={"OW_EPISODE": other["id"]})
    assert refused.returncode == 5 and "outside" in refused.stderr, refused.stderr
    reach = """
import json, socket, urllib.request, urllib.error
def connect(host, port):
    try:
        socket.create_connection((host, port), timeout=3).close(); return 'connected'
    except OSError as error:
        return type(error).__name__
def get(path):
    try:
        return urllib.request.urlopen('http://agent-proxy:8000' + path, timeout=10).status
    except urllib.error.HTTPError as error:
        return error.code
print(json.dumps({'gateway': connect('gateway', 8000), 'mail': connect('mail', 8000),
                  'outside': connect('1.1.1.1', 53), 'control': get('/v1/episodes'), 'health': get('/health')}))
"""
    # The image holds python and ow only: no task definitions, worlds or apps to read the answers from.
    look = "ls /app /opt/venv; find / -xdev \\( -name FACTS.md -o -path '*/tasks/suites*' -o -path '*/officeworld*' \\) -print"
    listing = stack.exec("agent-shell", "sh", "-c", look)
    assert "No such file" in listing.stderr and listing.stdout.strip() == "", listing.stdout[:2000]
    seen = json.loads(stack.exec("agent-shell", "python3", "-c", reach).stdout)
    assert seen["gateway"] != "connected" and seen["mail"] != "connected" and seen["outside"] != "connected", seen
    assert seen["control"] == 403 and seen["health"] == 403, seen
