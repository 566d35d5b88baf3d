"""The embedded server: control API, per-episode REST and per-episode MCP, in one ASGI app.

    /v1/...                         control API (trainers, runners)
    /episodes/{id}/api/{app}/{op}   per-episode REST, one route per operation
    /episodes/{id}/mcp              per-episode MCP over streamable HTTP
    /health                         liveness
"""

from __future__ import annotations

import contextlib
import os
import re

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from mcp.server.transport_security import TransportSecuritySettings

from apps.kit import OpError
from apps.kit.mcp import build_server
from apps.kit.operation import invalid_from
from apps.kit.rest import document_inputs, error_response, operation_router
from simulator.control import control_router
from simulator.episodes import EpisodeStore
from simulator.registry import all_operations

_MCP_PATH = re.compile(r"^/episodes/([^/]+)/mcp/?$")
INSTRUCTIONS = ("You are working inside a company's apps (mail and more) as one of its employees. "
                "Tools are named <app>_<operation>; ids are scoped to your own account.")


def allowed_hosts() -> list[str]:
    extra = [h.strip() for h in os.environ.get("OFFICEWORLD_ALLOWED_HOSTS", "").split(",") if h.strip()]
    return ["127.0.0.1:*", "localhost:*", "[::1]:*", *extra]


def build_app(store: EpisodeStore | None = None) -> "Gateway":
    store = store if store is not None else EpisodeStore()
    operations = all_operations(store.apps)
    mcp = build_server(operations, lambda ctx: store.get(ctx.request.scope["episode"]),
                       instructions=INSTRUCTIONS)
    hosts = allowed_hosts()
    security = TransportSecuritySettings(
        allowed_hosts=hosts, allowed_origins=[f"http://{h}" for h in hosts])
    mcp_app = mcp.streamable_http_app(transport_security=security)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        async with mcp.session_manager.run():
            yield

    api = FastAPI(title="officeworld", version="0.1.0", lifespan=lifespan)
    api.state.store = store

    def get_episode(episode_id: str):
        return store.get(episode_id)

    api.include_router(control_router(store))
    api.include_router(operation_router(operations, get_episode), prefix="/episodes/{episode_id}/api")
    document_inputs(api, operations)

    @api.get("/health", tags=["control"])
    def health() -> dict:
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
