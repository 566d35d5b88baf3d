"""officeworld's tasks as a verifiers v1 taskset: tasks from a running world, one episode per rollout.

- ``WorldTaskset.load`` lists the world's tasks (``GET /v1/tasks``, a suite or tag, or named ids).
- ``WorldTask.setup`` opens the rollout's own episode of its task (``POST /v1/episodes``).
- The toolset is that episode's MCP endpoint, ``/episodes/{id}/mcp``, passed to the harness as an external
  URL: the isolation between rollouts is the world's. verifiers (0.4.0) asks ``Task.toolsets(config)``, a
  classmethod, for each rollout's servers right after ``Task.setup`` in the same coroutine
  (``Rollout.open``), and a tool config with ``url`` reaches the harness as it is (``serve_tools``).
  ``setup`` leaves the episode's URL in a context variable, which ``toolsets`` reads; concurrent rollouts
  run in their own asyncio tasks, so each sees its own.
- ``finalize`` finishes the episode (the world grades it) and deletes it; the reward is the world's total,
  the metrics its pass and per-criterion scores. An episode the world could not grade is an error, never a 0.
- Episodes never outlive their rollouts. verifiers skips ``finalize`` when a rollout failed (the model endpoint
  down, the harness crashed, a timeout), so every episode opened is also kept in ``OPEN`` until it is deleted:
  the taskset's harness deletes it in ``cleanup`` (which verifiers runs on every path), each ``setup`` first
  deletes those of rollouts already completed (any harness), and an ``atexit`` hook deletes what is left when
  the process ends. The world's idle timeout (``OFFICEWORLD_IDLE_TIMEOUT``) bounds a process killed outright.
- ``validate`` (``vf-validate``'s gold check) runs the task's oracle in the episode and needs it to pass; the
  noop check scores an untouched episode, which must not.
"""

from __future__ import annotations

import atexit
import contextvars
import logging
import os
from typing import Literal

import verifiers.v1 as vf
from pydantic import Field

from officeworld_verifiers.control import Control, WorldError, delete_now, list_tasks

# Same text as simulator/trajectories/export.py's SYSTEM_PROMPT (a test keeps them equal): the policy sees
# the same instructions from `officeworld run`, exported chats and this taskset.
SYSTEM_PROMPT = (
    "You are an employee of a company, working in its apps (mail, CRM, documents) through tools named "
    "<app>_<operation>. Do what the user asks, using the tools; ids come from the tools' results. When you "
    "are finished, call task_submit_answer with your answer (or status refused / needs_input when you "
    "should not or cannot act).")

logger = logging.getLogger(__name__)
_episode_mcp: contextvars.ContextVar[str | None] = contextvars.ContextVar("officeworld_episode_mcp", default=None)
# Episodes this process opened and has not deleted yet: id -> (its rollout's trace, the world's URL, token variable).
OPEN: dict[str, tuple[vf.Trace, str, str]] = {}


async def close_episode(episode: str) -> None:
    """Delete one episode this process opened (a no-op when already deleted); never raises."""
    entry = OPEN.pop(episode, None)
    if entry is None:
        return
    _, url, token_var = entry
    try:
        async with Control(url, token_var) as ow:
            await ow.delete(episode)
    except WorldError as exc:
        if exc.status != 404:
            logger.warning("could not delete episode %s: %s", episode, exc)
    except Exception as exc:  # noqa: BLE001 - the world may be gone; the idle timeout then bounds it
        logger.warning("could not delete episode %s: %s", episode, exc)


async def _sweep_completed() -> None:
    """Delete the episodes of rollouts verifiers has completed without finalizing them."""
    for episode in [e for e, (trace, _, _) in OPEN.items() if trace.is_completed]:
        await close_episode(episode)


@atexit.register
def _delete_left_over() -> None:
    for episode, (_, url, token_var) in list(OPEN.items()):
        delete_now(url, token_var, episode)
        OPEN.pop(episode, None)


def _default_url() -> str:
    return os.environ.get("OFFICEWORLD_URL", "http://127.0.0.1:8000")


class WorldToolset(vf.Toolset[vf.ToolsetConfig]):
    """The episode's MCP server, already running in the world; never launched by verifiers. Its tools keep
    the world's names (``crm_search``, ``task_submit_answer``), as in every other officeworld surface."""

    TOOL_PREFIX = None


class WorldTaskConfig(vf.TaskConfig):
    world_url: str = Field(default_factory=_default_url)
    """The world's base URL (``officeworld up``); default ``$OFFICEWORLD_URL``, else http://127.0.0.1:8000."""
    token_var: str = "OFFICEWORLD_TOKEN"
    """Environment variable holding the control API's bearer token."""
    keep_episodes: bool = False
    """Leave each finished episode in the world (to inspect it) instead of deleting it."""
    toolset: Literal["task", "all"] = "task"
    """The tools the episode's MCP offers: the task's apps' and task_submit_answer, or every app's."""


class WorldState(vf.State):
    episode_id: str | None = None
    mcp_url: str | None = None
    reward: dict | None = None
    """The world's Reward at finish: total, passed, gradable, criteria, collateral, errors."""


