"""The embedded server: control API, per-episode REST and per-episode MCP, in one ASGI app.

    /v1/...                         control API (trainers, runners; bearer token, simulator/gateway/auth.py)
    /episodes/{id}/api/{app}/{op}   per-episode REST, one route per operation
    /episodes/{id}/api/tools        every operation's schema and CLI shape (what ``ow`` builds its commands from)
    /episodes/{id}/mcp              per-episode MCP over streamable HTTP
    /episodes/{id}/gui/...          per-episode browser GUI (simulator/gui)
    /health                         liveness
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

import anyio
import uvicorn
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from mcp.server.context import ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from starlette.exceptions import HTTPException

from apps.kit import OpError
from apps.kit.cli import catalogue
from apps.kit.episode import Episode
from apps.kit.invoker import invoke_async
from apps.kit.mcp import build_server
from apps.kit.operation import invalid_from
from apps.kit.rest import document_inputs, error_response, operation_router
from apps.kit.settings import settings
from simulator.gateway.auth import control_token
from simulator.gateway.body_limit import BODY_LIMIT, TooLarge, read_body, refuse, replaying
from simulator.gateway.control import ControlCalls, control_router
from simulator.gateway.fast import FastRoutes
from simulator.gateway.mcp_calls import SessionCalls
from simulator.gateway.mcp_text import lone_surrogate_call, tool_error_reply
from simulator.gui import mount_gui
from simulator.gui.browser_tools import BrowserTools
from simulator.store import memory
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations
from simulator.tasks.catalog import task_catalog
from tasks.catalog import Catalog

_MCP_PATH = re.compile(r"^/episodes/([^/]+)/mcp/?$")
INSTRUCTIONS = ("You are working inside a company's apps (mail and more) as one of its employees. "
                "Tools are named <app>_<operation>; ids are scoped to your own account.")


def allowed_hosts() -> list[str]:
    extra = settings().hosts
    return ["127.0.0.1:*", "localhost:*", "[::1]:*", *extra]


def serve(app, host: str, port: int) -> None:
    """Run ``app`` under uvicorn as ``officeworld up`` does. uvloop and httptools are what "auto" picks when
    installed (both are dependencies); the access log is off, as its level already hid it, because uvicorn
    formats each line's client address and quoted path before the logger drops it."""
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)


