"""Serve an ASGI app on a free loopback port in a background thread (tests and the benchmark)."""

from __future__ import annotations

import contextlib
import errno
import socket
import threading
import time
from typing import Iterator

import uvicorn

from simulator.service.listener import Server

# How long a server keeps an idle connection (uvicorn's ``timeout_keep_alive``; its default is 5 s). Above what
# clients keep one for reuse (httpx and Node 5 s, aiohttp 15 s): at equal times a request sent on a connection idle
# for almost that long can meet the server closing it, and fails (``ReadError``) though the server never read it.
KEEP_ALIVE_S = 65


class PortInUse(Exception):
    """The port ``officeworld up`` was to listen on is taken (``claimed``)."""

    def __init__(self, host: str, port: int):
        super().__init__(f"port {port} is in use (on {host}): stop what listens there, or choose another "
                         f"port with --port or OFFICEWORLD_PORT")
        self.port = port


@contextlib.contextmanager
def claimed(host: str, port: int) -> Iterator[socket.socket]:
    """Bind ``host:port`` as uvicorn will (``SO_REUSEADDR``, so a port left in TIME_WAIT is free) and hold it
    inside, or raise ``PortInUse`` when a server listens there: ``officeworld up`` claims its port before it
    announces or creates anything, and lets go just before the server binds it anew (``serve_in_thread`` says
    why uvicorn is not handed the socket itself). The claim does not listen: a client that connects during the
    start is refused (and retries), where a listening claim reset its connection when it closed. Not yet: two
    starts at the same moment on one port can both pass the claim (neither listens yet); the later one then
    fails as before, when uvicorn binds."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))   # not listening: a client that connects meanwhile is refused, not reset
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise PortInUse(host, port) from None
            raise
        yield sock
    finally:
        sock.close()


@contextlib.contextmanager
def serve_in_thread(app, timeout: float = 15.0, port: int | None = None) -> Iterator[str]:
    """Yield the base URL of ``app`` served on 127.0.0.1 (on ``port``, else a free one); stop it on exit."""
    if port is None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
    # Handing uvicorn the bound socket itself made every MCP call ~45 ms slower here, so it binds anew.
    server = Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                   timeout_keep_alive=KEEP_ALIVE_S))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    try:
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
