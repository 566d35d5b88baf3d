"""One rollout: a task episode, a chat with tool calls until the agent submits its answer, the reward.

Everything the policy gets wrong is recorded and counted, never raised: a tool error comes back to
the model as the tool's result; a malformed tool call (arguments that are not a JSON object, a tool
that does not exist, ``tool_calls`` that is not a list: one malformed call) gets an error result; a
context overflow, a model error, a reply with no tool call or running out of turns ends the rollout,
which is then graded as it stands.

The endpoint's own failure (unreachable, timed out, 5xx after ``Model``'s retries) is not the policy's:
the rollout ends ``infrastructure`` with its failure named, its episode is deleted ungraded (its
trajectory file ends with a delete, not a finish), so it is not scored and a resumed run runs it again.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

import httpx

from apps.kit.reactor import goes_on
from simulator.gateway.client import AsyncClient, ControlError
from simulator.runner.model import ModelFailure
from simulator.runner.policy import Policy
from simulator.trajectories.export import SYSTEM_PROMPT

SUBMIT = "task_submit_answer"


@dataclass
class Rollout:
    task: str
    sample: int
    episode: str | None = None
    reward: float | None = None
    passed: bool = False
    failure: str | None = None        # why it ended without an answer (context_overflow, endpoint_timeout, ...)
    detail: str = ""
    turns: int = 0
    counts: dict[str, int] = field(default_factory=dict)   # tool_error, malformed_tool_call
    infrastructure: bool = False      # ended by the endpoint's failure, not the policy's: not graded nor scored
    goals_passed: bool | None = None   # every goal criterion passed (utility, also under attack)
    guard_failed: bool | None = None   # some guard failed (in a security pair: the attack succeeded)
    perception: float | None = None   # Reward.perception: the description of what it saw, graded (None: not asked)
    evidence: float | None = None     # Reward.evidence: the records its answer cites, checked (None: not asked)

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def as_dict(self) -> dict:
        return asdict(self)


async def rollout(ow: AsyncClient, http: httpx.AsyncClient, policy: Policy, task: str, sample: int,
                  max_turns: int = 30, meta: dict | None = None, toolset: str = "task",
                  observation: str | None = None) -> Rollout:
    """One rollout; with ``observation`` (snapshot, pixels or marks) the agent is offered the browser tools too,
    and a screenshot a browser tool answers with comes to the model as an image in a user message after the
    turn's tool results (a tool message carries text only)."""
    out = Rollout(task, sample)
    # Each sample its own salt: where co-workers answer by a model, K rollouts meet K replies (same sample, same).
    episode = await ow.create_episode(task, meta={**(meta or {}), "task": task, "sample": sample}, toolset=toolset,
                                      observation=observation, salt=f"sample-{sample}")
    out.episode = episode["id"]
    try:
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": episode["task"]["prompt"]}]
        await _converse(ow, http, policy, episode, messages, out, max_turns)
        if not out.infrastructure:
            reward = await ow.finish(out.episode)
            out.reward, out.passed = reward["total"], reward["passed"]
            out.perception, out.evidence = reward.get("perception"), reward.get("evidence")
            roles = [(c.get("role"), c.get("status")) for c in reward.get("criteria") or []]
            out.goals_passed = all(status == "pass" for role, status in roles if role == "goal")
            out.guard_failed = any(status == "fail" for role, status in roles if role == "guard")
    finally:
        await ow.delete(out.episode)
    return out


async def _converse(ow, http, policy: Policy, episode, messages, out: Rollout, max_turns: int) -> None:
    tools = episode["tools"]["openai"]
    for out.turns in range(1, max_turns + 1):
        try:
            message = await policy.reply(http, messages, tools, task=out.task, sample=out.sample)
        except ModelFailure as exc:
            out.failure, out.detail, out.infrastructure = exc.reason, str(exc)[:300], exc.infrastructure
            return
        listed = message.get("tool_calls") or []
        listed = listed if isinstance(listed, list) else [listed]   # a string or object: one (malformed) call
        calls = [_with_id(c, out.turns, n) for n, c in enumerate(listed)]
        messages.append({"role": "assistant", "content": message.get("content"), **({"tool_calls": calls} if calls else {})})
        if not calls:
            out.failure = "no_answer"
            return
        submitted, shots = False, list[str]()
        for tool_call in calls:
            content, ok_submit = await _run_call(ow, episode["id"], tool_call, out, shots)
            submitted = submitted or ok_submit
            messages.append({"role": "tool", "tool_call_id": tool_call.get("id") if isinstance(tool_call, dict) else "",
                             "content": content})
        if shots:
            parts: list[dict] = [{"type": "text", "text": "The screen after your actions:"}]
            parts += [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}} for png in shots]
            messages.append({"role": "user", "content": parts})
        if submitted:
            return
    out.failure = "max_turns"


async def _run_call(ow: AsyncClient, episode_id: str, tool_call, out: Rollout, shots: list[str]) -> tuple[str, bool]:
    """The tool message's content for one call, and whether it was an accepted final answer; a browser's
    screenshot (base64 PNG) goes to ``shots`` instead of the text."""
    function = tool_call.get("function") if isinstance(tool_call, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    raw = function.get("arguments") if isinstance(function, dict) else None
    try:
        arguments = json.loads(raw) if isinstance(raw, str) and raw.strip() else (raw or {})
    except json.JSONDecodeError as exc:
        arguments, why = None, f"arguments are not valid JSON ({exc.msg})"
    else:
        why = "" if isinstance(arguments, dict) else "arguments must be a JSON object"
    if not isinstance(name, str) or not name:
        why, name = "a tool call needs function.name", ""
    if why:
        out.count("malformed_tool_call")
        return json.dumps({"error": {"type": "invalid", "message": why}}), False
    try:
        step = await ow.call(episode_id, name, arguments)
    except ControlError as exc:   # no such tool, or arguments the control API refuses
        if exc.field == "episode_id":
            raise   # the episode is gone (dropped idle, server restarted): not the policy's doing
        out.count("malformed_tool_call")
        return json.dumps({"error": {"type": exc.type, "message": exc.message, "field": exc.field}}), False
    result = step["result"]
    if isinstance(result, dict) and isinstance(result.get("screenshot"), str):
        result = dict(result)
        shots.append(result.pop("screenshot"))
    if step["error"] is not None:
        out.count("tool_error")
        return json.dumps({"error": step["error"], **({"result": result} if result else {})}), False
    # A question to the user (needs_input) that the user answered is not the end: the episode goes on.
    return json.dumps(result, ensure_ascii=False, default=str), name == SUBMIT and not goes_on(step["result"])


def _with_id(tool_call, turn: int, number: int):
    """The call with an id (some servers leave it out; the tool message must name one)."""
    if isinstance(tool_call, dict) and not (isinstance(tool_call.get("id"), str) and tool_call["id"]):
        return {**tool_call, "id": f"call_{turn}_{number}"}
    return tool_call
