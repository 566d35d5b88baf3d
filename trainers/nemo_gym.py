"""NeMo Gym's resources server over a world (nemo-gym 0.4.0, the newest that installs on Python 3.12; 0.5 and
later need Python >= 3.13.14): a thin layer over the control plane, as the other adapters are.

NeMo Gym runs three servers: a model (Responses API), an agent that loops model -> tools, and the resources
server, "the world", which this is. Its ``SimpleAgent`` posts, per rollout (one cookie session):

- ``POST /seed_session`` with the dataset row (``responses_create_params`` and the row's other keys): a world
  episode of the row's ``task_id`` opens for the session (once: a second seed of the same session keeps it);
- ``POST /<tool>`` with the call's arguments: one tool call in that episode; the answer is the world's Step
  (``result`` or ``error``), an error included, so the model sees its own mistakes as any surface shows them;
- ``POST /verify`` with the row and the final ``response``: the episode is graded (``finish``) and deleted;
  ``reward`` is the world's total (0.0 when ungradable, ``gradable`` false), ``world_reward`` the whole Reward.

Submit: the world's rule holds (``task_submit_answer`` ends the episode; later writes are refused and recorded);
NeMo's agent loops until the model answers without a tool call, and verify grades what the world holds then.
Errors: an infrastructure failure (the world unreachable, its 5xx) is a 502 here, never a reward: on a tool call
NeMo's agent passes the 502 body to the model (its loop does not raise there), at ``/verify`` its
``raise_for_status`` fails the rollout, which NeMo reports as an error rather than scoring it. A model endpoint
that fails fails the rollout inside NeMo's agent before verify; that episode, and any a crashed rollout left,
is deleted when this server shuts down, and the world's idle timeout bounds it before that.

Rows for a dataset: ``task_row(client, task_id)`` (the task's prompt and its tools in the Responses API form).
NeMo's config (``ng_run``; not run here: tests drive the classes directly, see tests/trainers/test_nemo_gym.py)::

    officeworld:
      resources_servers:
        officeworld:
          entrypoint: trainers/nemo_gym.py
          domain: agent
          world_url: http://127.0.0.1:8000
          world_token: ${oc.env:OFFICEWORLD_TOKEN}

It imports only the control plane's client (httpx and aiohttp) from officeworld: NeMo Gym pins MCP SDK 1.x,
officeworld 2.x, so this runs in a venv of NeMo's (``.venv-nemo``, Python 3.12) with officeworld on the path.
"""

from __future__ import annotations

import contextlib
from typing import Any

import httpx
from fastapi import FastAPI, HTTPException, Request
from nemo_gym.base_resources_server import (  # type: ignore[import-not-found]  # in .venv-nemo only
    BaseResourcesServerConfig,
    BaseSeedSessionRequest,
    BaseSeedSessionResponse,
    BaseVerifyRequest,
    BaseVerifyResponse,
    SimpleResourcesServer,
)
from nemo_gym.server_utils import SESSION_ID_KEY  # type: ignore[import-not-found]
from pydantic import ConfigDict, Field, PrivateAttr

from simulator.gateway.client import AsyncClient, Client, ControlError


class OfficeWorldResourcesServerConfig(BaseResourcesServerConfig):
    world_url: str = Field(description="The world's control plane, e.g. http://127.0.0.1:8000")
    world_token: str = Field(description="Its control token")
    toolset: str = Field("task", description="task (the task's apps' tools) or all")


class OfficeWorldSeedRequest(BaseSeedSessionRequest):
    model_config = ConfigDict(extra="allow")
    task_id: str = Field(min_length=1, description="The task the rollout runs")


class OfficeWorldVerifyRequest(BaseVerifyRequest):
    model_config = ConfigDict(extra="allow")


class OfficeWorldVerifyResponse(BaseVerifyResponse):
    model_config = ConfigDict(extra="allow")
    gradable: bool = True
    passed: bool = False
    world_reward: dict[str, Any] = Field(default_factory=dict)


class WorldUnavailable(HTTPException):
    """The world failed (unreachable, or a 5xx of its own): an infrastructure error, never the policy's reward."""

    def __init__(self, error: Exception):
        super().__init__(502, f"the world failed: {type(error).__name__}: {error}")


def infrastructure(error: Exception) -> bool:
    return isinstance(error, httpx.HTTPError) or (isinstance(error, ControlError) and error.status >= 500)


