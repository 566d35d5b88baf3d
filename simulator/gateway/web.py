"""The gateway as a web server a browser may be pointed at: what any web page could make a browser send.

A browser sends a cross-origin form POST, or a ``fetch`` with a body typed ``text/plain``, to any URL
without asking first (no CORS preflight). So, before any route runs (``refusal``):

    Origin    a request that changes things (POST, PUT, PATCH, DELETE) carrying an ``Origin`` header is
              taken only from the server's own origin (the ``Host`` it was sent to) or a host named in
              ``OFFICEWORLD_ALLOWED_HOSTS``; else 403. MCP's path is left to the SDK, which checks the same.
    JSON      the REST operations and the control API read JSON: a body sent as one of the types a page
              may send without a preflight (``text/plain``, a form, multipart) is refused with 415.

and every answer that is not a hot path's JSON (``headers``) carries the usual headers: a content
security policy (no scripts, no framing, forms post only here), ``X-Frame-Options: DENY``,
``X-Content-Type-Options: nosniff``, ``Referrer-Policy: same-origin``; a redirect's ``Location`` is sent
as a path, never naming the host the request claimed (Starlette's trailing-slash redirect echoes it).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from apps.kit.settings import settings

_UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
_SIMPLE_TYPES = (b"text/plain", b"application/x-www-form-urlencoded", b"multipart/form-data")
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; script-src 'none'; style-src 'self' 'unsafe-inline'; "
                                 b"img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; "
                                 b"object-src 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]


def refusal(scope) -> tuple[int, dict] | None:
    """The status and error refusing a request a web page could have made a browser send, or None."""
    if scope["method"] not in _UNSAFE:
        return None
    origin = host = media = None
    for key, value in scope["headers"]:
        if key == b"origin":
            origin = value.decode("latin-1")
        elif key == b"host":
            host = value.decode("latin-1")
        elif key == b"content-type":
            media = value.split(b";", 1)[0].strip().lower()
    if origin is not None and not _same_site(origin, host):
        return 403, {"type": "forbidden", "field": "origin", "message": f"origin: a request from {origin[:200]!r} "
                     "may not act here; only this server's own pages (or OFFICEWORLD_ALLOWED_HOSTS) may"}
    if media in _SIMPLE_TYPES and _reads_json(scope["path"]):
        return 415, {"type": "invalid", "field": "content-type", "message": f"content-type: {media.decode()} is "
                     "not read here; send the body as JSON (content-type: application/json)"}
    return None


def _same_site(origin: str, host: str | None) -> bool:
    try:
        netloc = urlsplit(origin).netloc.lower()
    except ValueError:
        return False
    if not netloc or origin.lower().split("://", 1)[0] not in ("http", "https"):
        return False
    return netloc == (host or "").lower() or netloc in (h.lower() for h in settings().hosts)


def _reads_json(path: str) -> bool:
    if path.startswith("/v1/"):
        return not path.endswith("/restore")   # a snapshot is a zip
    parts = path.split("/", 4)
    return len(parts) > 3 and parts[1] == "episodes" and parts[3] == "api"


def headers(send):
    """``send`` adding the security headers to the answer, and a redirect's ``Location`` as a path only."""
    async def sending(message) -> None:
        if message["type"] == "http.response.start":
            kept = [(k, _relative(v) if k == b"location" else v) for k, v in message.get("headers", [])]
            present = {k for k, _ in kept}
            message = {**message, "headers": kept + [h for h in SECURITY_HEADERS if h[0] not in present]}
        await send(message)
    return sending


def _relative(location: bytes) -> bytes:
    """``http://any.host/episodes/x/gui/`` -> ``/episodes/x/gui/``: the server only ever redirects to itself."""
    if location.startswith(b"/") and not location.startswith(b"//"):
        return location
    parts = urlsplit(location.decode("latin-1"))
    path = (parts.path or "/") if parts.path.startswith("/") else "/" + parts.path
    path = "/" + path.lstrip("/")   # never "//host": a path-only Location stays on this server
    return (path + (f"?{parts.query}" if parts.query else "")).encode("latin-1")
