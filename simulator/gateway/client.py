"""A Python client for the control API, sync (``Client``) and async (``AsyncClient``).

    with Client("http://127.0.0.1:8000", token) as ow:
        episode = ow.create_episode(task="crm-close-globex-renewal")   # prompt, tools, mcp_url
        step = ow.call(episode["id"], "crm_search", {"text": "globex"})
        reward = ow.finish(episode["id"], answer="Done")
        ow.delete(episode["id"])

Every method is written once, in ``_Calls``; ``AsyncClient``'s return awaitables. Answers are the
API's JSON; an error response raises ``ControlError`` with its type, message and field. A tool error
is not an error here: ``call`` returns the Step with its ``error`` set, as agents see it.

The wire: ``Client`` speaks over the standard library's ``http.client`` (a thread-safe pool of keep-alive
connections), ``AsyncClient`` over aiohttp (a session made in the running loop on first use): httpx's pools
cost the caller 3-4x the CPU per call, more than the server spends answering it. Requests are written as httpx
writes them (compact UTF-8 JSON, its URL and query encoding, ``base_url``'s path as a prefix), and a failure to
reach the server raises httpx's own exceptions (``ConnectError``, ``ReadTimeout``, ``RemoteProtocolError``...,
all ``httpx.HTTPError``) with the method and URL in the message. ``transport`` (e.g. ``httpx.ASGITransport(app)``,
a server in this process) and proxies set in the environment keep the httpx client itself (``.http``).

Connections idle longer than ``REUSE_IDLE_S`` are not reused; servers keep theirs 65 s
(``simulator.service.serve.KEEP_ALIVE_S``), so a server does not close a connection the client is about to use.
One it closed anyway (restarted) is seen before reuse (the socket reads as closed) and a new one is opened; a
POST that fails on the wire is not sent again, since the server may have acted on it.
"""

from __future__ import annotations

import asyncio
import http.client
import json as jsonlib
import re
import select
import socket
import threading
import time
import urllib.request
from typing import Any

import httpx

REUSE_IDLE_S = 15.0   # well under the servers' 65 s (aiohttp's default)
MAX_IDLE = 20         # idle connections ``Client`` keeps (httpx's default max_keepalive_connections)


class ControlError(Exception):
    def __init__(self, status: int, error: dict):
        self.status, self.type = status, error.get("type", "error")
        self.message, self.field = error.get("message", ""), error.get("field")
        super().__init__(f"{status} {self.type}: {self.message}")


def _answer(status: int, content: bytes, encoding: str | None = None) -> Any:
    """The JSON of a response; ``ControlError`` for a status >= 400 (its error JSON, else its text)."""
    if status >= 400:
        text = content.decode(encoding or "utf-8", errors="replace")
        try:
            found = jsonlib.loads(content)
            error = (found.get("error") if isinstance(found, dict) else None) or {"message": text}
        except ValueError:
            error = {"message": text[:500]}
        raise ControlError(status, error)
    return None if status == 204 else jsonlib.loads(content)


def _parse(response: httpx.Response) -> Any:
    return _answer(response.status_code, response.content, response.encoding)


def _present(**values) -> dict:
    return {k: v for k, v in values.items() if v is not None}


