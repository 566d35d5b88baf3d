"""A client's own floor: an MCP endpoint that does no work, so what a client measures against it is the client.

    python canned.py UPSTREAM_MCP_URL      prints its port on one line, then serves until terminated

Standard library only, one process, HTTP/1.1 keep-alive on 127.0.0.1. Each POSTed JSON-RPC message goes
to the real server (``UPSTREAM_MCP_URL``, e.g. officeworld's ``/episodes/{id}/mcp``) the first time its
method (and, for ``tools/call``, its tool, arguments and protocol-version header) is seen; a ``tools/call``
seen before is answered from memory: the same status, content type, session header and result bytes, with the request's own id.
So the handshake, ``tools/list`` (and with it the output schemas a client validates against) and the first
call are the real server's, and every timed call is answered in the few microseconds of a dict lookup
and a socket write. A GET (a client's standalone SSE stream) is answered 405, as the MCP transport allows
a server that offers none; a DELETE goes upstream. ``ours_probe.py`` puts the official clients before it:
their median here is the least any server could give them on this machine, beside what they get from
officeworld's server.
"""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.error
import urllib.request

HOP = {"host", "content-length", "connection", "keep-alive", "transfer-encoding", "accept-encoding"}


def forward(upstream: str, method: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], bytes]:
    """One request to the real server (blocking; only for messages not seen before)."""
    request = urllib.request.Request(upstream, data=body or None, method=method,
                                     headers={k: v for k, v in headers.items() if k not in HOP})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


class Canned:
    def __init__(self, upstream: str):
        self.upstream = upstream
        self.calls: dict[str, tuple[int, dict[str, str], bytes]] = {}   # key -> status, headers, result JSON

    async def answer(self, method: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], bytes]:
        if method == "GET":
            return 405, {"allow": "POST, DELETE"}, b""
        message = None
        if method == "POST":
            try:
                message = json.loads(body)
            except ValueError:
                message = None
        if not (isinstance(message, dict) and message.get("method") == "tools/call" and "id" in message):
            return await asyncio.to_thread(forward, self.upstream, method, headers, body)
        params = message.get("params") or {}
        # A result's shape is the protocol revision's (2026 adds resultType): the version is part of the key.
        key = json.dumps([headers.get("mcp-protocol-version"), params.get("name"), params.get("arguments")],
                         sort_keys=True)
        kept = self.calls.get(key)
        if kept is None:
            status, got, data = await asyncio.to_thread(forward, self.upstream, method, headers, body)
            answer = json.loads(data) if got.get("content-type", "").startswith("application/json") else None
            if status != 200 or not isinstance(answer, dict) or "result" not in answer:
                return status, got, data     # not kept: an error or an SSE answer goes through as it came
            kept = (status, {k: v for k, v in got.items() if k in ("content-type", "mcp-session-id")},
                    json.dumps(answer["result"], separators=(",", ":")).encode())
            self.calls[key] = kept
        status, got, result = kept
        data = b'{"jsonrpc":"2.0","id":' + json.dumps(message["id"]).encode() + b',"result":' + result + b"}"
        return status, got, data

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method = lines[0].split(" ", 1)[0]
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                status, out, data = await self.answer(method, headers, body)
                reply = [f"HTTP/1.1 {status} {'OK' if status < 400 else 'Error'}\r\n".encode()]
                reply += [f"{k}: {v}\r\n".encode("latin-1") for k, v in out.items() if k not in HOP]
                reply.append(f"content-length: {len(data)}\r\n\r\n".encode())
                writer.write(b"".join(reply) + data)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def main(upstream: str) -> None:
    server = await asyncio.start_server(Canned(upstream).serve, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
