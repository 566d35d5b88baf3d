"""An HTTP bridge that forwards only allowed path prefixes to one upstream server.

A jailed agent has no network; a unix socket bound into its jail is its one way out. A container
agent (compose's agent-shell) reaches the gateway only through a TCP bridge. Requests
whose path is not under an allowed prefix, or that try to escape one (``..``, encoded slashes),
get 403 without reaching the upstream. Responses stream through, so MCP's SSE works.
"""

from __future__ import annotations

import json
import socketserver
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

import httpx

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host",
               "proxy-authorization", "proxy-connection", "content-length"}


def allowed(raw_path: str, prefixes: list[str]) -> bool:
    """Whether the path (query aside) lies under one of ``prefixes``. Percent-escapes, ``.``/``..``
    segments and empty segments are refused outright: none is needed, and each could make the
    upstream see a different path than the one checked here."""
    path = urlsplit(raw_path).path
    segments = path.rstrip("/").split("/")[1:]
    if "%" in path or not path.startswith("/") or any(s in ("", ".", "..") for s in segments):
        return False
    return any(path.rstrip("/") == p.rstrip("/") or path.startswith(p.rstrip("/") + "/") for p in prefixes)


class _Handler(BaseHTTPRequestHandler):
    server: "_UnixServer | _TcpServer"

    def _forward(self) -> None:
        # Read the body first even when refusing, so the client sees the answer, not a broken pipe.
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if not allowed(self.path, self.server.prefixes):
            return self._refuse()
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
        try:
            with self.server.client.stream(self.command, self.path, headers=headers, content=body) as upstream:
                self.send_response(upstream.status_code)
                for key, value in upstream.headers.items():
                    if key.lower() not in _HOP_BY_HOP and key.lower() != "content-encoding":
                        self.send_header(key, value)
                self.send_header("connection", "close")
                self.end_headers()
                for chunk in upstream.iter_raw():
                    self.wfile.write(chunk)
                    self.wfile.flush()
        except httpx.HTTPError as exc:
            self._json(502, {"type": "unavailable", "message": f"the bridge cannot reach the server ({exc})"})

    def _refuse(self) -> None:
        self._json(403, {"type": "forbidden", "message": f"{urlsplit(self.path).path} is outside this jail's episode"})

    def _json(self, status: int, error: dict) -> None:
        data = json.dumps({"error": error}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _forward

    def log_message(self, format, *args) -> None:
        pass

    def address_string(self) -> str:
        return "jail"


class _UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class _TcpServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


class Bridge:
    """Serve ``address`` (a unix socket path, or a ``(host, port)``) until closed, forwarding
    allowed requests to ``upstream``."""

    def __init__(self, address: Path | tuple[str, int], upstream: str, prefixes: list[str]):
        self.socket_path = Path(address) if not isinstance(address, tuple) else None
        if self.socket_path is not None:
            self._server = _UnixServer(str(self.socket_path), _Handler)
        else:
            self._server = _TcpServer(address, _Handler)
        self._server.prefixes = prefixes
        self._server.client = httpx.Client(base_url=upstream, timeout=httpx.Timeout(60.0, connect=5.0))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int | None:
        return None if self.socket_path is not None else self._server.server_address[1]

    def __enter__(self) -> "Bridge":
        if self.socket_path is not None:
            self.socket_path.chmod(0o777)  # the jailed user is not the bridge's user
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._server.client.close()
        if self.socket_path is not None:
            self.socket_path.unlink(missing_ok=True)
