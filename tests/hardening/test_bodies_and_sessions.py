"""Request bodies are bounded (413 naming the limit; the largest legitimate bodies pass), the gateway's
MCP session map does not grow across episodes, and lone surrogates over MCP come back as tool errors."""

from __future__ import annotations

import base64
import json
import time

import httpx
from fastapi.testclient import TestClient
from surfaces import CONTROL, new_episode, open_session

from apps.mail import APP as MAIL
from simulator.gateway.body_limit import BODY_LIMIT
from simulator.gateway.server import build_app
from simulator.service.app_service import build_app_service
from simulator.service.serve import serve_in_thread


def _too_large(response: httpx.Response, limit: int) -> None:
    assert response.status_code == 413, response.text
    error = response.json()["error"]
    assert error["type"] == "too_large" and error["field"] == "body" and str(limit) in error["message"]


def test_a_body_past_the_limit_is_refused_and_the_largest_legitimate_ones_pass(store, world_dir):
    with TestClient(build_app(store), base_url="http://localhost:8000", headers=CONTROL) as api:
        episode = api.post("/v1/episodes", json={"world": str(world_dir)}).json()
        rest = f"/episodes/{episode['id']}/api"
        _too_large(api.post(f"{rest}/mail/search", content=b" " * (BODY_LIMIT + 1),
                            headers={"content-type": "application/json"}), BODY_LIMIT)
        assert api.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"] == []
        made = api.post(f"{rest}/docs/create_document", json={"name": "Big"}).json()["id"]
        # 2 million characters, each escaped as \\u00e9 by an ASCII-only encoder: 12 MB on the wire.
        body = json.dumps({"file_id": made, "text": "é" * 2_000_000}).encode()
        document = api.post(f"{rest}/docs/write_document", content=body, headers={"content-type": "application/json"})
        assert document.status_code == 200, document.text[:300]
        upload = base64.b64encode(b"\x00\xff" * 3_749_998).decode()   # 9,999,996 characters of base64
        stored = api.post(f"{rest}/docs/upload_file", json={"name": "big.bin", "content_base64": upload})
        assert stored.status_code == 200, stored.text[:300]


def test_a_chunked_body_is_cut_at_the_limit_over_real_http(store, world_dir):
    gateway = build_app(store)
    gateway.body_limit = 4096
    with serve_in_thread(gateway) as base:
        episode = new_episode(base, world_dir)
        chunks = (b'{"query": "' + b"x" * 1000 + b'"' if i == 0 else b" " * 1000 for i in range(10))
        refused = httpx.post(f"{base}/episodes/{episode['id']}/api/mail/search", content=chunks,
                             headers={"content-type": "application/json"})
        _too_large(refused, 4096)
        assert httpx.post(f"{base}/episodes/{episode['id']}/api/mail/search", json={"query": "x"}).status_code == 200


def test_an_app_service_bounds_its_bodies_too(tmp_path, world_dir):
    service = build_app_service(MAIL, [str(world_dir)], cache_dir=tmp_path / "cache", token="t")
    with TestClient(service) as client:
        refused = client.post("/admin/episodes/ep_1/call/search", content=b" " * (BODY_LIMIT + 1),
                              headers={"authorization": "Bearer t", "content-type": "application/json"})
        _too_large(refused, BODY_LIMIT)


def test_the_session_map_forgets_sessions_of_deleted_episodes_and_ended_sessions(store, world_dir):
    gateway = build_app(store)
    with serve_in_thread(gateway) as base, httpx.Client(timeout=30) as http:
        for _ in range(3):
            episode = new_episode(base, world_dir)
            headers = open_session(http, episode["mcp_url"])
            call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "mail_list_labels", "arguments": {}}}
            assert http.post(episode["mcp_url"], json=call, headers=headers).status_code == 200
            ended = open_session(http, episode["mcp_url"])
            assert http.delete(episode["mcp_url"], headers=ended).status_code < 300
            assert len(gateway.sessions) == 1
            assert http.delete(f"{base}/v1/episodes/{episode['id']}", headers=CONTROL).status_code == 204
            assert gateway.sessions == {}
            deadline = time.monotonic() + 60
            while gateway.manager._server_instances and time.monotonic() < deadline:
                time.sleep(0.05)
            assert gateway.manager._server_instances == {}   # the SDK ended the session too
            assert http.post(episode["mcp_url"], json=call, headers=headers).status_code == 404


def test_a_lone_surrogate_over_mcp_is_a_tool_error_naming_the_field(store, world_dir):
    with serve_in_thread(build_app(store)) as base, httpx.Client(timeout=30) as http:
        episode = new_episode(base, world_dir)
        headers = open_session(http, episode["mcp_url"])
        raw = (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mail_search",'
               b'"arguments":{"query":"a\\ud800b"}}}')
        answer = http.post(episode["mcp_url"], content=raw, headers=headers)
        assert answer.status_code == 200, answer.text
        reply = answer.json()
        assert reply["id"] == 7 and "error" not in reply and reply["result"]["isError"] is True
        error = json.loads(reply["result"]["content"][0]["text"])["error"]
        assert error["field"] == "query" and "surrogate" in error["message"]
        steps = http.get(f"{base}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
        assert [(s["operation"], s["error"]["field"]) for s in steps] == [("search", "query")]
        nested = (b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"mail_send",'
                  b'"arguments":{"to":["x@small.test","\\udc00"],"subject":"s","body":"b"}}}')
        error = json.loads(http.post(episode["mcp_url"], content=nested, headers=headers).json()["result"]["content"][0]["text"])
        assert error["error"]["field"].startswith("to")
        paired = (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mail_search",'
                  b'"arguments":{"query":"\\ud83d\\ude00"}}}')   # a valid pair goes on to the SDK as usual
        assert '"isError":true' not in http.post(episode["mcp_url"], content=paired, headers=headers).text
