"""A Gymnasium text environment over a world's control plane, registered as ``officeworld/<suite>`` per suite.

    import gymnasium as gym
    import trainers.gym  # registers the ids (or: gym.make("trainers.gym:officeworld/crm"))
    env = gym.make("officeworld/crm")                      # a world in this process; server=URL for a running one
    obs, info = env.reset(seed=0)                          # JSON text: task, prompt, tool names; info["tools"]: schemas
    obs, reward, terminated, truncated, info = env.step('{"tool": "crm_search", "arguments": {"text": "globex"}}')

An action is a tool call as JSON text ``{"tool", "arguments"}``; the observation is JSON text (ASCII, so that it
lies in ``spaces.Text(charset=string.printable)``) with the tool's result or error. The episode terminates when
the agent submits its answer (``task_submit_answer``) and is truncated after ``max_steps`` calls; either way
the reward is the world's (``finish``), with the whole Reward in ``info["reward"]``, and the episode is deleted.
A seeded reset draws the same task from the suite; ``reset(options={"task": ID})`` runs that task instead.
No task or reward logic lives here.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import secrets
import string
import threading
import weakref
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from apps.kit.reactor import goes_on
from simulator.gateway.client import Client, ControlError

SUBMIT = "task_submit_answer"
TEXT_LIMIT = 1 << 20
_local: dict[str, tuple[str, str]] = {}
_lock = threading.Lock()


def local_world() -> tuple[str, str]:
    """(URL, token) of one world served in this process on loopback, started on first use, stopped at exit."""
    with _lock:
        if "world" not in _local:
            from simulator.gateway.server import build_app
            from simulator.service.serve import serve_in_thread
            from simulator.store.episodes import EpisodeStore

            token = "ow_" + secrets.token_urlsafe(16)
            stack = contextlib.ExitStack()
            url = stack.enter_context(serve_in_thread(build_app(EpisodeStore(trajectory_dir=None), token=token)))
            atexit.register(stack.close)
            _local["world"] = (url, token)
        return _local["world"]


def _text(value: Any) -> str:
    out = json.dumps(value, ensure_ascii=True, default=str)
    if len(out) > TEXT_LIMIT:
        out = json.dumps({"truncated": True, "text": out[:TEXT_LIMIT - 200]}, ensure_ascii=True)
    return out


# Environments alive in this process: the episodes of those never closed are deleted at exit.
_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _delete_left_over() -> None:
    for env in list(_LIVE):
        with contextlib.suppress(Exception):   # the world may be gone first; its idle timeout bounds the rest
            env._delete()


class OfficeWorldEnv(gym.Env):
    """One world episode per reset: a task of ``suite`` (drawn with the env's RNG) or the given ``task``."""
    metadata = {"render_modes": []}
    _closed = False

    def __init__(self, suite: str | None = None, task: str | None = None, server: str | None = None,
                 token: str | None = None, max_steps: int = 30, toolset: str = "task"):
        if (suite is None) == (task is None):
            raise ValueError("give a suite or a task (one of them)")
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if toolset not in ("task", "all"):
            raise ValueError("toolset must be task (the task's apps' tools) or all")
        self.suite, self.task, self.max_steps, self.toolset = suite, task, max_steps, toolset
        url, token = (server, token) if server else local_world()
        self.client = Client(url, token)
        self.observation_space = spaces.Text(max_length=TEXT_LIMIT, charset=string.printable)
        self.action_space = spaces.Text(max_length=4096, charset=string.printable)
        self.episode: str | None = None
        self.steps = 0
        self._tasks: list[str] | None = None
        _LIVE.add(self)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._delete()
        unknown = sorted(set(options or {}) - {"task"})
        if unknown:
            raise ValueError(f"reset: unknown option {unknown[0]!r} (known: task)")
        task = (options or {}).get("task") or self.task
        if task is None:
            if self._tasks is None:
                self._tasks = sorted(t["id"] for t in self.client.tasks(suite=self.suite))
                if not self._tasks:
                    raise ValueError(f"suite {self.suite!r} has no tasks")
            task = self._tasks[int(self.np_random.integers(len(self._tasks)))]
        episode = self.client.create_episode(task, toolset=self.toolset)
        self.episode, self.steps = episode["id"], 0
        tools = episode["tools"]["openai"]
        names = [t["function"]["name"] for t in tools]
        return _text({"task": task, "prompt": episode["task"]["prompt"], "tools": names}), {"task": task, "tools": tools}

    def step(self, action: str):
        if self.episode is None:
            raise RuntimeError("reset the environment first (the episode is over or never began)")
        self.steps += 1
        tool, result, error = self._call(self.episode, action)
        submitted = tool == SUBMIT and error is None and not goes_on(result)   # an answered question goes on
        truncated = not submitted and self.steps >= self.max_steps
        info: dict[str, Any] = {"step": self.steps, "tool": tool, "error": error}
        reward = 0.0
        if submitted or truncated:
            try:
                graded = self.client.finish(self.episode)
            finally:   # graded or not (the world failed), the episode is over
                self._delete()
            reward, info["reward"] = float(graded["total"] or 0.0), graded
        return _text({"tool": tool, "result": result, "error": error}), reward, submitted, truncated, info

    def _call(self, episode: str, action: str) -> tuple[str | None, Any, dict | None]:
        try:
            call = json.loads(action)
        except (TypeError, ValueError) as exc:
            return None, None, {"type": "invalid", "message": f"action: not valid JSON ({exc})", "field": "action"}
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str) or \
                not isinstance(call.get("arguments", {}), dict) or set(call) - {"tool", "arguments"}:
            return None, None, {"type": "invalid", "field": "action",
                                "message": 'action: give {"tool": NAME, "arguments": {...}} and nothing else'}
        try:
            step = self.client.call(episode, call["tool"], call.get("arguments", {}))
            return call["tool"], step.get("result"), step.get("error")
        except ControlError as exc:
            if exc.status >= 500:
                raise
            return call["tool"], None, {"type": exc.type, "message": exc.message, "field": exc.field}

    def _delete(self) -> None:
        episode, self.episode = self.episode, None
        if episode is not None:
            with contextlib.suppress(ControlError):
                self.client.delete(episode)

    def close(self) -> None:
        if getattr(self, "client", None) is not None and not self._closed:   # none when __init__ failed
            self._closed = True
            self._delete()
            self.client.close()


def suites() -> list[str]:
    from apps.kit.settings import settings
    from tasks.loader import SUITES_DIR

    root = settings().tasks_dir or SUITES_DIR
    return sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.yaml")))


def register() -> list[str]:
    """Register ``officeworld/<suite>`` for every suite; returns the ids."""
    ids = []
    for suite in suites():
        env_id = f"officeworld/{suite}"
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="trainers.gym:OfficeWorldEnv", kwargs={"suite": suite})
        ids.append(env_id)
    return ids


ENV_IDS = register()