def build_app(store: EpisodeStore | None = None, catalog: Catalog | None = None,
              token: str | None = None) -> "Gateway":
    """The server; the control API takes ``token`` (default ``OFFICEWORLD_TOKEN``, else one made and printed)."""
    store = store if store is not None else EpisodeStore()
    operations = all_operations(store.apps)
    browsers = BrowserTools()

    def episode_of(ctx: ServerRequestContext[Any, Any]) -> Episode:
        assert ctx.request is not None  # the HTTP transport attaches each call's request
        return store.get(ctx.request.scope["episode"])

    mcp = build_server(operations, episode_of,
                       instructions=INSTRUCTIONS, extra=browsers)
    hosts = allowed_hosts()
    security = TransportSecuritySettings(
        allowed_hosts=hosts, allowed_origins=[f"http://{h}" for h in hosts])
    # JSON responses, not an SSE stream: a tool call is one request and one answer (the SDK's client takes both).
    mcp.streamable_http_app(transport_security=security, json_response=True)
    # The gateway hands each MCP request to the session manager itself: the Starlette app around it only
    # routes its one path (the gateway already matched it) through two more middleware layers.
    mcp_app = mcp.session_manager.handle_request
    # An operation's tools/call in a ready session is answered by the SDK's kernel without its message loop.
    calls = SessionCalls(mcp, mcp.session_manager, security, {op.qualified_name for op in operations})

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        async with mcp.session_manager.run():
            gateway.loop = asyncio.get_running_loop()
            with memory.serving(gateway.loop):   # a release retires the loop's idle worker threads
                yield
            gateway.loop = None
        await anyio.to_thread.run_sync(browsers.close)

    api = FastAPI(title="officeworld", version="0.1.0", lifespan=lifespan)
    api.state.store, api.state.browsers = store, browsers

    async def get_episode(episode_id: str):  # async: a dict lookup needs no worker thread
        return store.get(episode_id)

    @api.get("/health", tags=["control"])  # the first route: the router tries routes in order
    async def health() -> dict:
        return {"status": "ok", "episodes": len(store), "apps": sorted(store.apps)}

    catalog = catalog if catalog is not None else task_catalog(store)
    api.state.catalog = catalog
    token = control_token(token)
    api.include_router(control_router(store, catalog, token))
    api.include_router(operation_router(operations, get_episode), prefix="/episodes/{episode_id}/api")
    tools = catalogue(store.apps)

    @api.get("/episodes/{episode_id}/api/tools", tags=["agent"], summary="The episode's operations, for ow")
    def episode_tools(episode=Depends(get_episode)) -> dict:
        return tools
    mount_gui(api, store, operations)
    document_inputs(api, operations)

    api.add_exception_handler(OpError, lambda request, exc: error_response(exc))
    # Starlette types a handler as taking any Exception; it calls each with its own class only.
    api.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    api.add_exception_handler(HTTPException, _http_error)  # type: ignore[arg-type]
    # Operation calls, the control plane's direct call and /health skip FastAPI (simulator.gateway.fast).
    fast = FastRoutes(store, operations, ControlCalls(store, token))
    gateway = Gateway(api, mcp_app, store, mcp.session_manager, {op.qualified_name: op for op in operations}, fast,
                      calls=calls)
    return gateway


def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    return error_response(invalid_from(exc.errors(), unknown="is not a known field", located=True))


def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
    # Unknown paths and wrong methods answer in the same shape as every other error.
    kind = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "error")
    return JSONResponse({"error": {"type": kind, "message": str(exc.detail), "field": None}},
                        status_code=exc.status_code, headers=exc.headers)