class _Calls:
    def _call(self, method: str, path: str, json: Any = None, params: dict | None = None):
        raise NotImplementedError

    def create_episode(self, task: str | None = None, *, world: str | None = None, actor: str | None = None,
                       record: bool | None = None, meta: dict | None = None, tools: bool | None = None,
                       toolset: str | None = None, browser: bool | None = None, observation: str | None = None,
                       salt: str | None = None):
        """A new episode (for ``task``: set up, with its prompt and, by default, the tools in both forms).
        ``toolset``: ``task`` (a task's default: its apps' tools) or ``all``; ``browser``: offer the browser
        tools too, showing pages as ``observation`` says (``snapshot``, ``pixels`` or ``marks``; implies browser);
        ``salt``: what its co-workers' model replies are keyed by."""
        body = _present(task=task, world=world, record=record, meta=meta, tools=tools, toolset=toolset,
                        browser=browser, observation=observation, salt=salt, **{"as": actor})
        return self._call("POST", "/v1/episodes", json=body)

    def episode(self, episode_id: str):
        return self._call("GET", f"/v1/episodes/{episode_id}")

    def episodes(self, task: str | None = None):
        return self._call("GET", "/v1/episodes", params=_present(task=task))

    def call(self, episode_id: str, tool: str, arguments: dict | None = None, actor: str | None = None):
        """Call a tool (``app_operation``) in the episode; the Step comes back, a tool error in its ``error``."""
        body = {"tool": tool, "arguments": arguments or {}, **_present(**{"as": actor})}
        return self._call("POST", f"/v1/episodes/{episode_id}/call", json=body)

    def fork(self, episode_id: str):
        return self._call("POST", f"/v1/episodes/{episode_id}/fork")

    def finish(self, episode_id: str, answer: str | None = None, status: str | None = None):
        """Record the final answer (optional) and return the Reward."""
        return self._call("POST", f"/v1/episodes/{episode_id}/finish", json=_present(answer=answer, status=status))

    def oracle(self, episode_id: str, alternative: int = 0):
        """Run the task's oracle (or its Nth alternative) in the episode; its Steps come back."""
        return self._call("POST", f"/v1/episodes/{episode_id}/oracle", json={"alternative": alternative})

    def trajectory(self, episode_id: str):
        return self._call("GET", f"/v1/episodes/{episode_id}/trajectory")

    def digest(self, episode_id: str):
        return self._call("GET", f"/v1/episodes/{episode_id}/digest")

    def advance_clock(self, episode_id: str, seconds: float):
        return self._call("POST", f"/v1/episodes/{episode_id}/clock", json={"seconds": seconds})

    def delete(self, episode_id: str):
        return self._call("DELETE", f"/v1/episodes/{episode_id}")

    def tasks(self, suite: str | None = None, tag: str | None = None, world: str | None = None,
              split: str | None = None, family: str | None = None, difficulty: str | None = None):
        return self._call("GET", "/v1/tasks", params=_present(suite=suite, tag=tag, world=world, split=split,
                                                               family=family, difficulty=difficulty))

    def task(self, task_id: str):
        return self._call("GET", f"/v1/tasks/{task_id}")

    def tools(self):
        """Every operation as an OpenAI-style function tool."""
        return self._call("GET", "/v1/tools")


# ---- requests as httpx writes them ------------------------------------------------------------------------------

_PLAIN_PATH = re.compile(r"[A-Za-z0-9/._~-]*")


