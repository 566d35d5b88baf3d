"""The control-plane client's own wire (sockets for ``Client``, aiohttp for ``AsyncClient``) against the httpx client
it replaced, kept here as the reference (``transport=`` still takes that path): the same requests on the wire, the
same answers and errors, httpx's exception kinds when the wire fails, connections reused and shared."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
from surfaces import TOKEN

from simulator.gateway import client as control
from simulator.gateway.client import AsyncClient, Client, ControlError
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore

TASK = "crm-close-globex-renewal"


# ---- a stand-in server: records each request and the connection it came on ---------------------------------

class StandIn(socketserver.ThreadingTCPServer):
    daemon_threads, block_on_close, allow_reuse_address = True, False, True

    def __init__(self, reply: Callable[[dict], bytes | None]):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.reply, self.connections = reply, 0
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        server: StandIn = self.server   # type: ignore[assignment]
        with server.lock:
            server.connections += 1
            connection = server.connections
        while line := self.rfile.readline():
            headers = {}
            while (header := self.rfile.readline()) not in (b"\r\n", b""):
                name, _, value = header.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = self.rfile.read(int(headers.get("content-length", 0)))
            request = {"line": line.decode("latin-1").strip(), "headers": headers, "body": body,
                       "connection": connection}
            with server.lock:
                server.requests.append(request)
            answer = server.reply(request)
            if answer is None:
                return   # close without answering
            self.wfile.write(answer)


def _response(status: int, body: bytes, content_type: str = "application/json", close: bool = False) -> bytes:
    head = f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
    return (head + ("Connection: close\r\n" if close else "") + "\r\n").encode() + body


OK = _response(200, b'{"ok": true}')


@contextlib.contextmanager
def stand_in(reply: Callable[[dict], bytes | None] = lambda request: OK) -> Iterator[StandIn]:
    server = StandIn(reply)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _hang(request: dict) -> bytes | None:
    time.sleep(3)
    return None


def _run(coroutine):
    return asyncio.run(coroutine)


# ---- both clients through one interface: sync calls, the async client's run to completion ------------------

class Sync:
    def __init__(self, url: str, token: str = TOKEN, **options):
        self.client = Client(url, token, **options)

    def __call__(self, method: str, *args, **kwargs):
        return getattr(self.client, method)(*args, **kwargs)

    def close(self):
        self.client.close()


class Async:
    """An ``AsyncClient`` driven from sync code: one loop for the client's life, as a trainer's would be."""

    def __init__(self, url: str, token: str = TOKEN, **options):
        self.loop = asyncio.new_event_loop()
        self.client = AsyncClient(url, token, **options)

    def __call__(self, method: str, *args, **kwargs):
        return self.loop.run_until_complete(getattr(self.client, method)(*args, **kwargs))

    def close(self):
        self.loop.run_until_complete(self.client.aclose())
        self.loop.close()


def _reference(kind) -> dict:
    """The httpx client the wire replaced, with the same kind's options."""
    transport = httpx.HTTPTransport() if kind is Sync else httpx.AsyncHTTPTransport()
    return {"transport": transport}


@contextlib.contextmanager
def opened(kind, url: str, **options):
    client = kind(url, **options)
    try:
        yield client
    finally:
        client.close()


KINDS = pytest.mark.parametrize("kind", [Sync, Async], ids=["Client", "AsyncClient"])

CALLS: list[tuple[str, tuple, dict]] = [
    ("create_episode", (TASK,), {"meta": {"ü": "名前", "x": 1.5, "deep": [None, True, 10**20]}, "tools": False,
                                 "actor": "agent", "record": True}),
    ("create_episode", (), {"world": "acme"}),
    ("call", ("ep_1", "crm_search", {"text": "a\"b\\c\n\u2028 😀\x00"}), {}),
    ("call", ("ep_1", "crm_search"), {"actor": "mei"}),
    ("episode", ("ep 1?x=1#frag/é",), {}),
    ("episodes", (), {}),
    ("episodes", (), {"task": "a b&c=d/é+%2F~"}),
    ("fork", ("ep_1",), {}),
    ("finish", ("ep_1",), {}),
    ("finish", ("ep_1",), {"answer": "Done — ✓", "status": "done"}),
    ("oracle", ("ep_1", 2), {}),
    ("trajectory", ("ep_1",), {}),
    ("digest", ("ep_1",), {}),
    ("advance_clock", ("ep_1", 1e-7), {}),
    ("delete", ("ep_1",), {}),
    ("tasks", (), {}),
    ("tasks", (), {"suite": "s", "tag": "t t", "world": "w"}),
    ("task", ("crm/../x%41;,@:",), {}),
    ("tools", (), {}),
]


