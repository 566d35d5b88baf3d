"""What the tests' stand-in HTTP servers share: a quiet handler, a JSON answer, and serving one on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator


class Quiet(BaseHTTPRequestHandler):
    """A handler that logs nothing."""

    def log_message(self, *args) -> None:
        pass


def send_json(handler: BaseHTTPRequestHandler, body) -> None:
    """Answer 200 with ``body`` as JSON."""
    data = json.dumps(body).encode()
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


@contextlib.contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` served on a free loopback port in a thread: its base URL, stopped on exit."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
