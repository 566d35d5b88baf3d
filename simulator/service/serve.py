"""Serve an ASGI app on a free loopback port in a background thread (tests and the benchmark)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Iterator

import uvicorn

# How long a server keeps an idle connection (uvicorn's ``timeout_keep_alive``; its default is 5 s). Above what
# clients keep one for reuse (httpx and Node 5 s, aiohttp 15 s): at equal times a request sent on a connection idle
# for almost that long can meet the server closing it, and fails (``ReadError``) though the server never read it.
KEEP_ALIVE_S = 65


@contextlib.contextmanager
def serve_in_thread(app, timeout: float = 15.0, port: int | None = None) -> Iterator[str]:
    """Yield the base URL of ``app`` served on 127.0.0.1 (on ``port``, else a free one); stop it on exit."""
    if port is None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
    # Handing uvicorn the bound socket itself made every MCP call ~45 ms slower here, so it binds anew.
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
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
