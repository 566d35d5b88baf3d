"""uvicorn's server, but its listening sockets take every waiting connection each time they are ready, and each
connection's writes in one turn of the loop go out together (``Server``).

uvloop runs on libuv, which since 1.45 accepts one connection per turn of the event loop ("unix: don't accept()
connections in a loop", libuv#3696: most servers' second ``accept`` finds nothing). A turn of a saturated gateway
runs every request that is ready, hundreds of milliseconds of them, so connections opened while it is saturated
queue in the kernel and are taken a few per second. The kernel completes their handshakes meanwhile, so the client
sees a connected socket that nobody reads. Measured on ``up --workers 2`` under the write mix's tight loop (500
agents): HAProxy opened new connections to the saturated workers, ~90 waited in each worker's accept queue, drained
at ~4 a second, and their first requests were answered only when the load stopped (p99 8.2 s, where every other
call's p99 was under 0.7 s). Python's own loop accepts up to the backlog per turn, but costs more per call.

So ``Server`` binds as uvicorn does and listens itself: ``Listener`` watches each socket with ``loop.add_reader``
and, each time it is readable, accepts until the queue is empty (at most ``backlog`` at once), handing each
connection to the loop (``loop.connect_accepted_socket``), which makes the same transport and uvicorn protocol as
its own listener would. Only the standard case (``host`` and ``port``) is taken over; uvicorn's other ways to
listen (``fd``, ``uds``, given sockets) are left to it.

Each connection's transport is also wrapped (``Coalescing``) so that what uvicorn writes in one turn of the loop
goes out in one ``send``: it writes a response's head and its body apart, two packets that woke the reader
(HAProxy, a client) twice. With one, 20 clients on one server got 9,800 instead of 7,600 calls/s, each spending
21 instead of 35 us of CPU per call.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import sys
from typing import Callable

import uvicorn
from uvicorn.config import STARTUP_FAILURE

logger = logging.getLogger("uvicorn.error")
_OUT_OF = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}   # accept failed for want of resources
_RETRY_S = 1.0   # then it tries again this much later (as Python's own loop does)
_HELD_BYTES = 65536   # a connection's writes held for the end of the turn go out at once past this


def run(config: uvicorn.Config) -> None:
    """Serve as ``uvicorn.run`` does with one process, through ``Server``."""
    server = Server(config)
    server.run()
    if not server.started:
        sys.exit(STARTUP_FAILURE)


class Server(uvicorn.Server):
    """``uvicorn.Server``, accepting through ``Listener``, each connection's transport ``Coalescing``."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        config = self.config
        if sockets is not None or config.fd is not None or config.uds is not None:
            await super().startup(sockets)
            return
        await self.lifespan.startup()
        if self.lifespan.should_exit:
            sys.exit(STARTUP_FAILURE)
        loop = asyncio.get_running_loop()

        def protocol() -> asyncio.Protocol:   # what uvicorn's own startup makes for each connection
            made = config.http_protocol_class(config=config, server_state=self.server_state,   # type: ignore[call-arg]
                                              app_state=self.lifespan.state, _loop=loop)
            connection_made = made.connection_made   # the protocol keeps the transport it is given: the wrapped one
            made.connection_made = lambda transport: connection_made(Coalescing(transport, loop))  # type: ignore
            return made
        try:
            bound = listening(config.host, config.port, config.backlog)
        except OSError as error:
            logger.error(error)
            await self.lifespan.shutdown()
            sys.exit(STARTUP_FAILURE)
        self.servers = [Listener(loop, bound, protocol, config.backlog)]   # type: ignore[list-item]
        self._log_started_message(bound)
        self.started = True


def listening(host: str | None, port: int, backlog: int) -> list[socket.socket]:
    """Sockets listening on every address ``host`` names (all of them when it is empty), as asyncio's
    ``create_server`` binds them: ``SO_REUSEADDR``, and IPv6 sockets IPv6 only."""
    found = socket.getaddrinfo(host or None, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(found):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(backlog)
            sock.setblocking(False)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class Listener:
    """Listening sockets that accept every waiting connection when ready; closed as an ``asyncio.Server`` is."""

    def __init__(self, loop: asyncio.AbstractEventLoop, sockets: list[socket.socket],
                 protocol: Callable[[], asyncio.Protocol], backlog: int):
        self.loop, self.sockets, self.protocol, self.backlog = loop, sockets, protocol, backlog
        self.connecting: set[asyncio.Task] = set()   # hand-overs under way (a task nobody holds can be collected)
        self.closed = False
        for sock in sockets:
            loop.add_reader(sock.fileno(), self.accept, sock)

    def accept(self, sock: socket.socket) -> int:
        """Take every connection waiting on ``sock`` (at most ``backlog``); how many were taken."""
        taken = 0
        for _ in range(self.backlog):
            try:
                conn, _ = sock.accept()
            except (BlockingIOError, InterruptedError):
                break
            except ConnectionAbortedError:
                continue   # the client gave up before it was taken
            except OSError as error:
                if error.errno not in _OUT_OF:
                    raise
                logger.error("could not accept a connection (%s): trying again in %s s", error, _RETRY_S)
                self.loop.remove_reader(sock.fileno())
                self.loop.call_later(_RETRY_S, self.resume, sock)
                break
            taken += 1
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)   # as both loops' own listeners do
            task = self.loop.create_task(self.connect(conn))
            self.connecting.add(task)
            task.add_done_callback(self.connecting.discard)
        return taken

    async def connect(self, conn: socket.socket) -> None:
        try:
            await self.loop.connect_accepted_socket(self.protocol, conn)
        except OSError:   # the client went away before its transport was made
            conn.close()

    def resume(self, sock: socket.socket) -> None:
        if not self.closed:
            self.loop.add_reader(sock.fileno(), self.accept, sock)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for sock in self.sockets:
            self.loop.remove_reader(sock.fileno())
            sock.close()

    async def wait_closed(self) -> None:
        return None


class Coalescing:
    """A connection's transport whose writes in one turn of the loop go out as one: uvicorn writes a response's
    status line and headers, then its body, each with its own ``send`` (two packets, two wake-ups of the reader,
    HAProxy's and the client's). Everything else is the transport's own."""

    __slots__ = ("transport", "loop", "pending")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self.transport, self.loop = transport, loop
        self.pending: list[bytes] | None = None

    def write(self, data: bytes) -> None:
        if self.pending is None:
            self.pending = [data]
            self.loop.call_soon(self.flush)
        else:
            self.pending.append(data)
            if sum(map(len, self.pending)) >= _HELD_BYTES:   # a long body written in one turn: on its way now
                self.flush()

    def writelines(self, parts) -> None:
        for part in parts:
            self.write(part)

    def write_eof(self) -> None:
        self.flush()
        self.transport.write_eof()

    def flush(self) -> None:
        pending, self.pending = self.pending, None
        if pending and not self.transport.is_closing():
            self.transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def get_write_buffer_size(self) -> int:
        return self.transport.get_write_buffer_size() + sum(map(len, self.pending or ()))

    def __getattr__(self, name: str):
        return getattr(self.transport, name)
