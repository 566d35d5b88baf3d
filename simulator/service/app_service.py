"""An app service: one app's per-episode state behind an internal admin API.

    PUT    /admin/episodes/{id}                 open from the world's pristine copy, or fork another
    PUT    /admin/episodes/{id}/image?world=    open (or restore) from database bytes
    GET    /admin/episodes/{id}                 the episode's state exists here
    GET    /admin/episodes/{id}/digest          digest of its state
    GET    /admin/episodes/{id}/image           its database bytes
    DELETE /admin/episodes/{id}                 drop it
    POST   /admin/episodes/{id}/call/{op}       run an operation (already validated by the gateway)
    GET    /health                              liveness

The paths and bodies are ``apps.kit.service_protocol``, which the gateway's client
(``apps.kit.remote.RemoteHost``) uses too.

Only the gateway talks to it, over the internal network; no agent surface forwards here. Every
``/admin`` request must carry ``Authorization: Bearer <token>`` (``OFFICEWORLD_ADMIN_TOKEN``, which
compose and the process backend give the gateway and the app services alone); ``/health`` is open.
The gateway validates, keeps the clock and records the Step; this service only executes and stores.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
from typing import Sequence

from fastapi import FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError

from apps.kit import App, NotFound, OpError
from apps.kit import service_protocol as protocol
from apps.kit.host import LocalHost
from apps.kit.operation import invalid_from
from apps.kit.rest import error_response
from simulator.gateway.body_limit import BodyLimit
from simulator.store.episodes import EpisodeStore
from simulator.store.memory import release_soon, serving


def build_app_service(app: App, worlds: Sequence[str] = (), cache_dir=None, *, token: str) -> FastAPI:
    """The admin API of ``app``, open only to requests bearing ``token``; ``worlds`` are compiled
    before the service reports healthy."""
    if not token:
        raise ValueError("an app service needs an admin token (OFFICEWORLD_ADMIN_TOKEN)")
    store = EpisodeStore({app.name: app}, cache_dir=cache_dir, app_urls={})
    host = store.hosts[app.name]
    assert isinstance(host, LocalHost)  # app_urls={}: every app of this store is local
    for world in worlds:
        store.world(world)
    @contextlib.asynccontextmanager
    async def lifespan(api: FastAPI):
        with serving(asyncio.get_running_loop()):   # a release retires the loop's idle worker threads
            yield

    api = FastAPI(title=f"officeworld {app.name} service", version="0.1.0", lifespan=lifespan)
    expected = f"Bearer {token}".encode()

    @api.middleware("http")
    async def require_token(request: Request, call_next):
        if request.url.path.startswith("/admin") and not hmac.compare_digest(
                request.headers.get("authorization", "").encode(), expected):
            return error_response({"type": "forbidden", "field": "authorization",
                                   "message": "the admin API needs the gateway's token (Authorization: Bearer ...)"})
        return await call_next(request)

    @api.get(protocol.HEALTH)
    def health() -> protocol.Health:
        return protocol.Health(status="ok", app=app.name, episodes=len(host))

    @api.put(protocol.EPISODE, status_code=204)
    def open_episode(episode_id: str, body: protocol.OpenEpisode) -> Response:
        host.open(episode_id, _world(store, body.world), fork_from=body.fork_from)
        return Response(status_code=204)

    @api.put(protocol.IMAGE, status_code=204)
    async def restore_episode(request: Request, episode_id: str, world: str = Query()) -> Response:
        image = await request.body()
        host.open(episode_id, _world(store, world), image=image)
        return Response(status_code=204)

    @api.get(protocol.EPISODE)
    def get_episode(episode_id: str) -> protocol.EpisodeHere:
        host.shared(episode_id)  # only to check it exists: no copy of a database a fork shares
        return protocol.EpisodeHere(id=episode_id, app=app.name)

    @api.get(protocol.DIGEST)
    def digest(episode_id: str) -> protocol.Digest:
        return protocol.Digest(digest=host.digest(episode_id))

    @api.get(protocol.IMAGE, response_class=Response)
    def image(episode_id: str) -> Response:
        return Response(host.image(episode_id), media_type=protocol.IMAGE_TYPE)

    @api.delete(protocol.EPISODE, status_code=204)
    def delete(episode_id: str) -> Response:
        host.close(episode_id)
        release_soon()
        return Response(status_code=204)

    @api.post(protocol.CALL)
    def call(episode_id: str, operation: str, body: protocol.CallRequest) -> protocol.CallResult:
        op = app.operations.operations.get(operation)
        if op is None:
            raise NotFound(f"{app.name} has no operation {operation!r}", field="operation")
        outcome = host.call(episode_id, op, op.validate(body.arguments), body.actor, body.now)
        return protocol.CallResult(result=outcome.result, error=outcome.error,
                                   state_changed=outcome.state_changed, requests=outcome.requests)

    api.add_exception_handler(OpError, lambda request, exc: error_response(exc))
    api.add_exception_handler(RequestValidationError, lambda request, exc: error_response(
        invalid_from(exc.errors(), "is not a known field", located=True)))
    api.add_exception_handler(Exception, _internal)
    api.add_middleware(BodyLimit)   # 413 past the body limit, as at the gateway
    return api


def _world(store: EpisodeStore, world: str) -> str:
    store.world(world)  # NotFound (404) with the loader's reason when the world cannot be loaded
    return world


def _internal(request: Request, exc: Exception) -> Response:
    # A crash in an app's operation is a bug; the gateway records it as an internal step error.
    return error_response({"type": "internal", "message": f"{type(exc).__name__}: {exc}"})
