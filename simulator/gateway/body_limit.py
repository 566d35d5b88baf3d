"""A bound on request bodies, for the gateway and the app services: past it, a 413 naming the limit.

The largest legitimate body is one call's arguments: a 10 MB upload or mail attachment (base64
text), a 2 MB document, at most 10 million characters in one argument (``apps.kit.limits``), which
JSON may escape to six bytes a character. 64 MiB holds that; more is refused before it is read into
memory (a declared ``content-length`` is refused at once, a chunked body once it passes the limit).
``OFFICEWORLD_BODY_LIMIT`` (bytes) changes it.
"""

from __future__ import annotations

import json

from apps.kit.settings import settings

BODY_LIMIT = settings().body_limit


class TooLarge(Exception):
    pass


async def read_body(scope, receive, limit: int) -> bytes | None:
    """The whole request body, ``None`` when the client went away; ``TooLarge`` past ``limit``."""
    for key, value in scope.get("headers", []):
        if key == b"content-length" and value.isdigit() and int(value) > limit:
            raise TooLarge
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise TooLarge
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def replaying(body: bytes, receive):
    """A ``receive`` that hands over ``body`` once, then whatever the client sends next (a disconnect)."""
    return handing_back({"type": "http.request", "body": body, "more_body": False}, receive)


def handing_back(message: dict, receive):
    """A ``receive`` that hands over ``message`` (already received) again, then whatever comes next."""
    sent = False

    async def replay():
        nonlocal sent
        if not sent:
            sent = True
            return message
        return await receive()
    return replay


async def refuse(send, limit: int) -> None:
    body = json.dumps({"error": {
        "type": "too_large", "field": "body",
        "message": f"the request body is larger than the limit of {limit} bytes ({limit / 2**20:g} MiB); "
                   "send a smaller document or upload"}}).encode()
    await send({"type": "http.response.start", "status": 413, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """ASGI middleware: every HTTP request's body is read up to ``limit`` bytes, else refused with 413."""

    def __init__(self, app, limit: int = BODY_LIMIT):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        try:
            body = await read_body(scope, receive, self.limit)
        except TooLarge:
            return await refuse(send, self.limit)
        if body is None:
            return None
        return await self.app(scope, replaying(body, receive), send)
