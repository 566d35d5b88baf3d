"""The embedded server: control API, per-episode REST and per-episode MCP, in one ASGI app.

    /v1/...                         control API (trainers, runners; bearer token, simulator/gateway/auth.py)
    /episodes/{id}/api/{app}/{op}   per-episode REST, one route per operation
    /episodes/{id}/api/tools        every operation's schema and CLI shape (what ``ow`` builds its commands from)
    /episodes/{id}/mcp              per-episode MCP over streamable HTTP
    /episodes/{id}/gui/...          per-episode browser GUI (simulator/gui)
    /health                         liveness (one worker of ``up --workers N``: every worker's)
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from typing import Any

import anyio
import uvicorn
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from apps.kit import OpError
from apps.kit.cli import catalogue
from apps.kit.invoker import invoke_async
from apps.kit.operation import invalid_from
from apps.kit.rest import document_inputs, error_body, error_response, operation_router
from simulator.gateway import web
from simulator.gateway.auth import control_token
from simulator.gateway.body_limit import BODY_LIMIT, TooLarge, read_body, refuse, replaying
from simulator.gateway.control import ControlCalls, control_router
from simulator.gateway.fast import FastRoutes, reply
from simulator.gateway.mcp_lazy import INSTRUCTIONS, LazyMCP, allowed_hosts  # noqa: F401  (re-exported)
from simulator.gateway.mcp_text import lone_surrogate_call, tool_error_reply
from simulator.gateway.peers import Peers, across_workers, local_only, misdirected
from simulator.gui import mount_gui
from simulator.gui.browser_tools import BrowserTools
from simulator.service import listener
from simulator.service.serve import KEEP_ALIVE_S
from simulator.store import memory
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations
from simulator.tasks.catalog import task_catalog
from tasks.catalog import Catalog

_MCP_PATH = re.compile(r"^/episodes/([^/]+)/mcp/?$")


def serve(app, host: str, port: int) -> None:
    """Run ``app`` under uvicorn as ``officeworld up`` does. uvloop and httptools are what "auto" picks when
    installed (both are dependencies); the access log is off, as its level already hid it, because uvicorn
    formats each line's client address and quoted path before the logger drops it. An idle connection is kept
    ``KEEP_ALIVE_S``, longer than clients keep one. The listening socket takes every waiting connection each
    turn of the loop (``simulator.service.listener`` says why)."""
    listener.run(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                timeout_keep_alive=KEEP_ALIVE_S))


def build_app(store: EpisodeStore | None = None, catalog: Catalog | None = None,
              token: str | None = None, warm_mcp: bool = False) -> "Gateway":
    """The server; the control API takes ``token`` (default ``OFFICEWORLD_TOKEN``, else one made and printed).
    Its MCP server is built by the first MCP request, or with ``warm_mcp`` in a thread as soon as it runs
    (``simulator/gateway/mcp_lazy.py`` says what each costs)."""
    store = store if store is not None else EpisodeStore()
    operations = all_operations(store.apps)
    browsers = BrowserTools()

    # The MCP SDK and server: built by the first MCP request, or with warm_mcp as soon as it runs (mcp_lazy.py).
    mcp = LazyMCP(store, operations, browsers)
    peers = Peers()   # the other workers of ``up --workers N`` (none otherwise)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        peers.open()   # at start, not on the first request asking across workers (Peers.open says why)
        async with mcp.lifespan(warm=warm_mcp):
            gateway.loop = asyncio.get_running_loop()
            with memory.serving(gateway.loop):   # a release retires the loop's idle worker threads
                yield
            gateway.loop = None
        await peers.close()
        try:   # in a worker thread: closing Chromium waits on its thread (seconds)
            await anyio.to_thread.run_sync(browsers.close)
        except RuntimeError:   # Python 3.12+ stopped from an atexit handler (local_world): no new thread may
            browsers.close()   # start then, and a release may have retired every idle worker (memory._retired)

    api = FastAPI(title="officeworld", version="0.1.0", lifespan=lifespan)
    api.state.store, api.state.browsers = store, browsers

    async def get_episode(episode_id: str):  # async: a dict lookup needs no worker thread
        return store.get(episode_id)

    @api.get("/health", tags=["control"])  # the first route: the router tries routes in order
    async def health(request: Request) -> dict:
        own = {"status": "ok", "episodes": len(store), "apps": sorted(store.apps)}
        if not peers or local_only(request.headers):   # one worker (fast.py answers it), or a peer's question
            return own
        return across_workers(own, store.worker, await peers.gather("/health", request.headers))

    catalog = catalog if catalog is not None else task_catalog(store)
    api.state.catalog = catalog
    token = control_token(token)
    api.include_router(control_router(store, catalog, token, peers))
    tools: dict = {}

    @api.get("/episodes/{episode_id}/api/tools", tags=["agent"], summary="The episode's operations, for ow")
    def episode_tools(episode=Depends(get_episode)) -> dict:
        if not tools:   # made on first use: every operation's input schema
            tools.update(catalogue(store.apps))
        return tools
    document_inputs(api, operations)
    # Added when first needed (Gateway.__call__, api.openapi), not at start: one route per operation, for
    # OpenAPI and for what fast.py leaves to FastAPI, a wrong method (FastAPI analyses each route's
    # dependencies and response model: a tenth of a start); the GUI's pages (their imports, jinja2's).
    deferred = [
        _Deferred(api, lambda: api.include_router(operation_router(operations, get_episode),
                                                  prefix="/episodes/{episode_id}/api"), _episode_path("api", 6)),
        _Deferred(api, lambda: mount_gui(api, store, operations), _episode_path("gui", 4))]

    api.add_exception_handler(OpError, lambda request, exc: error_response(exc))
    # Starlette types a handler as taking any Exception; it calls each with its own class only.
    api.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    api.add_exception_handler(HTTPException, _http_error)  # type: ignore[arg-type]
    # Operation calls, the control plane's direct call and /health skip FastAPI (simulator.gateway.fast).
    fast = FastRoutes(store, operations, ControlCalls(store, token, browsers), health=not peers)
    gateway = Gateway(api, mcp, store, {op.qualified_name: op for op in operations}, fast, deferred=deferred,
                      others=peers.urls)
    return gateway


def _episode_path(kind: str, parts: int):
    """Whether a path is ``/episodes/{id}/<kind>/...`` with at least ``parts`` parts when split on "/"."""
    def needed_for(path: str) -> bool:
        if not path.startswith("/episodes/"):
            return False
        split = path.split("/", parts)
        return len(split) >= parts and split[3] == kind
    return needed_for


class _Deferred:
    """Routes ``add`` puts on ``api`` the first time ``ensure`` runs (any thread; once): before FastAPI
    answers a path they may serve (``needed_for``, or the docs' paths) and before the OpenAPI schema is built."""

    def __init__(self, api: FastAPI, add, needed_for):
        self.api, self.add, self._needed_for = api, add, needed_for
        self.included = False
        self._lock = threading.Lock()
        build = api.openapi

        def openapi() -> dict[str, Any]:
            self.ensure()
            return build()

        api.openapi = openapi  # type: ignore[method-assign]

    def ensure(self) -> None:
        if self.included:
            return
        with self._lock:
            if not self.included:
                self.add()
                self.included = True

    def needed_for(self, path: str) -> bool:
        return self._needed_for(path) or path in (self.api.openapi_url, self.api.docs_url, self.api.redoc_url)


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
    a request a web page could have sent cross-origin is refused (``simulator.gateway.web``); then the hot
    paths are answered in plain ASGI (``simulator.gateway.fast``), the MCP path goes to the SDK's session
    manager and the rest to FastAPI (its answers with the security headers, ``web.headers``).
    Each MCP session is bound to the episode whose URL opened it: the session id the SDK hands out is
    noted as the response leaves, and a request carrying it at any other episode's path (a call, a
    stream, a DELETE) is refused as an unknown session, so one episode's session never acts in another.
    The map forgets a session when it ends (DELETE, or the SDK dropped it) and when its episode is
    deleted, which also ends the session in the SDK. A tool call whose arguments hold a lone surrogate
    is answered here as a tool error naming the argument (``simulator.gateway.mcp_text``).
    """

    def __init__(self, api: FastAPI, mcp: LazyMCP, store: EpisodeStore, operations: dict | None = None,
                 fast: FastRoutes | None = None, body_limit: int = BODY_LIMIT, deferred: list[_Deferred] | None = None,
                 others=()):
        self.api, self.mcp, self.store, self.fast, self.deferred = api, mcp, store, fast, deferred or []
        self._fast_calls = True   # ``calls = None`` turns the gateway's MCP call path off
        self.operations, self.body_limit = operations or {}, body_limit
        self.sessions: dict[str, str] = {}  # MCP session id -> the episode that opened it
        self.loop: asyncio.AbstractEventLoop | None = None  # set while the server runs
        self._ending: set = set()
        self.others = frozenset(others)   # the other workers' tags (``up --workers N``, compose's replicas)
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
        wrong = misdirected(scope, self.store.worker, self.others)   # a peer's question meant for another worker
        if wrong is not None:
            return await reply(send, 421, error_body(wrong))
        match = _MCP_PATH.match(scope.get("path", ""))
        if match is None:   # MCP's path: the SDK checks Origin and Host itself
            refused = web.refusal(scope)
            if refused is not None:
                return await reply(send, refused[0], error_body(refused[1]))
        if self.fast is not None and await self.fast.answer(scope, body, send):
            return None
        receive = replaying(body, receive)
        if match is None:
            for routes in self.deferred:
                if not routes.included and routes.needed_for(scope.get("path", "")):
                    routes.ensure()
            return await self.api(scope, receive, web.headers(send))
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
        built = await self.mcp.ready()
        calls = self._built_calls()
        scope = dict(scope, path="/mcp", raw_path=b"/mcp", episode=episode_id)
        if session is not None and calls is not None and scope["method"] == "POST" \
                and session in self.sessions and await calls.answer(scope, body, send, session):
            return None
        await built.handle_request(scope, receive, self._binding(send, episode_id, session, scope["method"]))

    @property
    def manager(self):
        """The SDK's session manager (the MCP server is built now if it was not yet)."""
        return self.mcp.build().manager

    @property
    def calls(self):
        """The gateway's own path for sessions' tool calls (``mcp_calls.SessionCalls``; built now if it was
        not yet), or None when turned off."""
        return self.mcp.build().calls if self._fast_calls else None

    @calls.setter
    def calls(self, value) -> None:
        """``None`` turns that path off: every call through the SDK's session (as a test compares)."""
        if value is not None:
            raise ValueError("the session calls are built with the MCP server; only None (off) can be set")
        self._fast_calls = False

    def _built_calls(self):
        """The session calls if the MCP server is built and they are on (never builds it)."""
        built = self.mcp.built
        return built.calls if built is not None and self._fast_calls else None

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
                    calls = self._built_calls()
                    if calls is not None:
                        calls.forget(session)
            await send(message)
        return bound_send

    def _live_sessions(self) -> dict | None:
        built = self.mcp.built   # the SDK's own map (no public accessor); none before the server is built
        return None if built is None else getattr(built.manager, "_server_instances", None)

    def _forget_ended(self) -> None:
        """Drop sessions the SDK has ended on its own (idle timeout, crash) from the map."""
        live = self._live_sessions()
        if live is not None and len(self.sessions) >= len(live):
            for session in [s for s in self.sessions if s not in live]:
                self.sessions.pop(session, None)
            calls = self._built_calls()
            if calls is not None:
                calls.prune(live)

    def _episode_deleted(self, episode_id: str) -> None:
        """Told by the store (from any thread): forget the episode's sessions and end them in the SDK."""
        ended = [s for s, e in list(self.sessions.items()) if e == episode_id]
        calls = self._built_calls()
        for session in ended:
            self.sessions.pop(session, None)
            if calls is not None:
                calls.forget(session)
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
