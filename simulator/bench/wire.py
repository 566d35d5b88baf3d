"""A lean HTTP/1.1 client for the load run: one keep-alive connection over asyncio streams.

The load run's clients share one process with each other, and that process shares the machine with
the server; a general client (httpx) spent about as much CPU per call as the server did, so the figures
measured the client. This one writes a request with a ``content-length`` body and reads the status
line, the headers and a ``content-length`` (or chunked) body: nothing else. A connection the server
closed while it sat idle (keep-alive ran out) is opened again once, only when no byte of the answer
came back; any other failure is the caller's (``ConnectionLost``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Coroutine, NamedTuple, TypeVar

T = TypeVar("T")


def on_uvloop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on uvloop, as the servers run (a dependency; Python's own loop where it is missing): the
    load runs' clients share the machine with the servers they measure, and spend less CPU per call on it."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


_compact = json.JSONEncoder(separators=(",", ":")).encode   # made once: json.dumps makes one per call given options


class ConnectionLost(Exception):
    """The connection failed while a request was out (not the idle close a keep-alive client expects)."""


class Response(NamedTuple):
    status: int
    headers: dict[str, str]   # names in lower case
    body: bytes

    def json(self):
        return json.loads(self.body)


class Connection:
    """One keep-alive connection to ``host:port``; one request at a time (as HTTP/1.1 without pipelining)."""

    def __init__(self, host: str, port: int, headers: dict[str, str] | None = None):
        self.host, self.port = host, port
        self._fixed = "".join(f"{k}: {v}\r\n" for k, v in {"host": f"{host}:{port}", **(headers or {})}.items())
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    @classmethod
    def to(cls, url: str, headers: dict[str, str] | None = None) -> "Connection":
        """A connection to ``http://host:port`` (what ``served.server_process`` hands out)."""
        host, _, port = url.removeprefix("http://").rstrip("/").rpartition(":")
        return cls(host, int(port), headers)

    async def request(self, method: str, path: str, body: bytes | dict | list | None = None,
                      headers: dict[str, str] | None = None) -> Response:
        if isinstance(body, (dict, list)):
            body = _compact(body).encode()
        head = f"{method} {path} HTTP/1.1\r\n{self._fixed}"
        if headers:
            head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        if body is not None:
            head += f"content-type: application/json\r\ncontent-length: {len(body)}\r\n"
        data = (head + "\r\n").encode() + (body or b"")
        reused = self._writer is not None
        try:
            return await self._exchange(data)
        except asyncio.CancelledError:
            self.close()   # the answer may still come: a later request on this connection would read it as its own
            raise
        except _Idle:
            if not reused:
                raise ConnectionLost("the server closed a new connection before answering") from None
            self.close()   # the server closed it while it sat idle: once more, on a new connection
            try:
                return await self._exchange(data)
            except _Idle:
                raise ConnectionLost("the server closed the connection before answering") from None

    async def _exchange(self, data: bytes) -> Response:
        if self._writer is None:
            try:
                self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
            except OSError as error:
                raise ConnectionLost(f"cannot connect: {error}") from None
        reader, writer = self._reader, self._writer
        assert reader is not None
        try:
            try:
                writer.write(data)
                head = await reader.readuntil(b"\r\n\r\n")
            except (ConnectionResetError, BrokenPipeError) as error:
                raise _Idle from error
            except asyncio.IncompleteReadError as error:
                if error.partial:
                    raise
                raise _Idle from None
            response = _parse_head(head)
            length = response.headers.get("content-length")
            if length is not None:
                body = await reader.readexactly(int(length)) if length != "0" else b""
            elif response.headers.get("transfer-encoding", "").lower() == "chunked":
                body = await _chunked(reader)
            elif response.status in (204, 304) or 100 <= response.status < 200:
                body = b""
            else:   # no length: the body runs to the end of the connection
                body = await reader.read()
                response.headers["connection"] = "close"
        except _Idle:
            self.close()
            raise
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, OSError) as error:
            self.close()
            raise ConnectionLost(f"{type(error).__name__}: {error}") from None
        if response.headers.get("connection", "").lower() == "close":
            self.close()
        return response._replace(body=body)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


class _Idle(Exception):
    """The connection was closed before any byte of the answer came back."""


def _parse_head(head: bytes) -> Response:
    lines = head.decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    if not version.startswith("HTTP/1."):
        raise ValueError(f"not an HTTP/1.x answer: {lines[0]!r}")
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    return Response(int(rest[:3]), headers, b"")


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")   # no trailers from these servers: the closing empty line
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
