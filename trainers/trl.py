"""TRL's ``GRPOTrainer`` over a world: an ``environment_factory`` class, per-criterion reward functions, a
dataset helper and ``train``. Everything goes through the control-plane client; no task or reward logic here.

    from trl import GRPOConfig, GRPOTrainer
    from trainers.trl import OfficeWorld, dataset, goals, guards, passed

    trainer = GRPOTrainer(model="Qwen/Qwen3-0.6B", train_dataset=dataset(suite="crm", server=url, token=token),
                          environment_factory=OfficeWorld.factory(url, token),      # or OfficeWorld: a world in this process
                          reward_funcs=[goals, guards, passed],                     # logged only, with weights 0:
                          args=GRPOConfig(reward_weights=[0, 0, 0], max_completion_length=2048, ...))

- ``OfficeWorld``: TRL makes one instance per rollout and reuses it. ``reset(task=...)`` opens an episode for the
  row's task and returns its prompt (TRL appends it to the row's last message); every public method is one of the
  world's tools, with its signature and Google docstring made from the tool's JSON schema, so
  ``transformers.utils.get_json_schema`` reads it back; a tool error is raised as ``ToolError`` (TRL hands the
  message to the model). ``get_reward`` finishes the episode, deletes it and returns the world's ``total``; an
  ungradable episode (a check in error) gives ``None``, never a 0: TRL sums rewards skipping NaN, and a rollout
  for which every reward function says None (ours all do) is left out of the logged reward and gets no
  advantage. After ``task_submit_answer`` succeeds, further tool calls raise: the task is over.
- The tools are the world's operations as this checkout defines them (``simulator.store.registry``), fixed when the
  module is imported, since TRL reads tools from the class. ``reset`` refuses a server that lacks one of them.
  All 118 tools' schemas are ~109k characters of JSON (some 27k tokens) in a chat template's prompt; ``MailWorld``,
  ``CrmWorld``, ``DocsWorld`` and ``CalendarWorld`` offer one app's tools (plus ``task_submit_answer``).
- Pickling (``AsyncGRPOTrainer`` spawns a process): the classes and the reward functions are module-level, and
  ``OfficeWorld.factory(url, token)`` is a ``functools.partial``, so all pickle by reference. A class made with
  ``environment_class`` pickles only when bound to a module-level name equal to its ``name``. Without a server,
  each process starts its own in-process world (no trajectory files); give a URL to share one.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import inspect
import json
import secrets
import threading
import weakref
from pathlib import Path
from types import GenericAlias
from typing import Any, Literal, Union

from apps.kit.reactor import goes_on
from simulator.gateway.client import Client, ControlError
from simulator.store.registry import all_operations
from simulator.trajectories.export import SYSTEM_PROMPT

SUBMIT = "task_submit_answer"
_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}


class ToolError(Exception):
    """A tool call the world refused: its message goes back to the model as the tool's result."""


# ---- tools: the world's JSON schemas as typed, documented methods ---------------------------------------------

