"""The gateway's listening sockets take every waiting connection each turn of the loop (simulator/service/listener.py),
also while the loop is saturated: uvloop's own listener takes one per turn, and connections opened under load waited
in the kernel's queue until the load stopped."""

from __future__ import annotations

import asyncio
import errno
import socket
import threading
import time

import httpx
import pytest

from simulator.service import listener
from simulator.service.serve import serve_in_thread

HOLD_S = 0.05   # each /hold request keeps the server's loop busy this long
HOLDERS = 8     # clients sending /hold back to back: a turn of the loop runs up to 8 of them


def _app(state: dict):
    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["path"] == "/hold":
            time.sleep(HOLD_S)   # the loop's thread, blocked: the load a saturated gateway is
            state["holds"] += 1
        else:
            state["quick"].append(state["holds"])
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})
    return app


def _hold(url: str, stop: threading.Event) -> None:
    with httpx.Client(base_url=url, timeout=60) as client:
        while not stop.is_set():
            client.get("/hold")


def _quick(port: int) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=60)
    conn.sendall(b"GET /quick HTTP/1.1\r\nhost: test\r\n\r\n")
    return conn


def test_connections_opened_under_load_are_taken_within_a_few_turns():
    state: dict = {"holds": 0, "quick": []}
    stop = threading.Event()
    with serve_in_thread(_app(state)) as url:
        holders = [threading.Thread(target=_hold, args=(url, stop)) for _ in range(HOLDERS)]
        for thread in holders:
            thread.start()
        try:
            while state["holds"] < 3 * HOLDERS:   # the loop is saturated: every turn runs the holders' requests
                time.sleep(0.01)
            before = state["holds"]
            conns = [_quick(int(url.rsplit(":", 1)[1])) for _ in range(30)]
            answers = [conn.recv(1024) for conn in conns]
        finally:
            stop.set()
            for thread in holders:
                thread.join()
    assert all(answer.startswith(b"HTTP/1.1 200") for answer in answers)
    assert len(state["quick"]) == 30
    # Taken together, the 30 were answered within a few turns (each up to HOLDERS holds); one per turn would have
    # taken 30 turns, ~240 holds.
    assert max(state["quick"]) - before <= 4 * HOLDERS, (before, state["quick"])


def test_one_call_accepts_every_waiting_connection_and_each_is_served():
    async def main() -> tuple[int, list[bytes]]:
        loop = asyncio.get_running_loop()
        bound = listener.listening("127.0.0.1", 0, 128)
        port = bound[0].getsockname()[1]

        class Echo(asyncio.Protocol):
            def connection_made(self, transport):
                self.transport = transport

            def data_received(self, data):
                self.transport.write(data.upper())

        serving = listener.Listener(loop, bound, Echo, 128)
        loop.remove_reader(bound[0].fileno())   # the test calls accept itself, once
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        taken = serving.accept(bound[0])
        for k, client in enumerate(clients):
            client.sendall(f"hello {k}".encode())
            client.setblocking(False)
        readers = [loop.sock_recv(client, 100) for client in clients]
        answers = await asyncio.wait_for(asyncio.gather(*readers), 30)
        serving.close()
        for client in clients:
            client.close()
        return taken, answers

    taken, answers = asyncio.run(main())
    assert taken == 20
    assert answers == [f"HELLO {k}".encode() for k in range(20)]


def test_listening_binds_every_address_a_name_gives():
    bound = listener.listening("localhost", 0, 16)
    try:
        families = {sock.family for sock in bound}
        assert socket.AF_INET in families
        assert all(sock.getsockname()[0] in ("127.0.0.1", "::1") for sock in bound)
    finally:
        for sock in bound:
            sock.close()


def test_a_port_in_use_is_refused():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError) as refused:
            listener.listening("127.0.0.1", taken.getsockname()[1], 16)
    assert refused.value.errno == errno.EADDRINUSE


class _Transport:
    """What a loop's transport is to ``Coalescing``: its writes recorded."""

    def __init__(self):
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data):
        self.writes.append(data)

    def is_closing(self):
        return self.closed

    def close(self):
        self.closed = True

    def get_write_buffer_size(self):
        return 0

    def get_extra_info(self, name):
        return ("127.0.0.1", 1) if name == "peername" else None


def test_writes_in_one_turn_of_the_loop_go_out_as_one_and_in_order():
    async def main():
        inner = _Transport()
        wrapped = listener.Coalescing(inner, asyncio.get_running_loop())
        wrapped.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
        wrapped.writelines([b"o", b"k"])
        assert inner.writes == [] and wrapped.get_write_buffer_size() == 40
        await asyncio.sleep(0)   # the end of the turn
        first = list(inner.writes)
        wrapped.write(b"more")
        wrapped.close()   # what is held goes out before the close
        assert wrapped.get_extra_info("peername") == ("127.0.0.1", 1)   # the rest is the transport's own
        return first, inner

    first, inner = asyncio.run(main())
    assert first == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"]
    assert inner.writes[1:] == [b"more"] and inner.closed


def test_a_long_body_written_in_one_turn_is_not_held_whole():
    async def main():
        inner = _Transport()
        wrapped = listener.Coalescing(inner, asyncio.get_running_loop())
        for _ in range(40):
            wrapped.write(b"x" * 4096)
        held = wrapped.get_write_buffer_size()
        await asyncio.sleep(0)
        return inner, held

    inner, held = asyncio.run(main())
    assert held < 65536 and b"".join(inner.writes) == b"x" * 4096 * 40 and len(inner.writes) == 3
