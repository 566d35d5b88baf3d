"""The control API that trainers and runners use: ``/v1/episodes`` and friends.

None of it is reachable from an agent's surfaces (MCP, per-episode REST, CLI), which only act
inside one episode.
"""

from __future__ import annotations

import json
import re
import secrets
from datetime import datetime, timedelta
from typing import Any, Callable, Literal, TypeVar

import anyio
from fastapi import APIRouter, Body, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from apps.kit import Invalid, NotFound, limits
from apps.kit.episode import Episode
from apps.kit.errors import OpError
from apps.kit.invoker import invoke_async
from apps.kit.operation import Operation
from apps.kit.reactor import settle
from apps.kit.rest import error_body
from apps.kit.settings import settings
from apps.kit.snapshots import SnapshotError
from apps.kit.trajectory import Step, Trajectory
from simulator.gateway.auth import require_bearer
from simulator.gateway.peers import MISSING_HEADER, Peers, local_only
from simulator.gateway.toolsets import Toolset, Toolsets
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations
from tasks.catalog import Catalog
from tasks.model import Split
from tasks.reward import Reward
from tasks.session import TaskError
from worlds.model import unchecked

T = TypeVar("T")
Observation = Literal["snapshot", "pixels", "marks"]   # simulator.gui.browser.OBSERVATIONS


def _outsiders(episode: Episode) -> dict:
    return {o.email: o for o in episode.world.info.outsiders}