def _seen(request: dict) -> tuple:
    headers = request["headers"]
    length = headers.get("content-length")
    if request["line"].startswith("DELETE") and length == "0":
        length = None   # aiohttp says so of a DELETE without a body; httpx says nothing
    return (request["line"], request["body"], headers.get("host"), headers.get("authorization"),
            headers.get("content-type"), length)


@KINDS
@pytest.mark.parametrize("prefix", ["", "/", "/pre/fix", "/pré fix/"])
def test_every_method_sends_what_httpx_sent(kind, prefix):
    with stand_in() as server:
        for options in ({}, _reference(kind)):
            with opened(kind, server.url + prefix, **options) as ow:
                for method, args, kwargs in CALLS:
                    assert ow(method, *args, **kwargs) == {"ok": True}
        sent = [_seen(r) for r in server.requests]
    assert len(sent) == 2 * len(CALLS)
    assert sent[:len(CALLS)] == sent[len(CALLS):]


@KINDS
def test_answers_and_errors_over_a_real_server(kind):
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token=TOKEN)) as url, opened(kind, url) as ow:
        episode = ow("create_episode", TASK, meta={"sample": 1})
        assert episode["task"]["id"] == TASK and episode["tools"]["openai"]
        step = ow("call", episode["id"], "crm_search", {"text": "globex renewal"})
        assert step["error"] is None and step["result"]
        bad = ow("call", episode["id"], "crm_update_opportunity", {"opportunity_id": 10**9, "stage": "Closed Won"})
        assert bad["error"]["type"] == "not_found"   # a tool error is a Step
        child = ow("fork", episode["id"])
        assert {e["id"] for e in ow("episodes", task=TASK)} == {episode["id"], child["id"]}
        assert ow("advance_clock", child["id"], 60)
        assert ow("trajectory", episode["id"])["steps"] and ow("digest", episode["id"])
        assert ow("oracle", child["id"])
        assert ow("finish", child["id"])["passed"] is True
        assert ow("finish", episode["id"], answer="no", status="done")["passed"] is False
        assert ow("delete", child["id"]) is None and ow("delete", episode["id"]) is None   # 204
        assert TASK in {t["id"] for t in ow("tasks")} and ow("task", TASK)["id"] == TASK
        assert ow("tools")
        with pytest.raises(ControlError) as gone:
            ow("episode", episode["id"])
        assert (gone.value.status, gone.value.type, gone.value.field) == (404, "not_found", "episode_id")
        with pytest.raises(ControlError) as unknown:
            ow("create_episode", world="no-such-world")
        assert unknown.value.status == 404 and "no world named 'no-such-world'" in unknown.value.message
        with pytest.raises(ControlError) as invalid:
            ow("advance_clock", TASK, -5)
        assert (invalid.value.status, invalid.value.type, invalid.value.field) == (422, "invalid", "seconds")
        with opened(kind, url, token="wrong") as stranger, pytest.raises(ControlError) as unauthorized:
            stranger("tools")
        assert unauthorized.value.status == 401 and unauthorized.value.field == "authorization"


