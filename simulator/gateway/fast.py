"""The gateway's hot paths, answered in plain ASGI before FastAPI sees the request.

An operation call (``POST /episodes/{id}/api/{app}/{op}``), the control plane's direct call
(``POST /v1/episodes/{id}/call``, when it carries the right token and a valid body) and ``GET /health``
are most of a training run's requests. Through FastAPI each crossed its whole stack first (server
error, telemetry, body-limit and exception middleware, the router, dependencies, response
validation): several times the work of the call itself. Here each is one path split and one dict
lookup, and the answer is written as two ASGI messages with the bytes already made. They run the
same code the routes run (``apps.kit.rest.answer``, ``control.run_call``), so steps,
surfaces, errors ``{error: {type, message, field}}`` and statuses are the routes' own; anything else
(a wrong method, an unknown operation, a refused token) goes on to FastAPI, which answers as before.

An operation call is answered by ``apps.kit.rest.answer``, as its route answers it.
"""

from __future__ import annotations

from apps.kit.errors import OpError
from apps.kit.operation import Operation
from apps.kit.rest import SURFACE_HEADER, answer, encode, error_body
from apps.kit.trajectory import Surface
from simulator.gateway.control import ControlCalls
from simulator.gateway.peers import LOCAL_HEADER
from simulator.store.episodes import EpisodeStore

_SURFACE = SURFACE_HEADER.encode()
_LOCAL = LOCAL_HEADER.encode()
_SERVER_ERROR = b"Internal Server Error"


async def reply(send, status: int, body: bytes, media: bytes = b"application/json") -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-length", str(len(body)).encode()), (b"content-type", media)]})
    await send({"type": "http.response.body", "body": body})


class FastRoutes:
    """Answers the hot paths for ``simulator.gateway.server.Gateway``; ``answer`` says whether it did."""

    def __init__(self, store: EpisodeStore, operations: list[Operation], control: ControlCalls,
                 health: bool = True):
        self.store, self.control, self.health = store, control, health   # health: off for a sharded worker
        self.operations = {(op.app, op.name): op for op in operations}
        self.apps = sorted(store.apps)

    async def answer(self, scope, body: bytes, send) -> bool:
        path, method = scope["path"], scope["method"]
        if method == "POST" and path.startswith("/episodes/"):
            parts = path.split("/")  # "", "episodes", id, "api", app, operation
            if len(parts) != 6 or parts[3] != "api" or not parts[2]:
                return False
            op = self.operations.get((parts[4], parts[5]))
            if op is None:  # the router answers 404 (or the GUI's routes take it)
                return False
            await _guarded(send, lambda out: self._operation(scope, parts[2], op, body, out))
            return True
        if method == "POST" and path.startswith("/v1/episodes/"):
            call = self.control.accepted(scope, body)
            if call is None:  # not the direct call, or one the route answers (401, 422 naming the field)
                return False
            await _guarded(send, lambda out: self._control(*call, out))
            return True
        if method == "GET" and path == "/health" and (self.health or _local(scope)):
            await reply(send, 200, encode({"status": "ok", "episodes": len(self.store), "apps": self.apps}))
            return True
        return False

    async def _control(self, episode_id: str, call, send) -> None:
        await reply(send, *await self.control.answer(episode_id, call))

    async def _operation(self, scope, episode_id: str, op: Operation, body: bytes, send) -> None:
        surface: Surface = "rest"
        for key, value in scope["headers"]:
            if key == _SURFACE:
                surface = "cli" if value == b"cli" else "rest"
                break
        try:
            status, answered = await answer(self.store.get(episode_id), op, body, surface)
        except OpError as exc:   # no such episode, or a body that is not JSON
            status, answered = exc.status, error_body(exc.to_dict())
        await reply(send, status, answered)


def _local(scope) -> bool:
    """A peer's or the router's health check: this worker's own health only (``simulator.gateway.peers``)."""
    return any(key == _LOCAL for key, _ in scope["headers"])


async def _guarded(send, call) -> None:
    """Run ``call``; an exception that is not a tool error answers 500 as FastAPI's outer middleware
    did (when nothing was sent yet) and goes on up, to be logged by the server."""
    started = False

    async def tracking(message) -> None:
        nonlocal started
        started = True
        await send(message)
    try:
        await call(tracking)
    except Exception:
        if not started:
            await reply(send, 500, _SERVER_ERROR, b"text/plain; charset=utf-8")
        raise