class OfficeWorldResourcesServer(SimpleResourcesServer):
    """One world episode per NeMo session (rollout): seeded, called, verified, deleted."""

    config: OfficeWorldResourcesServerConfig
    episodes: dict[str, str] = Field(default_factory=dict)   # NeMo session id -> world episode id
    _world: AsyncClient | None = PrivateAttr(None)

    def setup_webserver(self) -> FastAPI:
        app = super().setup_webserver()
        app.post("/{tool}")(self.call_tool)
        inner = app.router.lifespan_context

        @contextlib.asynccontextmanager
        async def lifespan(app: FastAPI):
            async with inner(app) as state:
                try:
                    yield state
                finally:
                    await self.close()
        app.router.lifespan_context = lifespan
        return app

    @property
    def world(self) -> AsyncClient:
        if self._world is None:
            self._world = AsyncClient(self.config.world_url, self.config.world_token)
        return self._world

    async def seed_session(self, request: Request, body: OfficeWorldSeedRequest) -> BaseSeedSessionResponse:
        session = request.session[SESSION_ID_KEY]
        if session not in self.episodes:
            try:
                episode = await self.world.create_episode(body.task_id, toolset=self.config.toolset,
                                                          meta={"trainer": "nemo-gym", "session": session})
            except ControlError as error:
                if infrastructure(error):
                    raise WorldUnavailable(error) from error
                raise HTTPException(422, {"type": error.type, "message": error.message, "field": error.field})
            except httpx.HTTPError as error:
                raise WorldUnavailable(error) from error
            self.episodes[session] = episode["id"]
        return BaseSeedSessionResponse()

    async def call_tool(self, tool: str, request: Request) -> dict:
        episode = self.episodes.get(request.session.get(SESSION_ID_KEY, ""))
        if episode is None:
            raise HTTPException(400, "no episode for this session: POST /seed_session first")
        arguments = await request.json() if await request.body() else {}
        if not isinstance(arguments, dict):
            return {"error": {"type": "invalid", "message": "a tool's arguments are a JSON object"}}
        try:
            step = await self.world.call(episode, tool, arguments)
        except Exception as error:
            if infrastructure(error):
                raise WorldUnavailable(error) from error
            if not isinstance(error, ControlError):
                raise
            return {"error": {"type": error.type, "message": error.message, "field": error.field}}
        return {"error": step["error"]} if step.get("error") is not None else {"result": step.get("result")}

    async def verify(self, request: Request, body: OfficeWorldVerifyRequest) -> OfficeWorldVerifyResponse:
        session = request.session.get(SESSION_ID_KEY, "")
        episode = self.episodes.get(session)
        if episode is None:
            raise HTTPException(400, "no episode for this session: POST /seed_session first")
        try:
            reward = await self.world.finish(episode)
        except Exception as error:
            if infrastructure(error):   # the episode stays: a retried verify grades it
                raise WorldUnavailable(error) from error
            raise
        await self._end(session)
        total = reward.get("total")
        return OfficeWorldVerifyResponse(**body.model_dump(), reward=float(total or 0.0), gradable=total is not None,
                                         passed=bool(reward.get("passed")), world_reward=reward)

    async def _end(self, session: str) -> None:
        episode = self.episodes.pop(session, None)
        if episode is not None:
            with contextlib.suppress(ControlError, httpx.HTTPError):
                await self.world.delete(episode)

    async def close(self) -> None:
        """Delete every episode a rollout left open (its verify never came), then the client."""
        for session in list(self.episodes):
            await self._end(session)
        if self._world is not None:
            await self._world.aclose()
            self._world = None


def responses_tool(tool: dict) -> dict:
    """An OpenAI chat tool (``{"type": "function", "function": {...}}``) in the Responses API's flat form."""
    function = tool["function"]
    return {"type": "function", "name": function["name"], "description": function.get("description", ""),
            "parameters": function.get("parameters", {"type": "object", "properties": {}}), "strict": False}


def task_row(client: Client, task_id: str, toolset: str = "task") -> dict:
    """A NeMo Gym dataset row for a task: its prompt as the input, its tools, and ``task_id`` for seed_session."""
    episode = client.create_episode(task_id, toolset=toolset, meta={"trainer": "nemo-gym", "row": task_id})
    try:
        return {"task_id": task_id, "responses_create_params": {
            "input": [{"role": "user", "content": episode["task"]["prompt"]}],
            "tools": [responses_tool(tool) for tool in episode["tools"]["openai"]]}}
    finally:
        client.delete(episode["id"])


if __name__ == "__main__":
    OfficeWorldResourcesServer.run_webserver()