@KINDS
def test_a_response_that_is_not_json_is_its_text_and_204_is_none(kind):
    page = b"<html>bad gateway \xc3\xa9</html>"
    replies = {"/v1/tools": _response(502, page, "text/html; charset=utf-8"),
               "/v1/tasks": _response(503, b'{"error": {"type": "busy", "message": "later", "field": "x"}}'),
               "/v1/episodes/a": _response(404, b'["not", "an", "object"]'),
               "/v1/episodes/b": b"HTTP/1.1 204 No Content\r\n\r\n"}
    with stand_in(lambda request: replies[request["line"].split()[1]]) as server, opened(kind, server.url) as ow:
        with pytest.raises(ControlError) as html:
            ow("tools")
        assert (html.value.status, html.value.type, html.value.message) == (502, "error", page.decode())
        with pytest.raises(ControlError) as busy:
            ow("tasks")
        assert (busy.value.status, busy.value.type, busy.value.message, busy.value.field) == (503, "busy", "later", "x")
        with pytest.raises(ControlError) as odd:
            ow("episode", "a")
        assert odd.value.status == 404 and odd.value.message == '["not", "an", "object"]'
        assert ow("delete", "b") is None


@KINDS
def test_a_refused_connection_is_httpx_connect_error_naming_the_url(kind):
    with stand_in() as server:
        url = server.url
    with opened(kind, url) as ow, pytest.raises(httpx.ConnectError) as refused:
        ow("tools")
    assert f"GET {url}/v1/tools" in str(refused.value)


@KINDS
def test_a_server_that_does_not_answer_is_a_read_timeout(kind):
    with stand_in(_hang) as server, opened(kind, server.url, timeout=0.3) as ow:
        with pytest.raises(httpx.ReadTimeout) as late:   # not the hang's close, seconds later: a protocol error
            ow("call", "ep_1", "crm_search", {"text": "x"})
        assert f"POST {server.url}/v1/episodes/ep_1/call" in str(late.value)


@KINDS
def test_a_dropped_post_is_a_protocol_error_and_is_not_sent_again(kind):
    with stand_in(lambda request: None) as server, opened(kind, server.url) as ow:
        with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)) as dropped:
            ow("fork", "ep_1")
        assert "/v1/episodes/ep_1/fork" in str(dropped.value)
        assert [r["line"] for r in server.requests] == ["POST /v1/episodes/ep_1/fork HTTP/1.1"]


@KINDS
def test_connections_are_reused_and_one_the_server_closed_is_not(kind):
    def reply(request: dict) -> bytes:
        return _response(200, b"{}", close=True) if request["line"].startswith("DELETE") else OK

    with stand_in(reply) as server, opened(kind, server.url) as ow:
        for _ in range(10):
            ow("call", "ep_1", "crm_search")
        assert server.connections == 1
        ow("delete", "ep_1")
        ow("call", "ep_1", "crm_search")
        assert server.connections == 2 and len(server.requests) == 12


class _OnePerConnection(_Handler):
    """Answers one request, then closes without saying so (no ``Connection: close``), as a restarted server does."""

    def handle(self) -> None:
        server: StandIn = self.server   # type: ignore[assignment]
        line = self.rfile.readline()
        headers = {}
        while (header := self.rfile.readline()) not in (b"\r\n", b""):
            name, _, value = header.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        self.rfile.read(int(headers.get("content-length", 0)))
        with server.lock:
            server.connections += 1
            server.requests.append({"line": line})
        self.wfile.write(OK)
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)   # closed now, before the test goes on (``_closed``)
        with server.lock:
            server.closed = getattr(server, "closed", 0) + 1


def _closed(server: StandIn, count: int) -> None:
    """Wait until the stand-in has closed ``count`` connections (bounded; no time is asserted)."""
    deadline = time.monotonic() + 60
    while getattr(server, "closed", 0) < count and time.monotonic() < deadline:
        time.sleep(0.01)


@KINDS
def test_an_idle_connection_the_server_dropped_is_not_used_for_the_next_post(kind):
    with stand_in() as server:
        server.RequestHandlerClass = _OnePerConnection
        if kind is Sync:   # the pool sees the socket readable (its EOF) before sending
            with Client(server.url, TOKEN) as ow:
                for done in range(1, 4):
                    assert ow.finish("ep_1") == {"ok": True}
                    _closed(server, done)
        else:   # the running loop sees the close as it happens; aiohttp drops the connection

            async def main():
                async with AsyncClient(server.url, TOKEN) as ow:
                    for done in range(1, 4):
                        assert await ow.finish("ep_1") == {"ok": True}
                        await asyncio.to_thread(_closed, server, done)
                        await asyncio.sleep(0.05)   # the loop polls its sockets meanwhile, however late the timer

            _run(main())
        assert server.connections == 3 and len(server.requests) == 3


