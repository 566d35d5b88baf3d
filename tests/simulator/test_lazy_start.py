"""What the gateway builds on first use rather than at start (simulator/gateway/mcp_lazy.py, ``_Deferred`` in
server.py) answers its first request as if it had been built at start: MCP with the official client, a wrong
method on an operation's path, the OpenAPI document, a GUI page, the /tools catalogue; and the opt-in warm-up."""

import asyncio
import time

import httpx
from fastapi.testclient import TestClient
from surfaces import CONTROL, mcp_session, new_episode

from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread


def test_the_first_mcp_request_builds_the_server_and_is_answered(store, world_dir):
    gateway = build_app(store)
    assert gateway.mcp.built is None   # nothing of the MCP server at start
    with serve_in_thread(gateway) as url:
        episode = new_episode(url, world_dir)
        assert gateway.mcp.built is None   # the control plane does not build it either
        tools, (found,) = asyncio.run(mcp_session(episode["mcp_url"], [("mail_search", {"query": "from:sam renewal"})]))
        assert gateway.mcp.built is not None and gateway.mcp.running
        assert {"mail_search", "mail_send", "crm_get_account"} <= {t.name for t in tools}
        assert not found.is_error and found.structured_content["total"] == 1
        steps = httpx.get(f"{url}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
        assert [(s["surface"], s["operation"]) for s in steps] == [("mcp", "search")]


def test_the_warm_up_builds_the_mcp_server_without_a_request(store):
    gateway = build_app(store, warm_mcp=True)
    with TestClient(gateway):
        deadline = time.monotonic() + 60
        while gateway.mcp.built is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert gateway.mcp.built is not None
        assert not gateway.mcp.running   # its session manager starts with the first MCP request


def test_deferred_routes_answer_their_first_request(store, world_dir):
    for first in ("wrong method", "openapi", "gui", "tools"):
        gateway = build_app(store)
        assert not any(d.included for d in gateway.deferred)
        with TestClient(gateway, base_url="http://localhost:8000", headers=CONTROL) as client:
            episode = client.post("/v1/episodes", json={"world": str(world_dir)}).json()["id"]
            if first == "wrong method":
                answer = client.get(f"/episodes/{episode}/api/mail/search")
                assert answer.status_code == 405 and answer.json()["error"]["type"] == "method_not_allowed"
            elif first == "openapi":
                paths = client.get("/openapi.json").json()["paths"]
                assert "/episodes/{episode_id}/api/mail/search" in paths
                body = paths["/episodes/{episode_id}/api/mail/send"]["post"]["requestBody"]
                assert body["content"]["application/json"]["schema"]["required"] == ["to", "subject", "body"]
            elif first == "gui":
                page = client.get(f"/episodes/{episode}/gui/mail")
                assert page.status_code == 200 and "text/html" in page.headers["content-type"]
            else:
                tools = client.get(f"/episodes/{episode}/api/tools").json()["tools"]
                send = next(t for t in tools if t["app"] == "mail" and t["name"] == "send")
                assert send["input_schema"]["required"] == ["to", "subject", "body"]
            answer = client.post(f"/episodes/{episode}/api/mail/search", json={"query": "from:sam renewal"})
            assert answer.status_code == 200 and answer.json()["total"] == 1