class WorldTaskData(vf.TaskData):
    suite: str = ""
    world: str = ""
    tags: list[str] = Field(default_factory=list)


class WorldTask(vf.Task[WorldTaskData, WorldState, WorldTaskConfig]):
    def __init__(self, data: WorldTaskData, config: WorldTaskConfig | None = None) -> None:
        super().__init__(data, config)
        self._by_runtime: dict[int, str] = {}  # runtime -> episode, for validate(runtime), which gets no trace

    @property
    def key(self) -> str:
        return self.data.id or self.hash

    def _control(self) -> Control:
        return Control(self.config.world_url, self.config.token_var)

    @classmethod
    def toolsets(cls, config: WorldTaskConfig) -> list[vf.Toolset]:
        # Before setup (pairing checks) no episode exists yet: a URL the world answers with 404.
        url = _episode_mcp.get() or f"{config.world_url.rstrip('/')}/episodes/not-set-up/mcp"
        return [WorldToolset(vf.ToolsetConfig(url=url))]

    async def setup(self, trace: vf.Trace, runtime: vf.Runtime) -> None:
        await _sweep_completed()
        async with self._control() as ow:
            episode = await ow.create(self.data.id, meta={"verifiers_trace": trace.id}, toolset=self.config.toolset)
        OPEN[episode["id"]] = (trace, self.config.world_url, self.config.token_var)
        trace.state.episode_id, trace.state.mcp_url = episode["id"], episode["mcp_url"]
        trace.info["officeworld"] = {"episode": episode["id"], "mcp_url": episode["mcp_url"]}  # saved with the trace
        self._by_runtime[id(runtime)] = episode["id"]
        _episode_mcp.set(episode["mcp_url"])

    async def finalize(self, trace: vf.Trace, runtime: vf.Runtime) -> None:
        self._by_runtime.pop(id(runtime), None)
        if trace.state.episode_id is None:
            return
        try:
            async with self._control() as ow:
                trace.state.reward = await ow.finish(trace.state.episode_id)
                trace.info["officeworld"]["reward"] = trace.state.reward
        finally:
            if self.config.keep_episodes:
                OPEN.pop(trace.state.episode_id, None)
            else:
                await close_episode(trace.state.episode_id)

    async def validate(self, runtime: vf.Runtime) -> bool:
        episode = self._by_runtime.pop(id(runtime))
        try:
            async with self._control() as ow:
                await ow.oracle(episode)
                reward = await ow.finish(episode)
        finally:
            if self.config.keep_episodes:
                OPEN.pop(episode, None)
            else:
                await close_episode(episode)
        if not reward["passed"]:
            failed = [f"{c['id']}: {c['message']}" for c in reward["criteria"] if c["status"] != "pass"]
            logger.warning("the oracle of %s does not pass: %s", self.data.id, failed or reward["errors"])
        return bool(reward["passed"])

    @staticmethod
    def _reward(trace: vf.Trace) -> dict:
        reward = trace.state.reward
        if reward is None:
            raise ValueError("the episode was never finished (its setup or finalize failed)")
        if reward["total"] is None:
            raise ValueError(f"the world could not grade episode {trace.state.episode_id}: {reward['errors']}")
        return reward

    @vf.reward
    async def world(self, trace: vf.Trace) -> float:
        """The world's reward for the episode, in [0, 1]."""
        return float(self._reward(trace)["total"])

    @vf.metric
    async def passed(self, trace: vf.Trace) -> float:
        return float(self._reward(trace)["passed"])

    @vf.metric
    async def criteria(self, trace: vf.Trace) -> dict[str, float]:
        return {f"criterion/{c['id']}": float(c["score"]) for c in self._reward(trace)["criteria"]}


class WorldTasksetConfig(vf.TasksetConfig):
    task: WorldTaskConfig = WorldTaskConfig()
    suite: str | None = None
    """Only this suite's tasks (crm, mail, docs, cross, ...)."""
    tag: str | None = None
    """Only tasks with this tag."""
    tasks: list[str] = Field(default_factory=list)
    """These task ids, in this order (within the suite and tag, if given); empty for all."""


class WorldTaskset(vf.Taskset[WorldTask, WorldTasksetConfig]):
    def load(self) -> list[WorldTask]:
        task_config = self.config.task
        listed = list_tasks(task_config.world_url, task_config.token_var, self.config.suite, self.config.tag)
        by_id = {t["id"]: t for t in listed}
        missing = [t for t in self.config.tasks if t not in by_id]
        if missing:
            raise ValueError(f"tasks: the world at {task_config.world_url} has no task {missing} "
                             f"(suite {self.config.suite}, tag {self.config.tag})")
        chosen = [by_id[t] for t in self.config.tasks] if self.config.tasks else listed
        return [WorldTask(WorldTaskData(id=t["id"], name=t["id"], description=t.get("title"), prompt=t["prompt"],
                                        system_prompt=SYSTEM_PROMPT, suite=t["suite"], world=t["world"],
                                        tags=t.get("tags") or []), task_config)
                for t in chosen]
