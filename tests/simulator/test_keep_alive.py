"""A connection a client keeps for reuse stays open on the server for longer than the client keeps it.

httpx keeps an idle connection 5 s (``keepalive_expiry``), as uvicorn's own default keep-alive was: a request sent
on a connection idle for almost 5 s could meet the server closing it, and failed with ``ReadError`` (the
benchmark's control-plane run with 64 clients did). ``officeworld up`` and every server the project starts keep an
idle connection ``KEEP_ALIVE_S``."""

import socket
import time

import httpx

from simulator.bench.served import server_process
from simulator.gateway.client import REUSE_IDLE_S
from simulator.service.serve import KEEP_ALIVE_S, serve_in_thread
from simulator.store.episodes import EpisodeStore

_GET = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def _answer(sock: socket.socket) -> bytes:
    """One response's head and body (``/health`` answers with a Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += sock.recv(65536)
    return head


def _idle_then_reused(url: str) -> bytes:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(_GET)
        assert _answer(sock).startswith(b"HTTP/1.1 200")
        time.sleep(httpx.Limits().keepalive_expiry + 1)   # idle past what an httpx client keeps
        sock.sendall(_GET)
        return _answer(sock)


def test_up_keeps_an_idle_connection_longer_than_an_httpx_client_does():
    assert KEEP_ALIVE_S > max(httpx.Limits().keepalive_expiry, REUSE_IDLE_S)   # httpx's and our control client's
    with server_process("acme") as served:
        assert _idle_then_reused(served.url).startswith(b"HTTP/1.1 200")


def test_a_server_in_a_thread_keeps_it_too():
    from simulator.gateway.server import build_app

    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token="t")) as url:
        assert _idle_then_reused(url).startswith(b"HTTP/1.1 200")
