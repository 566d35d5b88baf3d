"""An HTTP bridge that forwards only allowed path prefixes to one upstream server, and nowhere else.

A jailed agent has no network; a unix socket bound into its jail is its one way out. A container
agent (compose's agent-shell) reaches the gateway only through a TCP bridge. The bridge is a small
Starlette app served by uvicorn (the project's server stack) that sends every request it accepts to
the configured upstream, whatever the request line names: an absolute-form target
(``POST http://elsewhere/...``) or a ``CONNECT`` is refused, never followed. A path outside an
allowed prefix, or that tries to escape one (``..``, percent-escapes), gets 403 without reaching the
upstream. Request bodies (chunked or not) and responses stream through, so MCP's SSE works.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import uvicorn
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

TARGET_LIMIT = 16_384   # bytes of path and query: far past any route's; httpx refuses a URL past 64 KiB
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host",
               "proxy-authorization", "proxy-connection", "content-length"}


def allowed(raw_path: str, prefixes: list[str]) -> bool:
    """Whether the path (query aside) lies under one of ``prefixes``. Percent-escapes, ``.``/``..``
    segments and empty segments are refused outright: none is needed, and each could make the
    upstream see a different path than the one checked here. Only an origin-form target (``/...``)
    can be allowed."""
    if not raw_path.startswith("/") or raw_path.startswith("//"):
        return False
    path = urlsplit(raw_path).path
    segments = path.rstrip("/").split("/")[1:]
    if "%" in path or any(s in ("", ".", "..") for s in segments):
        return False
    return any(path.rstrip("/") == p.rstrip("/") or path.startswith(p.rstrip("/") + "/") for p in prefixes)


def _error(status: int, kind: str, message: str) -> Response:
    return JSONResponse({"error": {"type": kind, "message": message, "field": None}}, status_code=status)


class BridgeApp:
    """The ASGI app: check the request target, then stream the request to ``upstream`` and back."""

    def __init__(self, upstream: str, prefixes: list[str]):
        self.upstream, self.prefixes = upstream.rstrip("/"), prefixes
        self.client: httpx.AsyncClient | None = None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            return await self._lifespan(receive, send)
        request = Request(scope, receive)
        # uvicorn's h11 parser keeps the request target as sent; an absolute form does not start with "/".
        target = scope.get("raw_path", b"").decode("latin-1")
        if request.method == "CONNECT":
            response = _error(405, "forbidden", "CONNECT is not allowed: this bridge tunnels nowhere")
        elif len(target) + len(scope["query_string"]) > TARGET_LIMIT:
            response = _error(414, "too_large", f"the request target is longer than {TARGET_LIMIT} bytes")
        elif not target.startswith("/"):
            response = _error(400, "forbidden", "only origin-form requests (a path starting with /) are forwarded; "
                                                "this bridge reaches one server and no other")
        elif not allowed(target + ("?" + scope["query_string"].decode("latin-1") if scope["query_string"] else ""),
                         self.prefixes):
            response = _error(403, "forbidden", f"{urlsplit(target).path} is outside this jail's episode")
        else:
            response = await self._forward(request, target)
        await response(scope, receive, send)

    async def _forward(self, request: Request, target: str) -> Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        query = request.scope["query_string"].decode("latin-1")
        url = self.upstream + target + (f"?{query}" if query else "")
        body = request.stream() if request.method not in ("GET", "HEAD", "OPTIONS") else None
        client = self.client
        assert client is not None  # made at lifespan startup, before any request
        try:
            upstream = await client.send(
                client.build_request(request.method, url, headers=headers, content=body), stream=True)
        except httpx.InvalidURL as exc:   # not an HTTPError: a URL httpx will not send
            return _error(400, "invalid", f"the bridge cannot forward this request target ({exc})")
        except httpx.HTTPError as exc:
            return _error(502, "unavailable", f"the bridge cannot reach the server ({type(exc).__name__}: {exc})")
        kept = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP_BY_HOP | {"content-encoding"}}
        return StreamingResponse(upstream.aiter_raw(), status_code=upstream.status_code, headers=kept,
                                 background=BackgroundTask(upstream.aclose))

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.client = httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=5.0), follow_redirects=False,
                                                trust_env=False)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.client is not None:
                    await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


class Bridge:
    """Serve ``address`` (a unix socket path, or a ``(host, port)``) until closed, forwarding
    allowed requests to ``upstream``."""

    def __init__(self, address: Path | tuple[str, int], upstream: str, prefixes: list[str]):
        self.socket_path = Path(address) if not isinstance(address, tuple) else None
        host, port = address if isinstance(address, tuple) else ("127.0.0.1", 8000)   # uvicorn's defaults
        # h11, not httptools: it hands the request target over as sent, so absolute forms can be refused.
        config = uvicorn.Config(BridgeApp(upstream, prefixes), http="h11", lifespan="on", log_level="warning",
                                access_log=False, timeout_graceful_shutdown=2, host=host, port=port,
                                timeout_keep_alive=65,   # longer than clients keep a connection: serve.KEEP_ALIVE_S
                                uds=None if self.socket_path is None else str(self.socket_path))
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.run(self._server.serve())

    @property
    def port(self) -> int | None:
        if self.socket_path is not None:
            return None
        return self._server.servers[0].sockets[0].getsockname()[1]

    def __enter__(self) -> "Bridge":
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the bridge did not start")
            time.sleep(0.01)
        if self.socket_path is not None:
            self.socket_path.chmod(0o777)  # the jailed user is not the bridge's user
        return self

    def __exit__(self, *exc) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        if self.socket_path is not None:
            self.socket_path.unlink(missing_ok=True)
