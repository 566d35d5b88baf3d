"""The compose topology run as local processes: an episode carried through the gateway end to end,
with each app in its own service, and a dead app service reported instead of silently emptied."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from factories import make_world
from surfaces import CONTROL, mcp_session, new_episode, run_ow

from sandbox.processes import ProcessesBackend
from simulator.store.registry import APPS, service_apps
from simulator.trajectories.files import read as read_trajectory

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> tuple[ProcessesBackend, Path, Path]:
    tmp = tmp_path_factory.mktemp("processes")
    world_dir = make_world(tmp / "worlds")
    env = {"OFFICEWORLD_WORLD": str(world_dir), "OFFICEWORLD_CACHE_DIR": str(tmp / "cache"),
           "OFFICEWORLD_TRAJECTORY_DIR": str(tmp / "trajectories")}
    backend = ProcessesBackend(ROOT / "compose.yaml", env=env, log_dir=tmp / "logs", startup_timeout=60)
    with backend:
        yield backend, world_dir, tmp / "trajectories"


def test_runs_every_service_of_compose_yaml_and_only_the_gateway_serves_agents(world):
    backend, _, _ = world
    assert [s.name for s in backend.services] == [*service_apps(), "gateway"]  # agent-shell is a profile
    health = httpx.get(f"{backend.url('gateway')}/health").json()
    assert health["apps"] == sorted(APPS)
    # An app service speaks only its admin API: it has no agent surfaces.
    assert httpx.post(f"{backend.url('mail')}/episodes/x/api/mail/search", json={}).status_code == 404


def test_an_episode_acts_over_mcp_and_the_cli_and_its_state_lives_in_the_app_services(world):
    backend, world_dir, trajectories = world
    base = backend.url("gateway")
    episode = new_episode(base, world_dir)
    found, sent = asyncio.run(mcp_session(episode["mcp_url"], [
        ("mail_search", {"query": "from:sam renewal"}),
        ("mail_send", {"to": ["ravi@small.test"], "subject": "Quote", "body": "Sent over MCP"})]))[1]
    assert not found.is_error and found.structured_content["total"] == 1
    assert not sent.is_error
    cli = run_ow(base, episode["id"], "mail", "search", "subject:Quote", "--json")
    assert cli.returncode == 0, cli.stderr
    assert [m["subject"] for m in json.loads(cli.stdout)["messages"]] == ["Quote"]

    steps = httpx.get(f"{base}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["operation"], s["state_changed"]) for s in steps] == [
        ("mcp", "search", False), ("mcp", "send", True), ("cli", "search", False)]
    # The mail service holds the changed state; a fresh episode's digest differs only in mail.
    digests = httpx.get(f"{base}/v1/episodes/{episode['id']}/digest", headers=CONTROL).json()["apps"]
    fresh = httpx.get(f"{base}/v1/episodes/{new_episode(base, world_dir)['id']}/digest", headers=CONTROL).json()["apps"]
    token = {"authorization": f"Bearer {backend.admin_token}"}
    assert httpx.get(f"{backend.url('mail')}/admin/episodes/{episode['id']}/digest").status_code == 403
    admin = httpx.get(f"{backend.url('mail')}/admin/episodes/{episode['id']}/digest", headers=token).json()
    assert admin["digest"] == digests["mail"] != fresh["mail"]
    assert digests["crm"] == fresh["crm"] and digests["docs"] == fresh["docs"]

    assert httpx.delete(f"{base}/v1/episodes/{episode['id']}", headers=CONTROL).status_code == 204
    saved = read_trajectory(trajectories / f"{episode['id']}.jsonl")
    assert [s.operation for s in saved.steps] == ["search", "send", "search"]
    assert saved.finished and saved.footer.reason == "delete" and saved.footer.digests["mail"] == digests["mail"]
    assert httpx.get(f"{backend.url('mail')}/admin/episodes/{episode['id']}", headers=token).status_code == 404


def test_fork_and_restore_work_across_services(world):
    backend, world_dir, _ = world
    base = backend.url("gateway")
    episode = new_episode(base, world_dir)
    send = {"to": ["mei@small.test"], "subject": "Before fork", "body": "x"}
    assert httpx.post(f"{episode['api_url']}/mail/send", json=send).status_code == 200
    snapshot = httpx.get(f"{base}/v1/episodes/{episode['id']}/snapshot", headers=CONTROL).content
    child = httpx.post(f"{base}/v1/episodes/{episode['id']}/fork", headers=CONTROL).json()
    digest = lambda e: httpx.get(f"{base}/v1/episodes/{e}/digest", headers=CONTROL).json()["digest"]  # noqa: E731
    assert digest(child["id"]) == digest(episode["id"])
    assert httpx.post(f"{child['api_url']}/mail/send", json={**send, "subject": "Child only"}).status_code == 200
    assert digest(child["id"]) != digest(episode["id"])
    restored = httpx.post(f"{base}/v1/episodes/{child['id']}/restore", content=snapshot, headers=CONTROL)
    assert restored.status_code == 200 and digest(child["id"]) == digest(episode["id"])


def test_a_dead_app_service_is_an_error_state_and_the_other_apps_keep_working(world):
    """Runs last in this module: it kills the crm service."""
    backend, world_dir, _ = world
    base = backend.url("gateway")
    episode = new_episode(base, world_dir)
    assert httpx.post(f"{episode['api_url']}/crm/list_users", json={}).status_code == 200
    backend.kill("crm")

    info = httpx.get(f"{base}/v1/episodes/{episode['id']}", headers=CONTROL).json()
    assert info["status"] == "error" and set(info["app_errors"]) == {"crm"}
    assert "crm service" in info["app_errors"]["crm"] and "cannot be reached" in info["app_errors"]["crm"]

    rest = httpx.post(f"{episode['api_url']}/crm/list_users", json={})
    assert rest.status_code == 503 and rest.json()["error"]["type"] == "unavailable"
    assert "crm service" in rest.json()["error"]["message"]
    (mcp_crm, mcp_mail) = asyncio.run(mcp_session(episode["mcp_url"], [("crm_list_users", {}),
                                                                ("mail_search", {"query": "Globex"})]))[1]
    assert mcp_crm.is_error and "unavailable" in mcp_crm.content[0].text
    assert not mcp_mail.is_error and mcp_mail.structured_content["total"] == 2
    cli = run_ow(base, episode["id"], "crm", "list-users")
    assert cli.returncode == 3 and "crm service" in cli.stderr
    digest = httpx.get(f"{base}/v1/episodes/{episode['id']}/digest", headers=CONTROL)
    assert digest.status_code == 503 and "crm" in digest.json()["error"]["message"]
    # A new episode is still created (apps open lazily) and reports the dead app at once.
    fresh = new_episode(base, world_dir)
    assert fresh["status"] == "error" and set(fresh["app_errors"]) == {"crm"}
    steps = httpx.get(f"{base}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["app"], (s["error"] or {}).get("type")) for s in steps] == [
        ("rest", "crm", None), ("rest", "crm", "unavailable"), ("mcp", "crm", "unavailable"),
        ("mcp", "mail", None), ("cli", "crm", "unavailable")]


def test_an_invitation_from_the_calendar_service_is_delivered_by_the_mail_service(world):
    backend, world_dir, _ = world
    base = backend.url("gateway")
    episode = new_episode(base, world_dir)
    created = asyncio.run(mcp_session(episode["mcp_url"], [
        ("calendar_create_event", {"title": "Across services", "start": "2026-03-18T11:00:00",
                                   "end": "2026-03-18T11:30:00", "attendees": ["mei@small.test"]})]))[1][0]
    assert not created.is_error, created.content[0].text
    steps = httpx.get(f"{base}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["app"], s["operation"], s["error"]) for s in steps] == [
        ("mcp", "calendar", "create_event", None), ("peer", "mail", "send", None)]
    sent = run_ow(base, episode["id"], "mail", "search", "in:sent Across services", "--json")
    assert sent.returncode == 0 and json.loads(sent.stdout)["total"] == 1, sent.stderr


def test_officeworld_up_with_the_processes_backend_serves_an_episode_and_stops_its_services(tmp_path):
    """The README's ``officeworld up --backend processes``, as a user runs it (it found no compose.yaml once the
    module moved a folder down, and only the backend itself was tested)."""
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "OFFICEWORLD_TOKEN": "t0k", "OFFICEWORLD_CACHE_DIR": str(tmp_path / "cache")}
    up = subprocess.Popen([sys.executable, "-m", "simulator.cli", "up", "--backend", "processes", "--port", str(port)],
                          cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline, said = time.monotonic() + 120, ""
        assert up.stderr is not None
        while "episode ep_" not in said:
            assert up.poll() is None and time.monotonic() < deadline, said[-3000:]
            said += up.stderr.readline()
        episode = said.split("episode ", 1)[1].split()[0]
        headers = {"Authorization": "Bearer t0k"}
        found = httpx.post(f"http://127.0.0.1:{port}/episodes/{episode}/api/mail/search", json={"query": "is:unread"})
        assert found.status_code == 200 and found.json()["messages"]
        assert httpx.get(f"http://127.0.0.1:{port}/v1/episodes/{episode}", headers=headers).json()["id"] == episode
    finally:
        up.send_signal(signal.SIGTERM)
        assert up.wait(timeout=60) == 0
    with pytest.raises(httpx.ConnectError):   # the services stopped with it
        httpx.get(f"http://127.0.0.1:{port}/health")