def _hint(schema: dict, defs: dict) -> Any:
    if "$ref" in schema:
        return _hint(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"]
        hint = Union[tuple(_hint(s, defs) for s in options)] if len(options) > 1 else _hint(options[0], defs)
        return hint | None if len(options) < len(schema["anyOf"]) else hint
    if "enum" in schema:
        return Literal[tuple(schema["enum"])]
    if schema.get("type") == "array":
        return GenericAlias(list, (_hint(schema.get("items", {}), defs),))   # list[...] of a type found at run time
    kind = schema.get("type")
    return _TYPES.get(kind, Any) if isinstance(kind, str) else Any


def _described(name: str, schema: dict, defs: dict) -> str:
    """One line (the docstring parser reads one per argument), with what the type hint cannot carry."""
    text = " ".join(str(schema.get("description") or name).split())
    inner = [schema] + schema.get("anyOf", [])
    inner += [s["items"] for s in inner if "items" in s]
    formats = {s["format"] for s in inner if "format" in s}
    refs = [defs[s["$ref"].rsplit("/", 1)[-1]] for s in inner if "$ref" in s]
    if formats:
        text += f" (format {', '.join(sorted(formats))})"
    for ref in refs:
        text += " Each is an object with " + "; ".join(
            f"{k}: {' '.join(str(v.get('description', '')).split())}" for k, v in ref.get("properties", {}).items())
    return text


def _tool(spec: dict):
    function = spec["function"]
    name, parameters = function["name"], function["parameters"]
    properties, required = parameters.get("properties", {}), set(parameters.get("required", []))
    defs = parameters.get("$defs", {})

    def tool(self, **arguments) -> str:
        return self._call(name, arguments)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + [
        inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, annotation=_hint(schema, defs),
                          default=inspect.Parameter.empty if arg in required else schema.get("default"))
        for arg, schema in properties.items()]
    tool.__name__ = name
    setattr(tool, "__signature__", inspect.Signature(params, return_annotation=str))  # what TRL's schema reads
    tool.__annotations__ = {p.name: p.annotation for p in params[1:]} | {"return": str}
    lines = [f"    {arg}: {_described(arg, schema, defs)}" for arg, schema in properties.items()]
    summary = (function.get("description") or name).replace("Args:", "Args -").replace("Returns:", "Returns -")
    tool.__doc__ = summary + ("\n\nArgs:\n" + "\n".join(lines) if lines else "") + "\n\nReturns:\n    The result as JSON."
    return tool


