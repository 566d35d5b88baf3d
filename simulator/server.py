"""The embedded server: control API, per-episode REST and per-episode MCP, in one ASGI app.

    /v1/...                         control API (trainers, runners; bearer token, simulator/auth.py)
    /episodes/{id}/api/{app}/{op}   per-episode REST, one route per operation
    /episodes/{id}/api/tools        every operation's schema and CLI shape (what ``ow`` builds its commands from)
    /episodes/{id}/mcp              per-episode MCP over streamable HTTP
    /episodes/{id}/gui/...          per-episode browser GUI (simulator/gui)
    /health                         liveness
"""

from __future__ import annotations

import contextlib
import os
import re

import anyio
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from mcp.server.transport_security import TransportSecuritySettings

from apps.kit import OpError
from apps.kit.cli import catalogue
from apps.kit.mcp import build_server
from apps.kit.operation import invalid_from
from apps.kit.rest import error_response, operation_router
from simulator.auth import control_token
from simulator.browser_tools import BrowserTools
from simulator.control import control_router
from simulator.episodes import EpisodeStore
from simulator.gui import mount_gui
from simulator.registry import all_operations
from simulator.tasks import task_catalog
from tasks.catalog import Catalog

_MCP_PATH = re.compile(r"^/episodes/([^/]+)/mcp/?$")
INSTRUCTIONS = ("You are working inside a company's apps (mail and more) as one of its employees. "
                "Tools are named <app>_<operation>; ids are scoped to your own account.")


def allowed_hosts() -> list[str]:
    extra = [h.strip() for h in os.environ.get("OFFICEWORLD_ALLOWED_HOSTS", "").split(",") if h.strip()]
    return ["127.0.0.1:*", "localhost:*", "[::1]:*", *extra]


def build_app(store: EpisodeStore | None = None, catalog: Catalog | None = None,
              token: str | None = None) -> "Gateway":
    """The server; the control API takes ``token`` (default ``OFFICEWORLD_TOKEN``, else one made and printed)."""
    store = store if store is not None else EpisodeStore()
    operations = all_operations(store.apps)
    browsers = BrowserTools()
    mcp = build_server(operations, lambda ctx: store.get(ctx.request.scope["episode"]),
                       instructions=INSTRUCTIONS, extra=browsers)
    hosts = allowed_hosts()
    security = TransportSecuritySettings(
        allowed_hosts=hosts, allowed_origins=[f"http://{h}" for h in hosts])
    # JSON responses, not an SSE stream: a tool call is one request and one answer (the SDK's client takes both).
    mcp_app = mcp.streamable_http_app(transport_security=security, json_response=True)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        async with mcp.session_manager.run():
            yield
        await anyio.to_thread.run_sync(browsers.close)

    api = FastAPI(title="officeworld", version="0.1.0", lifespan=lifespan)
    api.state.store, api.state.browsers = store, browsers

    async def get_episode(episode_id: str):  # async: a dict lookup needs no worker thread
        return store.get(episode_id)

    catalog = catalog if catalog is not None else task_catalog(store)
    api.state.catalog = catalog
    api.include_router(control_router(store, catalog, control_token(token)))
    api.include_router(operation_router(operations, get_episode), prefix="/episodes/{episode_id}/api")
    tools = catalogue(store.apps)

    @api.get("/episodes/{episode_id}/api/tools", tags=["agent"], summary="The episode's operations, for ow")
    def episode_tools(episode=Depends(get_episode)) -> dict:
        return tools
    mount_gui(api, store, operations)

    @api.get("/health", tags=["control"])
    async def health() -> dict:
        return {"status": "ok", "episodes": len(store), "apps": sorted(store.apps)}

    api.add_exception_handler(OpError, lambda request, exc: error_response(exc))
    api.add_exception_handler(RequestValidationError, _validation_error)
    return Gateway(api, mcp_app, store)


def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    return error_response(invalid_from(exc.errors(), unknown="is not a known field"))


class Gateway:
    """Routes ``/episodes/{id}/mcp`` to the MCP app (with the episode in the scope), the rest to FastAPI."""

    def __init__(self, api: FastAPI, mcp_app, store: EpisodeStore):
        self.api, self.mcp_app, self.store = api, mcp_app, store

    async def __call__(self, scope, receive, send):
        match = _MCP_PATH.match(scope.get("path", "")) if scope["type"] == "http" else None
        if match is None:
            return await self.api(scope, receive, send)
        episode_id = match.group(1)
        if episode_id not in self.store:
            response = error_response({"type": "not_found", "message": f"no episode {episode_id!r}",
                                       "field": "episode_id"})
            return await response(scope, receive, send)
        scope = dict(scope, path="/mcp", raw_path=b"/mcp", episode=episode_id)
        await self.mcp_app(scope, receive, send)
