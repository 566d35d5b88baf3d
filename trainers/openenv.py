"""An OpenEnv-compatible server over a world's control plane: what OpenEnv clients (its ``GenericEnvClient``,
TRL's OpenEnv path, verifiers' ``openenv`` taskset, SkyRL, torchforge) expect of an environment.

The wire format is OpenEnv's (checked against openenv 0.4.1's ``http_server.py``): ``WS /ws`` carries
``{"type": "reset" | "step" | "state" | "close", "data": {...}}`` and answers ``{"type": "observation" |
"state" | "error", "data": ...}``; an observation travels as ``{"observation": {...}, "reward", "done",
"metadata"?}``. ``POST /reset`` and ``POST /step`` are stateless there (each request gets a fresh environment),
so episodes live in WebSocket sessions: one world episode per session, deleted when the session ends.

- reset ``{task?, suite?, seed?, episode_id?}``: a task by id, or one drawn from a suite (by ``seed``, the
  same seed the same task); the server's ``--task`` / ``--suite`` otherwise. The observation carries the
  prompt and the tools (OpenAI form).
- step ``{tool, arguments}``: one tool call; the observation carries its result or its error. ``done``
  comes when the agent submits its answer (``task_submit_answer``) or ``max_steps`` is reached; the reward
  is then the world's (``finish``), with the whole Reward in ``metadata.reward``.

``POST /mcp`` is OpenEnv's JSON-RPC endpoint over the same sessions (``trainers/openenv_mcp.py``); with it the
server passes ``openenv validate --url`` of openenv 0.10 (tests/trainers/test_openenv_validate.py).

No task or reward logic lives here: everything comes from ``simulator.gateway.client.AsyncClient``. The openenv
package itself is not a dependency (it pins an MCP SDK other than ours): this is its small surface in FastAPI.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from typing import Any

import httpx
import typer
from fastapi import Body, FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from apps.kit.reactor import goes_on
from simulator.gateway.client import AsyncClient, ControlError
from trainers.openenv_mcp import add_mcp

SUBMIT = "task_submit_answer"
RESET_FIELDS = {"seed", "episode_id", "task", "suite", "toolset"}
TOOLSETS = ("task", "all")


class ToolAction(BaseModel):
    """One tool call in the episode."""
    model_config = ConfigDict(extra="forbid")
    tool: str = Field(min_length=1, description="The tool's name, app_operation (e.g. crm_search); task_submit_answer ends")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments (its JSON schema)")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Additional metadata for the action")


class ToolObservation(BaseModel):
    """What the agent sees after reset (prompt, tools) or a step (the tool's result or error)."""
    model_config = ConfigDict(extra="forbid")
    done: bool = Field(False, description="The agent submitted its answer or ran out of steps")
    reward: float | None = Field(None, description="The world's reward once done (None before, or if ungradable)")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Once done: reward (the world's Reward), truncated")
    task_id: str = Field("", description="The task the episode runs")
    prompt: str = Field("", description="The task's prompt (on reset)")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="The tools, OpenAI form (on reset)")
    tool: str | None = Field(None, description="The tool called (on step)")
    result: Any = Field(None, description="The tool's result (JSON)")
    error: dict[str, Any] | None = Field(None, description="The tool's error: type, message, field")


class WorldState(BaseModel):
    model_config = ConfigDict(extra="allow")
    episode_id: str | None = Field(None, description="The caller's episode id, else the world's")
    step_count: int = Field(0, ge=0, description="Steps taken in this episode")
    task_id: str | None = Field(None, description="The task the episode runs")
    world_episode: str | None = Field(None, description="The world's episode id")
    max_steps: int = Field(30, description="Steps before the episode is cut off")
    done: bool = False


class Refused(Exception):
    """A request this environment refuses: ``code`` as OpenEnv's WSErrorCode, ``field`` where it applies."""

    def __init__(self, message: str, code: str = "EXECUTION_ERROR", field: str | None = None, status: int = 422):
        super().__init__(message)
        self.message, self.code, self.field, self.status = message, code, field, status

    def data(self) -> dict:
        return {"message": self.message, "code": self.code, **({"field": self.field} if self.field else {})}


def serialize(observation: ToolObservation) -> dict:
    """OpenEnv's ``serialize_observation``: reward and done beside the observation, metadata in both."""
    out = {"observation": observation.model_dump(exclude={"reward", "done"}),
           "reward": observation.reward, "done": observation.done}
    if observation.metadata:
        out["metadata"] = observation.metadata
    return out


class Session:
    """One OpenEnv session: at most one world episode at a time, deleted on reset and on close."""

    def __init__(self, world: AsyncClient, suite: str | None, task: str | None, max_steps: int,
                 toolset: str = "task"):
        self.world, self.suite, self.task, self.max_steps, self.toolset = world, suite, task, max_steps, toolset
        self.state = WorldState(max_steps=max_steps)
        self.tools_seen: list[dict] = []   # the tools of the last reset (OpenAI form), for POST /mcp's tools/list

    async def reset(self, data: dict) -> ToolObservation:
        unknown = sorted(set(data) - RESET_FIELDS)
        if unknown:
            raise Refused(f"reset: unknown field {unknown[0]!r} (known: {', '.join(sorted(RESET_FIELDS))})",
                          "VALIDATION_ERROR", unknown[0])
        seed, episode_id = data.get("seed"), data.get("episode_id")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise Refused("reset: seed must be an integer >= 0", "VALIDATION_ERROR", "seed")
        if episode_id is not None and not isinstance(episode_id, str):
            raise Refused("reset: episode_id must be a string", "VALIDATION_ERROR", "episode_id")
        toolset = data.get("toolset", self.toolset)
        if toolset not in TOOLSETS:
            raise Refused("reset: toolset must be task (its apps' tools) or all", "VALIDATION_ERROR", "toolset")
        task_id = await self._pick(data.get("task"), data.get("suite"), seed)
        await self.close()
        episode = await self._world(self.world.create_episode(task_id, meta={"openenv_episode": episode_id},
                                                              toolset=toolset))
        self.state = WorldState(episode_id=episode_id or episode["id"], task_id=task_id, world_episode=episode["id"],
                                max_steps=self.max_steps)
        return ToolObservation(task_id=task_id, prompt=episode["task"]["prompt"], tools=episode["tools"]["openai"])

    async def _pick(self, task: Any, suite: Any, seed: int | None) -> str:
        for name, value in (("task", task), ("suite", suite)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise Refused(f"reset: {name} must be a non-empty string", "VALIDATION_ERROR", name)
        if task is not None and suite is not None:
            raise Refused("reset: give a task or a suite, not both", "VALIDATION_ERROR", "task")
        if task is None and suite is None:
            task, suite = self.task, self.suite
        if task is not None:
            return task
        if suite is None:
            raise Refused("reset: give a task or a suite (the server has no default)", "VALIDATION_ERROR", "task")
        ids = sorted(t["id"] for t in await self._world(self.world.tasks(suite=suite)))
        if not ids:
            raise Refused(f"reset: suite {suite!r} has no tasks", "VALIDATION_ERROR", "suite")
        return random.Random(seed).choice(ids)

    async def step(self, data: Any) -> ToolObservation:
        try:
            action = ToolAction.model_validate(data)
        except ValidationError as exc:
            field = ".".join(str(p) for p in exc.errors()[0]["loc"]) or "action"
            raise Refused(f"step: {field}: {exc.errors()[0]['msg']}", "VALIDATION_ERROR", field) from None
        if self.state.world_episode is None:
            raise Refused("step: no episode: reset first", field="type")
        if self.state.done:
            raise Refused("step: the episode is over: reset for a new one", field="type")
        self.state.step_count += 1
        try:
            step = await self.world.call(self.state.world_episode, action.tool, action.arguments)
            result, error = step.get("result"), step.get("error")
        except ControlError as exc:  # an unknown tool, arguments the world refuses before the call: the agent's error
            if exc.status >= 500:
                raise Refused(f"step: the world failed: {exc}", status=502) from None
            if exc.field == "episode_id":  # not the agent's doing: the world dropped it (idle timeout, restart)
                self.state.world_episode = None
                raise Refused(f"step: the world no longer has this episode ({exc.message}): reset") from None
            result, error = None, {"type": exc.type, "message": exc.message, "field": exc.field}
        except httpx.HTTPError as exc:
            raise Refused(f"step: the world is unreachable: {exc}", status=502) from None
        observation = ToolObservation(task_id=self.state.task_id or "", tool=action.tool, result=result, error=error)
        submitted = action.tool == SUBMIT and error is None and not goes_on(result)   # an answered question goes on
        if submitted or self.state.step_count >= self.max_steps:
            reward = await self._world(self.world.finish(self.state.world_episode))
            self.state.done = True
            observation.done, observation.reward = True, reward.get("total")
            observation.metadata = {"reward": reward, "truncated": not submitted}
        return observation

    async def close(self) -> None:
        episode, self.state.world_episode = self.state.world_episode, None
        if episode is not None:
            try:
                await self.world.delete(episode)
            except (ControlError, httpx.HTTPError):
                pass  # already gone (idle sweep) or the world is down: nothing left to free here

    async def _world(self, call):
        try:
            return await call
        except ControlError as exc:
            status = 502 if exc.status >= 500 else 422
            raise Refused(f"world: {exc.message}", "EXECUTION_ERROR", exc.field, status) from None
        except httpx.HTTPError as exc:
            raise Refused(f"world unreachable: {exc}", "EXECUTION_ERROR", status=502) from None


def build_openenv_app(world: AsyncClient, suite: str | None = None, task: str | None = None, max_steps: int = 30,
                      max_sessions: int = 64, *, toolset: str = "task") -> FastAPI:
    """The OpenEnv routes over ``world`` (an ``AsyncClient`` the app closes on shutdown); ``toolset``: the tools a
    reset offers unless it names its own (``task``: the task's apps'; ``all``)."""
    app = FastAPI(title="officeworld (OpenEnv)", on_shutdown=[world.aclose])
    sessions: set[Session] = set()

    def new_session() -> Session:
        return Session(world, suite, task, max_steps, toolset)

    @app.get("/health")
    def health() -> dict:
        return {"status": "healthy"}

    @app.get("/metadata")
    def metadata() -> dict:
        return {"name": "officeworld", "version": "0.1.0", "author": None, "documentation_url": None,
                "readme_content": None,
                "description": "A company's apps (mail, CRM, docs, calendar) with tasks graded by the world's "
                               "verifiers. Actions are tool calls {tool, arguments}; reset with a task or a suite."}

    @app.get("/schema")
    def schema() -> dict:
        return {"action": ToolAction.model_json_schema(), "observation": ToolObservation.model_json_schema(),
                "state": WorldState.model_json_schema()}

    @app.get("/state")
    def state() -> dict:  # stateless over HTTP, as in OpenEnv: a fresh environment's state
        return WorldState(max_steps=max_steps).model_dump()

    @app.post("/reset")
    async def reset(body: dict = Body(default_factory=dict)) -> dict:
        session = new_session()  # stateless: the episode is made for its prompt and deleted at once
        try:
            return serialize(await session.reset(body))
        except Refused as exc:
            raise HTTPException(exc.status, [{"loc": ["body", exc.field or "body"], "msg": exc.message,
                                              "type": exc.code}]) from None
        finally:
            await session.close()

    @app.post("/step")
    async def step(body: dict = Body(...)) -> dict:
        action = body.get("action")
        try:
            ToolAction.model_validate(action)
        except ValidationError as exc:
            raise HTTPException(422, [{**e, "loc": ["body", "action", *e["loc"]]} for e in
                                      json.loads(exc.json(include_url=False))]) from None
        raise HTTPException(409, [{"loc": ["body", "action"], "type": "EXECUTION_ERROR",
                                   "msg": "HTTP /step is stateless (as in OpenEnv): a fresh environment has no "
                                          "episode; open a WebSocket session at /ws, reset, then step"}])

    add_mcp(app, new_session, sessions, max_sessions, serialize, Refused)

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        if len(sessions) >= max_sessions:
            await websocket.send_text(json.dumps({"type": "error", "data": {
                "message": f"server at capacity ({max_sessions} sessions)", "code": "CAPACITY_REACHED",
                "active_sessions": len(sessions), "max_sessions": max_sessions}}))
            await websocket.close()
            return
        session = new_session()
        sessions.add(session)
        try:
            while True:
                reply = await _answer(session, await websocket.receive_text())
                if reply is None:
                    break
                await websocket.send_text(json.dumps(reply, default=str))
        except WebSocketDisconnect:
            pass
        finally:
            sessions.discard(session)
            await asyncio.shield(session.close())
            with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                await websocket.close()  # the client may have closed it first

    return app


async def _answer(session: Session, raw: str) -> dict | None:
    """The reply to one WebSocket message; None for close."""
    try:
        message = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {"type": "error", "data": {"message": f"Invalid JSON: {exc}", "code": "INVALID_JSON"}}
    kind = message.get("type", "") if isinstance(message, dict) else ""
    data = message.get("data", {}) if isinstance(message, dict) else {}
    try:
        if kind == "reset":
            if not isinstance(data, dict):
                raise Refused("reset: data must be an object", "VALIDATION_ERROR", "data")
            return {"type": "observation", "data": serialize(await session.reset(data))}
        if kind == "step":
            return {"type": "observation", "data": serialize(await session.step(data))}
        if kind == "state":
            return {"type": "state", "data": session.state.model_dump()}
        if kind == "close":
            return None
        return {"type": "error", "data": {"message": f"Unknown message type: {kind}", "code": "UNKNOWN_TYPE",
                                          "field": "type"}}
    except Refused as exc:
        return {"type": "error", "data": exc.data()}


def world_client(server: str | None = None, token: str | None = None, trajectories: str | None = None) -> AsyncClient:
    """A client for the world at ``server``, or for a world in this process (called through ASGI, no port)."""
    if server:
        return AsyncClient(server, token)
    import secrets

    from simulator.gateway.server import build_app
    from simulator.store.episodes import EpisodeStore

    secret = "ow_" + secrets.token_urlsafe(16)
    world = build_app(EpisodeStore(trajectory_dir=trajectories), token=secret)
    return AsyncClient("http://officeworld.local", secret, transport=httpx.ASGITransport(app=world))


def __getattr__(name: str):
    """``trainers.openenv:app`` (what openenv.yaml names), configured from the environment, built on first use."""
    if name != "app":
        raise AttributeError(name)
    from apps.kit.settings import settings

    now = settings()
    app = build_openenv_app(world_client(now.server or None, now.token or None), suite=now.suite or None,
                            task=now.task or None, max_steps=now.max_steps)
    globals()["app"] = app
    return app


def openenv_command(
        host: str = typer.Option("127.0.0.1", envvar="OFFICEWORLD_HOST", help="Address to listen on (it has no "
                                 "authentication: keep it on loopback or behind your own proxy)"),
        port: int = typer.Option(8000, envvar="OFFICEWORLD_PORT", help="Port to listen on"),
        server: str = typer.Option(None, envvar="OFFICEWORLD_SERVER", help="The world's URL (default: one in this process)"),
        token: str = typer.Option(None, envvar="OFFICEWORLD_TOKEN", help="The world's control token"),
        suite: str = typer.Option(None, help="Default suite: a reset without task or suite draws from it"),
        task: str = typer.Option(None, help="Default task for a reset that names none"),
        max_steps: int = typer.Option(30, min=1, help="Tool calls per episode before it is cut off and graded"),
        max_sessions: int = typer.Option(64, min=1, help="WebSocket sessions (world episodes) at once"),
        toolset: str = typer.Option("task", help="The tools a reset offers unless it names its own: task (its "
                                    "apps' and task_submit_answer) or all (every app's, some 27k tokens)"),
        trajectories: str = typer.Option(None, help="Folder for trajectory files (in-process world only)")) -> None:
    """Serve an OpenEnv environment (reset / step / state over /ws, /schema, /health): one world episode a session."""
    import uvicorn

    from simulator.service.serve import KEEP_ALIVE_S

    if server and trajectories:
        raise typer.BadParameter("the world at --server keeps its own trajectories", param_hint="--trajectories")
    world = world_client(server, token, trajectories)
    typer.echo(f"openenv: ws://{host}:{port}/ws over {server or 'a world in this process'}", err=True)
    if toolset not in TOOLSETS:
        raise typer.BadParameter("task or all", param_hint="--toolset")
    uvicorn.run(build_openenv_app(world, suite, task, max_steps, max_sessions, toolset=toolset), host=host, port=port,
                log_level="warning", timeout_keep_alive=KEEP_ALIVE_S)