def tools(apps: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The world's tools (of ``apps`` and the task app, or all), as methods for an environment class."""
    ops = [op for op in all_operations() if apps is None or op.app in apps or op.app == "task"]
    return {op.openai_tool()["function"]["name"]: _tool(op.openai_tool()) for op in ops}


# ---- the environment ----------------------------------------------------------------------------------------

_local: dict[str, tuple[str, str]] = {}
_lock = threading.Lock()


def local_world() -> tuple[str, str]:
    """(URL, token) of a world served in this process on loopback, started on first use, stopped at exit."""
    with _lock:
        if "world" not in _local:
            stack = contextlib.ExitStack()
            atexit.register(stack.close)
            _local["world"] = _serve(stack, None)
        return _local["world"]


def _serve(stack: contextlib.ExitStack, trajectories: Path | None) -> tuple[str, str]:
    from simulator.gateway.server import build_app
    from simulator.service.serve import serve_in_thread
    from simulator.store.episodes import EpisodeStore

    token = "ow_" + secrets.token_urlsafe(16)
    url = stack.enter_context(serve_in_thread(build_app(EpisodeStore(trajectory_dir=trajectories), token=token)))
    return url, token


# Environments alive in this process. TRL never closes one: a rollout whose reward is never asked (the step
# failed) keeps its episode until the next reset, and those left when the process ends are deleted then.
_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _delete_left_over() -> None:
    for env in list(_LIVE):
        with contextlib.suppress(Exception):   # the world may be gone first; its idle timeout bounds the rest
            env._close()


class WorldEnvironment:
    """The protocol TRL drives; subclasses add the tools (``environment_class``)."""

    def __init__(self, server: str | None = None, token: str | None = None):
        url, token = (server, token) if server else local_world()
        self._client = Client(url, token)
        self._episode: str | None = None
        self._submitted = False
        self.reward: dict | None = None   # the world's Reward, once graded
        _LIVE.add(self)

    @classmethod
    def factory(cls, server: str | None = None, token: str | None = None):
        """A zero-argument, picklable ``environment_factory`` for a running server (``cls`` alone: in-process)."""
        return functools.partial(cls, server, token) if server else cls

    def reset(self, **row) -> str:
        """Open an episode for ``row["task"]`` (the previous one, if never graded, is deleted) and return its prompt."""
        self._close()
        task = row.get("task")
        if not isinstance(task, str) or not task:
            raise ValueError("reset: the dataset row needs a 'task' column with a task id")
        # The class's methods are the model's tools (TRL reads them from the class); the episode offers them all.
        episode = self._client.create_episode(task, meta={"trainer": "trl", "task": task}, toolset="all")
        self._episode, self._submitted, self.reward = episode["id"], False, None
        offered = {t["function"]["name"] for t in (episode.get("tools") or {}).get("openai", [])}
        missing = sorted(set(self._tool_names()) - offered)
        if missing:
            self._close()
            raise ValueError(f"the server does not offer the tools {missing}: it runs another version of officeworld")
        return episode["task"]["prompt"]

    def get_reward(self) -> float | None:
        """The world's reward for this rollout (finishing the episode); None when it could not be graded."""
        return self._finish()["total"]

    def _finish(self) -> dict:
        if self.reward is None:
            if self._episode is None:
                raise RuntimeError("no episode to grade: reset() opens one")
            try:
                self.reward = self._client.finish(self._episode)
            finally:
                self._close()
        return self.reward

    def _call(self, tool: str, arguments: dict) -> str:
        if self._episode is None:
            raise ToolError("no episode is open" + (": the task is over" if self.reward is not None else ""))
        if self._submitted:
            raise ToolError("the task is over: the answer was submitted")
        try:
            step = self._client.call(self._episode, tool, arguments)
        except ControlError as exc:
            raise ToolError(f"{exc.type}: {exc.message}" + (f" (field {exc.field})" if exc.field else "")) from None
        if step["error"] is not None:
            raise ToolError(json.dumps(step["error"], ensure_ascii=False))
        self._submitted = tool == SUBMIT and not goes_on(step["result"])   # an answered question goes on
        return json.dumps(step["result"], ensure_ascii=False, default=str)

    def _close(self) -> None:
        if self._episode is not None:
            episode, self._episode = self._episode, None
            with contextlib.suppress(ControlError):
                self._client.delete(episode)

    @classmethod
    def _tool_names(cls) -> list[str]:
        return [n for n, _ in inspect.getmembers(cls, inspect.isfunction)
                if not n.startswith("_") and n not in ("reset", "get_reward")]


def environment_class(name: str, apps: tuple[str, ...] | None = None) -> type[WorldEnvironment]:
    """An environment class with the tools of ``apps`` (None: every app); bind it to a module-level ``name``."""
    return type(name, (WorldEnvironment,), {"__module__": __name__, "__qualname__": name, **tools(apps)})


OfficeWorld = environment_class("OfficeWorld")
MailWorld = environment_class("MailWorld", ("mail",))
CrmWorld = environment_class("CrmWorld", ("crm",))
DocsWorld = environment_class("DocsWorld", ("docs",))
CalendarWorld = environment_class("CalendarWorld", ("calendar",))
BY_APP = {"mail": MailWorld, "crm": CrmWorld, "docs": DocsWorld, "calendar": CalendarWorld}


def environment_for(apps: set[str] | list[str]) -> type[WorldEnvironment]:
    """The smallest shipped class with the tools of ``apps`` (the tasks' apps): one app's, else ``OfficeWorld``."""
    wanted = set(apps) - {"task"}
    return BY_APP[next(iter(wanted))] if len(wanted) == 1 and wanted <= set(BY_APP) else OfficeWorld


# ---- reward functions: views of the world's Reward, for logging (weight 0) or shaping ---------------------------

def _by_role(environments: list, role: str) -> list[float | None]:
    out = []
    for reward in (env._finish() for env in environments):
        scores = [c["score"] for c in reward["criteria"] if c["role"] == role and c["status"] != "na"]
        out.append(sum(scores) / len(scores) if reward["gradable"] and scores else None)
    return out


def goals(environments: list, **kwargs) -> list[float | None]:
    """Per rollout, the mean score of its goal criteria (None: ungradable, or no goal checked)."""
    return _by_role(environments, "goal")


def guards(environments: list, **kwargs) -> list[float | None]:
    """Per rollout, the mean score of its guard criteria (None: ungradable, or no guard checked)."""
    return _by_role(environments, "guard")


def penalties(environments: list, **kwargs) -> list[float | None]:
    """Per rollout, the mean score of its penalty criteria (1: none fired; None: ungradable, or none checked)."""
    return _by_role(environments, "penalty")


def passed(environments: list, **kwargs) -> list[float | None]:
    """Per rollout, 1.0 when the world says the task passed, else 0.0 (None: ungradable)."""
    return [float(r["passed"]) if r["gradable"] else None for r in (env._finish() for env in environments)]


class Criterion:
    """One criterion's score by id, logged as ``rewards/criterion:<id>`` (None where a task has no such criterion)."""

    def __init__(self, criterion: str):
        self.criterion, self.__name__ = criterion, f"criterion:{criterion}"

    def __call__(self, environments: list, **kwargs) -> list[float | None]:
        out = []
        for reward in (env._finish() for env in environments):
            score = next((c for c in reward["criteria"] if c["id"] == self.criterion and c["status"] != "na"), None)
            out.append(score["score"] if reward["gradable"] and score else None)
        return out


ROLES = [goals, guards, penalties, passed]


# ---- data and training --------------------------------------------------------------------------------------

def dataset(tasks: list[str] | None = None, *, suite: str | None = None, server: str | None = None,
            token: str | None = None, system: str = SYSTEM_PROMPT):
    """A ``datasets.Dataset`` of rows ``{prompt: [system, user ""], task}``: ``reset`` adds the task's prompt."""
    from datasets import Dataset  # type: ignore[import-untyped]  # datasets ships no type information

    chosen = list(tasks or [])
    if suite is not None:
        url, token = (server, token) if server else local_world()
        with Client(url, token) as ow:
            chosen += [t["id"] for t in ow.tasks(suite=suite)]
    if not chosen:
        raise ValueError("no task: give tasks=[ids] or suite=NAME (with tasks)")
    prompt = [{"role": "system", "content": system}, {"role": "user", "content": ""}]
    return Dataset.from_list([{"prompt": prompt, "task": task} for task in chosen])


@contextlib.contextmanager
def _world(server: str | None, token: str | None, trajectories: Path):
    if server:
        yield server, token
        return
    with contextlib.ExitStack() as stack:
        yield _serve(stack, trajectories)


def train(model: str, tasks: list[str], *, server: str | None = None, token: str | None = None, steps: int = 20,
          k: int = 4, out: Path, config: dict | None = None, toolset: Literal["task", "all"] = "task") -> list[dict]:
    """GRPO on ``tasks`` with the world's reward: each step, ``k`` rollouts of every task (generated together,
    one task's group per backward pass). Returns per step ``{step, reward_mean, pass_rate}``, also written to
    ``out/trl_steps.json`` (TRL's whole log: ``out/trl_log.json``). The server (default: one in this process)
    writes trajectory files to ``out/trajectories``. ``config`` overrides ``GRPOConfig`` fields. ``toolset``:
    ``task`` offers the tools of the tasks' apps (``environment_for``: one app's class when they share one),
    ``all`` every app's (``OfficeWorld``)."""
    import torch
    from trl import GRPOConfig, GRPOTrainer

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    settings = dict(output_dir=str(out / "trl"), max_steps=steps, num_generations=k, logging_steps=1,
                    per_device_train_batch_size=k, gradient_accumulation_steps=len(tasks),
                    max_completion_length=2048, learning_rate=1e-5, report_to="none", save_strategy="no",
                    bf16=torch.cuda.is_available(), use_cpu=not torch.cuda.is_available(),
                    chat_template_kwargs={"enable_thinking": False}, reward_weights=[0.0] * len(ROLES))
    with _world(server, token, out / "trajectories") as (url, secret):
        with Client(url, secret) as ow:
            apps = {app for t in ow.tasks() if t["id"] in tasks for app in t["apps"]}
        world = OfficeWorld if toolset == "all" else environment_for(apps or {"all"})
        trainer = GRPOTrainer(model=model, reward_funcs=[*ROLES], args=GRPOConfig(**(settings | (config or {}))),
                              train_dataset=dataset(tasks, server=url, token=secret),
                              environment_factory=world.factory(url, secret))
        trainer.train()
    logs = trainer.state.log_history
    rows = [{"step": log["step"], "reward_mean": log[f"rewards/{world.__name__}/mean"],
             "pass_rate": log["rewards/passed/mean"]} for log in logs if "reward" in log]
    (out / "trl_log.json").write_text(json.dumps(logs, indent=1))
    (out / "trl_steps.json").write_text(json.dumps(rows, indent=1))
    return rows