class CreateEpisode(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    world: str | None = Field(None, description="Name of a shipped world, or a path to a world folder (default acme)")
    actor: str | None = Field(None, alias="as", description="Email of the person the agent acts as")
    task: str | None = Field(None, description="A task id: the episode runs its setup and the response carries its prompt")
    record: bool | None = Field(None, description="Keep a trajectory file (default: when the server has a folder for them)")
    meta: dict[str, Any] = Field(default_factory=dict, description="Labels for the trajectory file's header (a run, a sample)")
    tools: bool | None = Field(None, description="Return the tools in MCP and OpenAI form (default: for a task)")
    toolset: Toolset | None = Field(None, description="The tools offered (on the episode's MCP and in `tools`): "
                                                      "task, its apps' and task_submit_answer (default for a task); "
                                                      "all, every app's (default otherwise)")
    browser: bool = Field(False, description="Offer the agent a browser on the apps' GUI (tools browser_*, on the "
                                             "episode's MCP and through `call`)")
    observation: Observation | None = Field(None, description="How the browser shows pages to the agent: snapshot "
                                            "(its accessibility tree, the default), pixels (a screenshot) or marks (a "
                                            "screenshot with numbered set-of-marks); implies browser")
    salt: str = Field("", max_length=200, description="What the co-workers' model replies are keyed by: episodes "
                                                      "with the same salt meet the same replies, K salts K replies")

    @model_validator(mode="before")
    @classmethod
    def _recordable(cls, data: Any) -> Any:
        """What the trajectory file's header holds must be text and JSON it can write: refused as ``invalid``
        naming the field (``apps.kit.limits``), before pydantic walks it."""
        if isinstance(data, dict):
            for name in ("world", "as", "actor", "task", "meta", "salt"):
                if name in data:
                    limits.checked(data[name], name)
            world = data.get("world")
            if isinstance(world, str):
                _world_path(world)
        return data

    @model_validator(mode="after")
    def _observed_by_a_browser(self) -> "CreateEpisode":
        if self.observation is not None:
            if "browser" in self.model_fields_set and not self.browser:
                raise Invalid("observation: a browser observation needs the browser (leave out browser, or set it "
                              "true)", field="observation")
            self.browser = True
        return self


_NAME_MAX = 255   # bytes in one part of a path (most file systems); a longer world cannot be a folder


def _world_path(world: str) -> None:
    if len(world.encode()) > 4096 or any(len(part.encode()) > _NAME_MAX for part in world.split("/")):
        raise Invalid(f"world: not a world name nor a folder (a part of it is longer than {_NAME_MAX} bytes)",
                      field="world")


class TaskBrief(BaseModel):
    id: str
    version: int
    prompt: str


class Finish(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: str | None = Field(None, max_length=100_000, description="The agent's final answer, recorded as a step")
    status: Literal["done", "refused", "needs_input"] | None = Field(None, description="How the agent finished")


class OracleRun(BaseModel):
    model_config = ConfigDict(extra="forbid")
    alternative: int = Field(0, ge=0, le=1000, description="0 for the task's oracle, N for its Nth alternative")


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    tool: str = Field(description="The tool's name, app_operation (e.g. mail_search)")
    arguments: dict[str, Any] = Field(default_factory=dict)
    actor: str | None = Field(None, alias="as", description="Act as another person of the world for this call")

    @model_validator(mode="before")
    @classmethod
    def _recordable(cls, data: Any) -> Any:
        """``as`` and ``tool`` are text the answer names: valid Unicode, refused as ``invalid`` otherwise
        (the arguments are the operation's, checked by the kit)."""
        if isinstance(data, dict):
            for name in ("tool", "as", "actor"):
                if name in data:
                    limits.checked(data[name], name)
        return data


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
    task: TaskBrief | None = Field(None, description="The task this episode runs, with its prompt")
    idle_s: float = Field(0.0, description="Seconds since the last call (or creation)")
    recording: bool = Field(False, description="Whether the episode streams a trajectory file")
    tools: dict[str, list[dict]] | None = Field(None, description="openai and mcp: the agent's tools in each form")
    toolset: list[str] | None = Field(None, description="The apps whose tools the agent is offered (null: all)")
    browser: Observation | None = Field(None, description="How the episode's browser shows pages (snapshot, pixels or "
                                                          "marks); null when it has no browser")


class Digest(BaseModel):
    digest: str
    apps: dict[str, str]


class ClockAdvance(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seconds: float = Field(ge=0, le=10 * 365 * 86400, description="How far to move the virtual clock")


def public_base(request: Request) -> str:
    """Where clients reach this server: ``OFFICEWORLD_PUBLIC_URL`` (read once per app), else the request's own base."""
    state = request.app.state
    public = getattr(state, "public_url", None)
    if public is None:
        public = state.public_url = settings().public_url.rstrip("/")
    return public or str(request.base_url).rstrip("/")


def info(request: Request, episode: Episode, check: bool = True, catalog: Catalog | None = None,
         store: EpisodeStore | None = None) -> EpisodeInfo:
    """The episode as the control API shows it; ``check`` asks each app's host whether it is reachable
    (listings skip it: one round trip per app per episode would make them slow)."""
    base = public_base(request)
    errors = {app: reason for app, reason in episode.app_states().items() if reason} if check else {}
    run = catalog.run_of(episode.id) if catalog is not None else None
    brief = TaskBrief(id=run.task.id, version=run.task.version, prompt=run.task.prompt) if run else None
    return EpisodeInfo(
        id=episode.id, world=episode.world.name, actor=episode.actor, now=episode.clock.now(),
        apps=episode.apps, steps=len(episode.trajectory),
        mcp_url=f"{base}/episodes/{episode.id}/mcp", api_url=f"{base}/episodes/{episode.id}/api",
        status=("error" if errors else "ready") if check else "unchecked", app_errors=errors, task=brief,
        idle_s=round(store.idle_for(episode), 3) if store else 0.0, recording=episode.recorder is not None,
        toolset=sorted(episode.tools) if episode.tools is not None else None,
        browser=_browsers(request).observation(episode.id) if _browsers(request) is not None else None,
    )


def _browsers(request: Request):
    return getattr(request.app.state, "browsers", None)


async def run_call(store: EpisodeStore, operations: dict[str, Operation], episode_id: str, body: ToolCall,
                   browsers=None) -> bytes:
    """``POST /v1/episodes/{id}/call``: the tool's Step as JSON, serialised once (not re-validated); ``OpError``
    when refused. A ``browser_*`` tool of an episode with a browser answers its observation
    (``BrowserTools.rest_call``): the same action the MCP tool does, in the mode the episode was created with."""
    episode = store.get(episode_id)
    op = operations.get(body.tool)
    if op is None and browsers is not None and browsers.observation(episode.id) is not None \
            and body.tool.startswith("browser_"):
        if body.actor is not None:
            raise Invalid("as: the browser acts as the episode's own person only", field="as")
        return json.dumps(await browsers.rest_call(episode, body.tool, body.arguments)).encode()
    if op is None:
        raise NotFound(f"tool: no tool named {body.tool!r}", field="tool")
    actor = body.actor.strip().lower() if body.actor else None
    if actor is not None and actor not in episode.world.info.people_by_email() | _outsiders(episode):
        raise Invalid(f"as: {actor} is not a person of world {episode.world.name!r}", field="as")
    step = await invoke_async(episode, op, body.arguments, "control", actor=actor)
    return step_json(step)


def step_json(step: Step) -> bytes:
    """The call's step as JSON: its kept result spliced in one pass (``Step.model_dump_json``)."""
    return step.model_dump_json().encode()


_PLAIN = {"tool", "arguments"}


def plain_call(data: dict) -> ToolCall | None:
    """The usual body, ``{"tool": str, "arguments": {...}}`` just parsed from JSON, as the ``ToolCall``
    ``model_validate`` makes of it, without validating again what was just checked; None for any other
    body (``as``, a missing tool, a wrong type, an extra field), which ``model_validate`` judges."""
    tool, arguments = data.get("tool"), data.get("arguments", _NONE)
    if type(tool) is not str or not data.keys() <= _PLAIN:
        return None
    if arguments is _NONE:
        arguments = {}
    elif type(arguments) is not dict:
        return None
    return unchecked(ToolCall, {"tool": tool, "arguments": arguments, "actor": None})


_NONE = object()


class ControlCalls:
    """The control plane's direct call, answered by the gateway before FastAPI (``simulator.gateway.fast``)
    without its routing, dependency solving and body parsing (most of a direct call's time). It takes only a
    request the route would take as it is: the right token, a JSON object body that is a valid ``ToolCall``;
    for anything else ``accepted`` says None and the route answers it (401, 422 naming the field) exactly
    as before. Both run ``run_call``."""

    def __init__(self, store: EpisodeStore, token: str | None, browsers=None):
        self.store, self.browsers = store, browsers
        self.expected = f"Bearer {token}".encode() if token else None
        self.operations = {op.qualified_name: op for op in all_operations(store.apps)}
        self.path = re.compile(r"^/v1/episodes/([^/]+)/call$")

    def accepted(self, scope, body: bytes) -> tuple[str, ToolCall] | None:
        """The episode id and call of a ``POST`` to the call's path that the route would take as it is."""
        match = self.path.match(scope["path"])
        if match is None or scope["method"] != "POST":
            return None
        authorization = media = b""
        for key, value in scope["headers"]:  # the two it reads, without a dict of them all
            if key == b"authorization":
                authorization = value
            elif key == b"content-type":
                media = value
        if self.expected is not None and not secrets.compare_digest(authorization, self.expected):
            return None
        if not media.startswith(b"application/json"):
            return None
        try:
            data = json.loads(body)
            return (match.group(1), plain_call(data) or ToolCall.model_validate(data)) if isinstance(data, dict) else None
        except (ValueError, RecursionError, ValidationError, OpError):
            return None

    async def answer(self, episode_id: str, call: ToolCall) -> tuple[int, bytes]:
        """The status and JSON body of the call: its Step, or the error refusing it."""
        try:
            return 200, await run_call(self.store, self.operations, episode_id, call, self.browsers)
        except OpError as exc:
            return exc.status, error_body(exc.to_dict())


async def quickly(quick: bool, work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` for a route: inline on the event loop when it is ``quick`` (``EpisodeStore.quick``: tens
    to hundreds of µs), in a worker thread otherwise (a world compiled, a remote app's round trip). A sync route
    went to a worker thread and its answer was checked in another: the two hops cost ~0.6 ms of CPU on this
    2-core machine, where creating an episode costs ~25 µs (create through the ASGI app in process: 674-783 µs
    of CPU as a sync route, 144-255 µs now). Grading (``finish``, which may ask a judge over the network) and
    the oracle's calls stay in a thread."""
    if quick:
        return work(*args)
    return await anyio.to_thread.run_sync(work, *args)


def control_router(store: EpisodeStore, catalog: Catalog, token: str | None = None,
                   peers: Peers | None = None) -> APIRouter:
    """The ``/v1`` routes; with ``token``, each needs ``Authorization: Bearer <token>``; with ``peers`` (one
    worker of ``up --workers N``), the listing spans them."""
    router = APIRouter(prefix="/v1", tags=["control"], dependencies=[Depends(require_bearer(token))] if token else [])
    all_ops = all_operations(store.apps)
    operations = {op.qualified_name: op for op in all_ops}
    toolsets = Toolsets(all_ops)
    store.on_delete.append(catalog.forget)

    @router.post("/episodes", status_code=201)
    async def create_episode(request: Request, body: CreateEpisode = Body(default_factory=CreateEpisode)) -> EpisodeInfo:
        if body.task is not None and (body.world is not None or body.actor is not None):
            raise Invalid("task: a task names its own world and acting person; give only the task", field="task")
        world = (body.world or "acme") if body.task is None else catalog.get(body.task, include_quarantined=False).world
        return await quickly(store.quick(world), _create, request, body)

    def _create(request: Request, body: CreateEpisode) -> EpisodeInfo:
        task = catalog.get(body.task, include_quarantined=False) if body.task is not None else None
        apps = toolsets.apps_of(task, sorted(store.apps), body.toolset)
        if body.task is None:
            episode = store.create(body.world or "acme", body.actor, record=body.record, meta=body.meta, salt=body.salt)
        else:
            episode = _start_task(body)
        episode.tools = apps
        if body.browser:
            request.app.state.browsers.enable(episode, str(request.base_url), body.observation or "snapshot")
        out = info(request, episode, catalog=catalog, store=store)
        if body.tools if body.tools is not None else body.task is not None:
            forms, browsing = toolsets.forms(apps), request.app.state.browsers.forms(episode.id)
            out.tools = {form: forms[form] + browsing[form] for form in forms}
        return out

    def _start_task(body: CreateEpisode) -> Episode:
        assert body.task is not None  # called for a body naming a task
        task = catalog.get(body.task, include_quarantined=False)
        episode = store.create(task.world, task.actor, task=task, record=body.record, meta=body.meta, salt=body.salt)
        try:
            return catalog.start(task.id, episode=episode).episode
        except Exception:
            if episode.id in store:  # the engine drops an episode whose setup failed itself
                store.delete(episode.id)
            raise

    @router.get("/episodes")
    async def list_episodes(request: Request, response: Response, task: str | None = None) -> list[EpisodeInfo]:
        """Every live episode (``task``: only those of that task); idle ones past the timeout are dropped first.
        One worker of ``up --workers N`` lists its peers' too (``simulator.gateway.peers``; a header names
        any that did not answer)."""
        def local() -> list[EpisodeInfo]:
            store.drop_idle(force=True)
            out = [info(request, e, check=False, catalog=catalog, store=store) for e in store.list()]
            return [e for e in out if task is None or (e.task and e.task.id == task)]
        mine = await quickly(store.quick(), local)
        if not peers or local_only(request.headers):
            return mine
        gathered = await peers.gather("/v1/episodes", request.headers, {"task": task} if task else None)
        if gathered.missing:
            response.headers[MISSING_HEADER] = ",".join(gathered.missing)
        return mine + [EpisodeInfo.model_validate(e) for listed in gathered.answers.values()
                       for e in listed]  # type: ignore[attr-defined]

    @router.get("/episodes/{episode_id}")
    async def get_episode(request: Request, episode_id: str) -> EpisodeInfo:
        return await quickly(store.quick(), lambda: info(request, store.get(episode_id), catalog=catalog, store=store))

    @router.post("/episodes/{episode_id}/fork", status_code=201)
    async def fork_episode(request: Request, episode_id: str) -> EpisodeInfo:
        def fork() -> EpisodeInfo:
            child = store.fork(episode_id)
            catalog.forked(episode_id, child)
            return info(request, child, catalog=catalog, store=store)
        return await quickly(store.quick(), fork)

    @router.delete("/episodes/{episode_id}", status_code=204)
    async def delete_episode(request: Request, episode_id: str) -> Response:
        def delete() -> Response:
            store.delete(episode_id)  # the catalog forgets it too (store.on_delete)
            request.app.state.browsers.discard(episode_id)
            return Response(status_code=204)
        return await quickly(store.quick(), delete)

    @router.post("/episodes/{episode_id}/finish")
    def finish(episode_id: str, body: Finish = Body(default_factory=Finish)) -> Reward:
        """Record the final answer (optional) and grade the episode against its task; the reward ends
        the episode's trajectory file (finishing again regrades and writes a new footer)."""
        episode = store.get(episode_id)
        reward = catalog.finish(episode, body.answer, body.status)
        store.finished(episode, reward)
        return reward

    @router.post("/episodes/{episode_id}/oracle")
    def run_oracle(episode_id: str, body: OracleRun = Body(default_factory=OracleRun)) -> list[Step]:
        """Run the task's reference solution (its oracle, or an alternative) in the episode, references
        resolved, each call recorded with surface "control": a trainer's gold check (``vf-validate``)."""
        episode = store.get(episode_id)
        run = catalog.run_of(episode.id)
        if run is None:
            raise Invalid(f"episode {episode.id} was not created for a task", field="episode_id")
        references = [run.task.oracle, *run.task.alternatives]
        if body.alternative >= len(references):
            raise Invalid(f"alternative: task {run.task.id} has {len(references) - 1} alternative(s)",
                          field="alternative")
        try:
            return catalog.engine.run_calls(run, references[body.alternative], surface="control")
        except TaskError as exc:
            raise Invalid(f"task {run.task.id}: {exc}", field="task") from None

    @router.post("/episodes/{episode_id}/call", response_model=Step)
    async def call_tool(request: Request, episode_id: str, body: ToolCall) -> Response:
        """Call one tool in the episode, recorded like any surface (surface "control"); with "as", acting
        as another person of the world (a colleague replies, a bcc'd person reads their copy).

        Async, so an app in this process runs inline on the event loop (no worker-thread hop; a remote
        one still goes to a thread, ``invoke_async``). A valid call usually never reaches this route:
        the gateway answers it first (``ControlCalls``), with the same ``run_call``."""
        return Response(await run_call(store, operations, episode_id, body, _browsers(request)),
                        media_type="application/json")

    def tools_of(task) -> dict:
        return {"tools": toolsets.size(task, sorted(store.apps))}

    @router.get("/tasks", response_model=list[dict])
    def list_tasks(suite: str | None = None, tag: str | None = None, world: str | None = None,
                   split: Split | None = None, family: str | None = None,
                   difficulty: Literal["easy", "medium", "hard"] | None = None) -> Response:
        """The tasks, written and generated (quarantined ones left out): prompt and metadata, never criteria or
        oracle, and the size of the tools a task's episode offers by default. Each task's JSON is made once
        (thousands are listed in a few milliseconds)."""
        chosen = catalog.select(suite, tag, world, split=split, family=family, difficulty=difficulty)
        return Response(b"[" + b",".join(catalog.public_json(t, tools_of) for t in chosen) + b"]",
                        media_type="application/json")

    @router.get("/tasks/{task_id}")
    def get_task(task_id: str) -> dict:
        task = catalog.get(task_id)
        return {**task.public(), **tools_of(task)}

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
        except SnapshotError as exc:   # checked whole before anything changed
            raise Invalid(f"body: not a snapshot of this episode's world ({exc})", field="body") from None
        store.restored(episode)
        return info(request, episode)

    @router.post("/episodes/{episode_id}/clock")
    async def advance_clock(request: Request, episode_id: str, body: ClockAdvance) -> EpisodeInfo:
        def advance() -> EpisodeInfo:
            episode = store.get(episode_id)
            with episode.lock:
                try:
                    episode.clock.advance(timedelta(seconds=body.seconds))
                except ValueError as exc:   # past the clock's end (``apps.kit.clock.LATEST``)
                    raise Invalid(f"seconds: {exc}", field="seconds") from None
                store.clock_moved(episode)
                settle(episode)   # what fell due on the way happens now (apps.kit.reactor)
            return info(request, episode)
        return await quickly(store.quick(), advance)

    @router.get("/tools")
    def tools() -> list[dict]:
        """Every operation as an OpenAI-style function tool."""
        return [op.openai_tool() for op in all_operations(store.apps)]

    viewer: list = []   # the trajectory viewer, made on its first page (it imports the templates)

    @router.get("/view", response_class=Response)
    def view(episode: str | None = None, task: str | None = None, diffs: bool = True) -> Response:
        """The trajectory viewer (``simulator.viewer``): the folder's rollouts; ``episode``: one timeline;
        ``task``: that task's rollouts side by side. ``diffs=false`` skips replaying the writes."""
        if not viewer:
            from simulator.viewer.served import Viewer
            viewer.append(Viewer(store.trajectory_dir, store.worker))   # a worker's spans every worker's files
        html = viewer[0].page(episode, task, diffs)
        return Response(html, media_type="text/html; charset=utf-8")

    return router
