"""The control API that trainers and runners use: ``/v1/episodes`` and friends.

None of it is reachable from an agent's surfaces (MCP, per-episode REST, CLI), which only act
inside one episode.
"""

from __future__ import annotations

import zipfile
from datetime import datetime, timedelta
from typing import Literal

import anyio
from fastapi import APIRouter, Body, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from apps.kit import Invalid
from apps.kit.episode import Episode
from apps.kit.trajectory import Trajectory
from simulator.episodes import EpisodeStore
from simulator.registry import all_operations


class CreateEpisode(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    world: str = Field("acme", description="Name of a shipped world, or a path to a world folder")
    actor: str | None = Field(None, alias="as", description="Email of the person the agent acts as")
    browser: bool = Field(False, description="Offer the agent a browser on the apps' GUI (MCP tools browser_*)")


class EpisodeInfo(BaseModel):
    id: str
    world: str
    actor: str
    now: datetime
    apps: list[str]
    steps: int
    mcp_url: str
    api_url: str
    status: Literal["ready", "error", "unchecked"] = Field(
        description="error: some app's state cannot be reached (see app_errors); unchecked in listings")
    app_errors: dict[str, str] = Field(default_factory=dict, description="Per unreachable app, the reason")


class Digest(BaseModel):
    digest: str
    apps: dict[str, str]


class ClockAdvance(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seconds: float = Field(ge=0, le=10 * 365 * 86400, description="How far to move the virtual clock")


def info(request: Request, episode: Episode, check: bool = True) -> EpisodeInfo:
    """The episode as the control API shows it; ``check`` asks each app's host whether it is reachable
    (listings skip it: one round trip per app per episode would make them slow)."""
    base = str(request.base_url).rstrip("/")
    errors = {app: reason for app, reason in episode.app_states().items() if reason} if check else {}
    return EpisodeInfo(
        id=episode.id, world=episode.world.name, actor=episode.actor, now=episode.clock.now(),
        apps=episode.apps, steps=len(episode.trajectory),
        mcp_url=f"{base}/episodes/{episode.id}/mcp", api_url=f"{base}/episodes/{episode.id}/api",
        status=("error" if errors else "ready") if check else "unchecked", app_errors=errors,
    )


def control_router(store: EpisodeStore) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["control"])

    @router.post("/episodes", status_code=201)
    def create_episode(request: Request, body: CreateEpisode = Body(default_factory=CreateEpisode)) -> EpisodeInfo:
        episode = store.create(body.world, body.actor)
        if body.browser:
            request.app.state.browsers.enable(episode, str(request.base_url))
        return info(request, episode)

    @router.get("/episodes")
    def list_episodes(request: Request) -> list[EpisodeInfo]:
        return [info(request, e, check=False) for e in store.list()]

    @router.get("/episodes/{episode_id}")
    def get_episode(request: Request, episode_id: str) -> EpisodeInfo:
        return info(request, store.get(episode_id))

    @router.post("/episodes/{episode_id}/fork", status_code=201)
    def fork_episode(request: Request, episode_id: str) -> EpisodeInfo:
        return info(request, store.fork(episode_id))

    @router.delete("/episodes/{episode_id}", status_code=204)
    def delete_episode(request: Request, episode_id: str) -> Response:
        store.delete(episode_id)
        request.app.state.browsers.discard(episode_id)
        return Response(status_code=204)

    @router.get("/episodes/{episode_id}/trajectory")
    def trajectory(episode_id: str) -> Trajectory:
        return Trajectory.of(store.get(episode_id))

    @router.get("/episodes/{episode_id}/digest")
    def digest(episode_id: str) -> Digest:
        e = store.get(episode_id)
        return Digest(digest=e.digest(), apps=e.digests())

    @router.get("/episodes/{episode_id}/snapshot", response_class=Response,
                responses={200: {"content": {"application/zip": {}}}})
    def snapshot(episode_id: str) -> Response:
        return Response(store.get(episode_id).snapshot(), media_type="application/zip")

    @router.post("/episodes/{episode_id}/restore")
    async def restore(request: Request, episode_id: str) -> EpisodeInfo:
        episode, body = store.get(episode_id), await request.body()
        try:
            await anyio.to_thread.run_sync(episode.restore, body)
        except (zipfile.BadZipFile, KeyError, ValueError) as exc:
            raise Invalid(f"body: not a snapshot of this episode's world ({exc})", field="body") from None
        return info(request, episode)

    @router.post("/episodes/{episode_id}/clock")
    def advance_clock(request: Request, episode_id: str, body: ClockAdvance) -> EpisodeInfo:
        episode = store.get(episode_id)
        with episode.lock:
            episode.clock.advance(timedelta(seconds=body.seconds))
        return info(request, episode)

    @router.get("/tools")
    def tools() -> list[dict]:
        """Every operation as an OpenAI-style function tool."""
        return [op.openai_tool() for op in all_operations(store.apps)]

    return router