class _Origin:
    """Where requests go: ``base_url`` parsed once; each request's target (path and query) as httpx writes it."""

    def __init__(self, base_url: str, token: str | None, timeout: float | None):
        self.base = httpx.URL(base_url.rstrip("/") + "/")   # httpx joins every path to base_url's, so: one '/'
        self.prefix = self.base.raw_path.decode("ascii").rstrip("/")
        self.origin = str(self.base.copy_with(raw_path=b"/")).rstrip("/")
        self.timeout = timeout
        if not token:   # imported here: the client alone needs only httpx and aiohttp (NeMo Gym's venv has no more)
            from apps.kit.settings import settings
            token = settings().token
        if token and not (token.isascii() and token.isprintable()):
            raise ValueError("token: a bearer token is printable ASCII (no line breaks or other control characters)")
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.json_headers = {**self.headers, "Content-Type": "application/json"}
        self.host_line = "Host: " + self.base.netloc.decode("ascii")

    def target(self, path: str, params: dict | None) -> str:
        if not params and _PLAIN_PATH.fullmatch(path):
            return self.prefix + path
        url = self.base.copy_with(raw_path=self.base.raw_path + httpx.URL(path).raw_path.lstrip(b"/"))
        if params is not None:
            url = url.copy_merge_params(params)
        return url.raw_path.decode("ascii")

    def body(self, json: Any) -> tuple[bytes | None, dict]:
        if json is None:
            return None, self.headers
        text = jsonlib.dumps(json, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return text.encode("utf-8"), self.json_headers

    def proxied(self) -> bool:
        """Whether the environment routes this origin through a proxy (httpx would: then httpx it is)."""
        proxies = urllib.request.getproxies()
        return bool(proxies.get(self.base.scheme) or proxies.get("all")) and not urllib.request.proxy_bypass(
            self.base.host)


def _failed(kind: type[httpx.TransportError], method: str, url: str, exc: BaseException) -> httpx.TransportError:
    reason = str(exc) or type(exc).__name__
    return kind(f"{reason} ({method} {url})", request=httpx.Request(method, url))


# ---- sync: sockets, responses read by http.client ---------------------------------------------------------------

class _Pool:
    """Keep-alive connections (sockets) to one origin, shared by threads: a request has its socket to itself."""

    def __init__(self, origin: _Origin):
        self.origin = origin
        base = origin.base
        self.https = base.scheme == "https"
        self.address = (base.host, base.port or (443 if self.https else 80))
        self.ssl = httpx.create_ssl_context() if self.https else None
        self.idle: list[tuple[float, socket.socket]] = []
        self.lock = threading.Lock()

    def take(self) -> socket.socket | None:
        """An idle socket still open and used within REUSE_IDLE_S, else None."""
        now = time.monotonic()
        while True:
            with self.lock:
                if not self.idle:
                    return None
                used, sock = self.idle.pop()
            # Idle, the server sends nothing unasked: something to read is its close (a restart, its own timeout).
            if now - used < REUSE_IDLE_S and not select.select([sock], [], [], 0)[0]:
                return sock
            sock.close()

    def open(self) -> socket.socket:
        sock = socket.create_connection(self.address, timeout=self.origin.timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.ssl is not None:
                sock = self.ssl.wrap_socket(sock, server_hostname=self.address[0])
        except BaseException:
            sock.close()
            raise
        return sock

    def give(self, sock: socket.socket) -> None:
        with self.lock:
            if len(self.idle) < MAX_IDLE:
                self.idle.append((time.monotonic(), sock))
                return
        sock.close()

    def close(self) -> None:
        with self.lock:
            idle, self.idle = self.idle, []
        for _, sock in idle:
            sock.close()


def _exchange(pool: _Pool, method: str, target: str, body: bytes | None, headers: dict):
    """(status, body, charset) of one request on a pooled socket; httpx's exceptions when the wire fails.

    The request goes out in one send (http.client sends headers and body apart: a second syscall and packet);
    its response is read by http.client."""
    sock = pool.take()
    url = pool.origin.origin + target
    if sock is None:
        try:
            sock = pool.open()
        except OSError as exc:
            kind = httpx.ConnectTimeout if isinstance(exc, TimeoutError) else httpx.ConnectError
            raise _failed(kind, method, url, exc) from exc
    lines = [f"{method} {target} HTTP/1.1", pool.origin.host_line]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if body is not None or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body or b'')}")
    stage = "write"
    try:
        sock.sendall("\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + (body or b""))
        stage = "read"
        response = http.client.HTTPResponse(sock, method=method)
        response.begin()
        content = response.read()
    except BaseException as exc:
        sock.close()
        if isinstance(exc, TimeoutError):
            raise _failed(httpx.WriteTimeout if stage == "write" else httpx.ReadTimeout, method, url, exc) from exc
        if isinstance(exc, (http.client.HTTPException, ConnectionResetError)):   # RemoteDisconnected is both
            raise _failed(httpx.RemoteProtocolError, method, url, exc) from exc
        if isinstance(exc, OSError):
            raise _failed(httpx.WriteError if stage == "write" else httpx.ReadError, method, url, exc) from exc
        raise
    if response.will_close:
        sock.close()
    else:
        pool.give(sock)
    return response.status, content, response.headers.get_content_charset()


class Client(_Calls):
    """The control API over blocking keep-alive connections, safe to share between threads; a context manager."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 60.0, transport=None):
        self._origin = _Origin(base_url, token, timeout)
        self._pool = _Pool(self._origin)
        self._closed = False
        self.http: httpx.Client | None = None
        if transport is not None or self._origin.proxied():
            self.http = httpx.Client(**_options(base_url, self._origin, transport))

    def _call(self, method, path, json=None, params=None):
        if self.http is not None:
            return _parse(self.http.request(method, path, json=json, params=params))
        if self._closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        body, headers = self._origin.body(json)
        return _answer(*_exchange(self._pool, method, self._origin.target(path, params), body, headers))

    def close(self) -> None:
        self._closed = True
        self._pool.close()
        if self.http is not None:
            self.http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---- async: aiohttp ---------------------------------------------------------------------------------------------

def _aiohttp_failure(exc: BaseException) -> type[httpx.TransportError] | None:
    import aiohttp

    for aio, kind in ((aiohttp.ConnectionTimeoutError, httpx.ConnectTimeout),
                      (aiohttp.ServerTimeoutError, httpx.ReadTimeout), (asyncio.TimeoutError, httpx.ReadTimeout),
                      (aiohttp.ClientConnectorError, httpx.ConnectError),
                      (aiohttp.ServerDisconnectedError, httpx.RemoteProtocolError),
                      (aiohttp.ClientPayloadError, httpx.RemoteProtocolError),
                      (aiohttp.ClientResponseError, httpx.RemoteProtocolError),
                      (aiohttp.ClientConnectionError, httpx.ReadError), (aiohttp.ClientError, httpx.TransportError)):
        if isinstance(exc, aio):
            return kind
    return None


class AsyncClient(_Calls):
    """The control API over aiohttp; every method returns an awaitable. Build it anywhere: its session is made in
    the loop that first uses it (a later loop gets its own)."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 60.0, transport=None,
                 max_connections: int = 100):
        self._origin = _Origin(base_url, token, timeout)
        self._max_connections = max_connections
        self._session: Any = None   # aiohttp.ClientSession, of self._loop
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self.http: httpx.AsyncClient | None = None
        if transport is not None or self._origin.proxied():
            limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
            self.http = httpx.AsyncClient(limits=limits, **_options(base_url, self._origin, transport))

    def _open(self, loop: asyncio.AbstractEventLoop):
        import aiohttp

        if self._closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        seconds = self._origin.timeout
        ssl = httpx.create_ssl_context() if self._origin.base.scheme == "https" else None
        connector = aiohttp.TCPConnector(limit=self._max_connections, keepalive_timeout=REUSE_IDLE_S,
                                         ssl=ssl if ssl is not None else True)
        timeout = aiohttp.ClientTimeout(total=None, connect=seconds, sock_connect=seconds, sock_read=seconds)
        # No Content-Type of aiohttp's own on a request without a body (httpx sends none).
        session = aiohttp.ClientSession(connector=connector, timeout=timeout, skip_auto_headers=("Content-Type",))
        self._session, self._loop = session, loop
        return self._session

    async def _call(self, method, path, json=None, params=None):
        if self.http is not None:
            return _parse(await self.http.request(method, path, json=json, params=params))
        import yarl

        loop = asyncio.get_running_loop()
        session = self._session if self._loop is loop and not self._closed else self._open(loop)
        body, headers = self._origin.body(json)
        url = self._origin.origin + self._origin.target(path, params)
        try:
            async with session.request(method, yarl.URL(url, encoded=True), data=body, headers=headers) as response:
                content = await response.read()
        except Exception as exc:
            kind = _aiohttp_failure(exc)
            if kind is None:
                raise
            raise _failed(kind, method, url, exc) from exc
        return _answer(response.status, content, response.charset)

    async def aclose(self) -> None:
        self._closed = True
        session, self._session = self._session, None
        if session is not None and self._loop is asyncio.get_running_loop():
            await session.close()   # one of a loop now gone cannot be closed from here: its sockets go with it
        if self.http is not None:
            await self.http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()


def _options(base_url: str, origin: _Origin, transport) -> dict:
    """The httpx client's options: the origin's headers (its token) and timeout."""
    return {"base_url": base_url.rstrip("/"), "headers": origin.headers, "timeout": origin.timeout,
            **({"transport": transport} if transport is not None else {})}