class Gateway:
    """Routes ``/episodes/{id}/mcp`` to the MCP app (with the episode in the scope), the rest to FastAPI.

    Every request body is read up to ``BODY_LIMIT`` first (``simulator.gateway.body_limit``: past it, 413);
    then the hot paths are answered in plain ASGI (``simulator.gateway.fast``), the MCP path goes to the SDK's
    session manager and the rest to FastAPI.
    Each MCP session is bound to the episode whose URL opened it: the session id the SDK hands out is
    noted as the response leaves, and a request carrying it at any other episode's path (a call, a
    stream, a DELETE) is refused as an unknown session, so one episode's session never acts in another.
    The map forgets a session when it ends (DELETE, or the SDK dropped it) and when its episode is
    deleted, which also ends the session in the SDK. A tool call whose arguments hold a lone surrogate
    is answered here as a tool error naming the argument (``simulator.gateway.mcp_text``).
    """

    def __init__(self, api: FastAPI, mcp_app, store: EpisodeStore, manager=None, operations: dict | None = None,
                 fast: FastRoutes | None = None, body_limit: int = BODY_LIMIT, calls: SessionCalls | None = None):
        self.api, self.mcp_app, self.store, self.manager, self.fast = api, mcp_app, store, manager, fast
        self.calls = calls
        self.operations, self.body_limit = operations or {}, body_limit
        self.sessions: dict[str, str] = {}  # MCP session id -> the episode that opened it
        self.loop: asyncio.AbstractEventLoop | None = None  # set while the server runs
        self._ending: set = set()
        store.on_delete.append(self._episode_deleted)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.api(scope, receive, send)
        try:
            body = await read_body(scope, receive, self.body_limit)
        except TooLarge:
            return await refuse(send, self.body_limit)
        if body is None:  # the client went away
            return None
        if self.fast is not None and await self.fast.answer(scope, body, send):
            return None
        receive = replaying(body, receive)
        match = _MCP_PATH.match(scope.get("path", ""))
        if match is None:
            return await self.api(scope, receive, send)
        episode_id = match.group(1)
        session = _header(scope, b"mcp-session-id")
        if episode_id not in self.store:
            refusal = {"type": "not_found", "message": f"no episode {episode_id!r}", "field": "episode_id"}
        elif session is not None and self.sessions.get(session, episode_id) != episode_id:
            refusal = {"type": "not_found", "message": f"no MCP session {session!r} at episode {episode_id!r}; "
                       "a session acts only in the episode whose URL opened it", "field": "mcp-session-id"}
        else:
            refusal = None
        if refusal is not None:
            return await error_response(refusal)(scope, receive, send)
        if session in self.sessions and scope["method"] == "POST":
            found = lone_surrogate_call(body)
            if found is not None:
                return await self._surrogate_reply(send, episode_id, session, *found)
        scope = dict(scope, path="/mcp", raw_path=b"/mcp", episode=episode_id)
        if session is not None and self.calls is not None and scope["method"] == "POST" \
                and session in self.sessions and await self.calls.answer(scope, body, send, session):
            return None
        await self.mcp_app(scope, receive, self._binding(send, episode_id, session, scope["method"]))

    async def _surrogate_reply(self, send, episode_id: str, session: str, request: dict, where: str) -> None:
        op = self.operations.get(request["params"]["name"])
        if op is not None:  # recorded like any refused call; the kit's limits name the argument
            step = await invoke_async(self.store.get(episode_id), op, request["params"].get("arguments") or {}, "mcp")
            assert step.error is not None  # the kit refuses text holding a lone surrogate, naming the argument
            error = step.error
        else:
            error = {"type": "invalid", "field": where,
                     "message": f"{where}: text is not valid Unicode (a lone surrogate)"}
        body = tool_error_reply(request, error)
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"mcp-session-id", session.encode())]})
        await send({"type": "http.response.body", "body": body})

    def _binding(self, send, episode_id: str, session: str | None, method: str):
        async def bound_send(message):
            if message["type"] == "http.response.start":
                opened = _header(message, b"mcp-session-id")
                if session is None and opened is not None:
                    self._forget_ended()
                    self.sessions[opened] = episode_id
                elif session is not None and (message["status"] == 404 or (method == "DELETE" and message["status"] < 300)):
                    self.sessions.pop(session, None)   # ended here, or the SDK no longer knows it
                    if self.calls is not None:
                        self.calls.forget(session)
            await send(message)
        return bound_send

    def _live_sessions(self) -> dict | None:
        return getattr(self.manager, "_server_instances", None)  # the SDK's own map (no public accessor)

    def _forget_ended(self) -> None:
        """Drop sessions the SDK has ended on its own (idle timeout, crash) from the map."""
        live = self._live_sessions()
        if live is not None and len(self.sessions) >= len(live):
            for session in [s for s in self.sessions if s not in live]:
                self.sessions.pop(session, None)
            if self.calls is not None:
                self.calls.prune(live)

    def _episode_deleted(self, episode_id: str) -> None:
        """Told by the store (from any thread): forget the episode's sessions and end them in the SDK."""
        ended = [s for s, e in list(self.sessions.items()) if e == episode_id]
        for session in ended:
            self.sessions.pop(session, None)
            if self.calls is not None:
                self.calls.forget(session)
        loop = self.loop
        if ended and loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._end_sessions, ended)

    def _end_sessions(self, sessions: list[str]) -> None:
        live = self._live_sessions() or {}
        for session in sessions:
            transport = live.get(session)
            if transport is not None:
                task = asyncio.ensure_future(transport.terminate())
                self._ending.add(task)
                task.add_done_callback(self._ending.discard)


def _header(holder: dict, name: bytes) -> str | None:
    """A header of an ASGI scope or response start, or None."""
    for key, value in holder.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None
