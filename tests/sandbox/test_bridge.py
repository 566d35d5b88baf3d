"""The bridge forwards one episode's paths to its one upstream, whatever the request line names.

A canary server on loopback stands for "anywhere else": requests that name it (absolute form, with or
without userinfo, or CONNECT) must never reach it. Requests are written by hand on a raw socket, since
no well-behaved client sends them.
"""

import socket

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from sandbox.bridge import Bridge
from simulator.service.serve import serve_in_thread


def recorder() -> tuple[Starlette, list]:
    """An app that answers every request with what it received, and remembers it."""
    hits = []

    async def echo(request: Request):
        body = await request.body()
        hits.append((request.method, request.url.path, body))
        return JSONResponse({"path": request.url.path, "body": body.decode()})

    return Starlette(routes=[Route("/{path:path}", echo, methods=["GET", "POST", "DELETE", "PUT"])]), hits


@pytest.fixture
def servers():
    gateway, gateway_hits = recorder()
    canary, canary_hits = recorder()
    with serve_in_thread(gateway) as gateway_url, serve_in_thread(canary) as canary_url:
        with Bridge(("127.0.0.1", 0), gateway_url, ["/episodes/e1/api"]) as bridge:
            yield bridge.port, canary_url.rsplit(":", 1)[1], gateway_hits, canary_hits


def raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and (b"}" in answer or b"0\r\n\r\n" in answer):
                break
        return answer


def test_an_allowed_path_reaches_the_gateway(servers):
    port, _, gateway_hits, _ = servers
    response = httpx.post(f"http://127.0.0.1:{port}/episodes/e1/api/mail/search", json={"query": "x"})
    assert response.status_code == 200 and response.json()["path"] == "/episodes/e1/api/mail/search"
    assert gateway_hits == [("POST", "/episodes/e1/api/mail/search", b'{"query":"x"}')]


@pytest.mark.parametrize("target", ["http://127.0.0.1:{canary}/episodes/e1/api/mail/search",
                                    "http://agent:secret@127.0.0.1:{canary}/episodes/e1/api/mail/search",
                                    "//127.0.0.1:{canary}/episodes/e1/api/mail/search"])
def test_an_absolute_form_naming_another_server_never_reaches_it(servers, target):
    port, canary, gateway_hits, canary_hits = servers
    target = target.format(canary=canary)
    answer = raw(port, f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1:{canary}\r\nContent-Length: 2\r\n"
                       f"Connection: close\r\n\r\n{{}}".encode())
    assert answer.split(b" ")[1] in (b"400", b"403"), answer
    assert canary_hits == [] and gateway_hits == []


def test_connect_is_refused(servers):
    port, canary, gateway_hits, canary_hits = servers
    answer = raw(port, f"CONNECT 127.0.0.1:{canary} HTTP/1.1\r\nHost: 127.0.0.1:{canary}\r\n\r\n".encode())
    assert answer.split(b" ")[1] in (b"400", b"405"), answer
    assert canary_hits == [] and gateway_hits == []


def test_a_chunked_body_arrives_whole(servers):
    port, _, gateway_hits, _ = servers
    answer = raw(port, b"POST /episodes/e1/api/mail/send HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                       b"Content-Type: application/json\r\nConnection: close\r\n\r\n"
                       b"6\r\n{\"a\": \r\n4\r\n\"bc\"\r\n1\r\n}\r\n0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200"), answer
    assert gateway_hits == [("POST", "/episodes/e1/api/mail/send", b'{"a": "bc"}')]


@pytest.mark.parametrize("path", ["/episodes/e2/api/mail/search", "/v1/episodes", "/episodes/e1/api/../../v1/x",
                                  "/episodes/e1/api/%2e%2e/x", "/episodes/e1/apiX"])
def test_paths_outside_the_episode_are_refused(servers, path):
    port, _, gateway_hits, _ = servers
    assert httpx.get(f"http://127.0.0.1:{port}{path}").status_code in (403, 404)
    assert gateway_hits == []