def test_connections_idle_past_keep_alive_are_not_reused(monkeypatch):
    monkeypatch.setattr(control, "REUSE_IDLE_S", 0.0)
    with stand_in() as server, Client(server.url, TOKEN) as ow:
        for _ in range(3):
            ow.tools()
        assert server.connections == 3


def test_eight_threads_share_one_client_on_at_most_eight_connections():
    with stand_in() as server, Client(server.url, TOKEN) as ow:
        def work(n: int) -> list:
            return [ow.call(f"ep_{n}", "crm_search", {"i": i}) for i in range(25)]

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(server.requests) == 200 and server.connections <= 8
        bodies = sorted(json.loads(r["body"])["arguments"]["i"] for r in server.requests)
        assert bodies == sorted(list(range(25)) * 8)


def test_sixty_four_tasks_on_one_async_client_over_a_real_server():
    async def main(url: str) -> list:
        async with AsyncClient(url, TOKEN, max_connections=16) as ow:
            episode = await ow.create_episode(TASK, tools=False)
            steps = await asyncio.gather(*[ow.call(episode["id"], "crm_search", {"text": f"globex {i}"})
                                           for i in range(64)])
            await ow.delete(episode["id"])
            return steps

    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token=TOKEN)) as url:
        steps = _run(main(url))
    assert all(s["error"] is None for s in steps) and len({s["index"] for s in steps}) == 64


def test_the_async_client_keeps_to_max_connections():
    async def main(url: str) -> None:
        async with AsyncClient(url, TOKEN, max_connections=4) as ow:
            await asyncio.gather(*[ow.tools() for _ in range(32)])

    def slow(request: dict) -> bytes:
        time.sleep(0.02)
        return OK

    with stand_in(slow) as server:
        _run(main(server.url))
    assert len(server.requests) == 32 and server.connections <= 4


def test_an_async_client_built_outside_a_loop_serves_each_loop_that_uses_it():
    with stand_in() as server:
        ow = AsyncClient(server.url, TOKEN)
        assert _run(ow.tools()) == {"ok": True}
        assert _run(ow.tools()) == {"ok": True}   # a second loop: its own session
        _run(ow.aclose())
        with pytest.raises(RuntimeError, match="closed"):
            _run(ow.tools())
    with Client(server.url, TOKEN) as closed:
        pass
    with pytest.raises(RuntimeError, match="closed"):
        closed.tools()


def test_a_transport_keeps_the_httpx_client():
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, str(request.url), request.headers["authorization"], request.content))
        return httpx.Response(200, json={"ok": True})

    with Client("http://world/pre", TOKEN, transport=httpx.MockTransport(handler)) as ow:
        assert isinstance(ow.http, httpx.Client) and ow.call("ep_1", "crm_search", {"text": "é"}) == {"ok": True}

    async def main():
        async with AsyncClient("http://world/pre", TOKEN, transport=httpx.MockTransport(handler)) as ow:
            assert isinstance(ow.http, httpx.AsyncClient)
            return await ow.episodes(task="a b")

    assert _run(main()) == {"ok": True}
    assert seen == [("POST", "http://world/pre/v1/episodes/ep_1/call", f"Bearer {TOKEN}",
                     '{"tool":"crm_search","arguments":{"text":"é"}}'.encode()),
                    ("GET", "http://world/pre/v1/episodes?task=a+b", f"Bearer {TOKEN}", b"")]


def test_a_token_with_a_line_break_is_refused_by_name():
    with pytest.raises(ValueError, match="token"):
        Client("http://127.0.0.1:1", "ow_x\r\nX-Injected: 1")


def test_a_proxy_from_the_environment_keeps_the_httpx_client(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "bypassed.test")
    with Client("http://world.test:8000", TOKEN) as proxied, Client("http://bypassed.test:8000", TOKEN) as direct:
        assert isinstance(proxied.http, httpx.Client) and direct.http is None
    assert isinstance(AsyncClient("http://world.test:8000", TOKEN).http, httpx.AsyncClient)
