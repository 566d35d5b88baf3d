"""SkyRL's text environment over a world: ``skyrl_gym``'s ``BaseTextEnv`` (skyrl-gym 0.4), registered as
``officeworld``, a thin layer over the control-plane client like the other adapters.

SkyRL's generator makes one environment per rollout (``skyrl_gym.make("officeworld", env_config=...,
extras=row)``), calls ``init(prompt)``, then ``step(model_output)`` until ``done``, then ``close()``.

- ``extras`` is the dataset row's: ``task`` (a task id; or ``extra_info.task``) and optionally
  ``max_turns``. ``env_config``: ``server`` and ``token`` (default: a world in this process),
  ``toolset`` (``task``, its apps' tools, or ``all``), ``max_turns`` (30).
- ``init`` opens the episode. The prompt gets a system message naming the tools and the call format
  (Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``) unless it has one, and
  the task's prompt as its user message when the row's is empty; the tools (OpenAI form) are in the metadata.
- ``step`` runs the first tool call of the output and answers ``<tool_response>...</tool_response>`` (the
  result, or the tool's error); an output with no call gets an error telling the format. It is ``done``
  when the agent's ``task_submit_answer`` succeeds or at ``max_turns``; the reward is then the world's
  ``total`` (0.0 when ungradable, with ``gradable`` false and the whole Reward in the metadata) and the
  episode is deleted. ``close`` deletes it on every other path; those left at process exit are deleted then.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import re
import weakref
from typing import Any

from skyrl_gym import register  # type: ignore[import-untyped]  # skyrl-gym ships no type information
from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput  # type: ignore[import-untyped]

from apps.kit.reactor import goes_on
from simulator.gateway.client import Client, ControlError
from simulator.trajectories.export import SYSTEM_PROMPT
from trainers.trl import local_world

SUBMIT = "task_submit_answer"
ENV_ID = "officeworld"
CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
FORMAT = ("Call one tool per reply as <tool_call>{\"name\": TOOL, \"arguments\": {...}}</tool_call>. "
          "The tools (JSON schema):\n")
_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _delete_left_over() -> None:
    for env in list(_LIVE):
        with contextlib.suppress(Exception):   # the world may be gone first; its idle timeout bounds the rest
            env.close()


def parse_call(action: str) -> tuple[str, dict] | str:
    """The first ``<tool_call>`` of a model's output as (name, arguments), or why there is none."""
    match = CALL.search(action or "")
    if match is None:
        return "no tool call: reply with <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>"
    try:
        call = json.loads(match.group(1))
    except ValueError as exc:
        return f"the tool call is not valid JSON ({exc})"
    if not isinstance(call, dict) or not isinstance(call.get("name"), str) or \
            not isinstance(call.get("arguments", {}), dict):
        return "a tool call needs a name (string) and arguments (an object)"
    return call["name"], call.get("arguments", {})


class OfficeWorldTextEnv(BaseTextEnv):
    """One world episode per rollout of a task."""

    def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None):
        super().__init__()
        config, extras = dict(env_config or {}), dict(extras or {})
        self.task = extras.get("task") or (extras.get("extra_info") or {}).get("task")
        if not isinstance(self.task, str) or not self.task:
            raise ValueError("extras need the task id: a 'task' column (or extra_info.task) in the dataset row")
        self.max_turns = int(extras.get("max_turns") or config.get("max_turns") or 30)
        self.toolset = config.get("toolset", "task")
        url, token = (config["server"], config.get("token")) if config.get("server") else local_world()
        self.client = Client(url, token)
        self.episode: str | None = None
        self.reward: dict | None = None
        _LIVE.add(self)

    def init(self, prompt: list[dict]) -> tuple[list[dict], dict[str, Any]]:
        self.close()
        episode = self.client.create_episode(self.task, meta={"trainer": "skyrl", "task": self.task},
                                             toolset=self.toolset)
        self.episode, self.turns, self.reward = episode["id"], 0, None
        tools = episode["tools"]["openai"]
        messages = [dict(m) for m in prompt or []]
        if messages and messages[-1].get("role") == "user" and not messages[-1].get("content"):
            messages[-1]["content"] = episode["task"]["prompt"]
        elif not any(m.get("role") == "user" for m in messages):
            messages.append({"role": "user", "content": episode["task"]["prompt"]})
        if not any(m.get("role") == "system" for m in messages):
            messages.insert(0, {"role": "system", "content": f"{SYSTEM_PROMPT}\n\n{FORMAT}{json.dumps(tools)}"})
        return messages, {"task": self.task, "episode": self.episode, "tools": tools}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        if self.episode is None:
            raise RuntimeError("init the environment first (the episode is over or never began)")
        self.turns += 1
        call = parse_call(action)
        tool, result, error = None, None, None
        if isinstance(call, str):
            error = {"type": "invalid", "message": call}
        else:
            tool, (result, error) = call[0], self._call(*call)
        done = (tool == SUBMIT and error is None and not goes_on(result)) or self.turns >= self.max_turns
        reward = 0.0
        metadata: dict[str, Any] = {"tool": tool, "error": error, "turn": self.turns}
        if done:
            try:
                self.reward = self.client.finish(self.episode)
            finally:   # graded or not (the world failed), the episode is over
                self.close()
            reward = float(self.reward["total"] or 0.0)
            metadata.update(reward=self.reward, gradable=self.reward["total"] is not None,
                            truncated=tool != SUBMIT or error is not None)
        shown = {"error": error} if error is not None else result
        text = f"<tool_response>\n{json.dumps(shown, ensure_ascii=False, default=str)}\n</tool_response>"
        return BaseTextEnvStepOutput(observations=[] if done else [{"role": "user", "content": text}],
                                     reward=reward, done=done, metadata=metadata, postprocessed_action=None)

    def _call(self, tool: str, arguments: dict) -> tuple[Any, dict | None]:
        assert self.episode is not None
        try:
            step = self.client.call(self.episode, tool, arguments)
        except ControlError as exc:
            if exc.status >= 500:
                raise
            return None, {"type": exc.type, "message": exc.message, "field": exc.field}
        return step.get("result"), step.get("error")

    def close(self) -> None:
        episode, self.episode = self.episode, None
        if episode is not None:
            with contextlib.suppress(ControlError):
                self.client.delete(episode)

    def get_metrics(self) -> dict[str, Any]:
        if self.reward is None:
            return {}
        return {"passed": float(bool(self.reward["passed"])), "turns": self.turns}


register(id=ENV_ID, entry_point="trainers.skyrl:OfficeWorldTextEnv")
