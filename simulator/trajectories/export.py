"""Trajectory files as OpenAI chat conversations: usable as SFT data as they are.

One conversation per file: the system prompt the runner gives, the task's prompt as the user's
message, then per agent step an assistant message with one tool call and the tool's message with
its result (or its error). Setup steps and calls made as someone else (a colleague's reply staged
over the control API) are the world's doing, not the agent's, and are left out.
"""

from __future__ import annotations

import json

from apps.kit.trajectory import Step
from simulator.trajectories.files import TrajectoryFile

SYSTEM_PROMPT = (
    "You are an employee of a company, working in its apps (mail, CRM, documents) through tools named "
    "<app>_<operation>. Do what the user asks, using the tools; ids come from the tools' results. When you "
    "are finished, call task_submit_answer with your answer (or status refused / needs_input when you "
    "should not or cannot act).")


def agent_steps(file: TrajectoryFile) -> list[Step]:
    return [s for s in file.steps if s.surface != "setup" and s.actor is None]


def tool_content(step: Step) -> str:
    """What the agent was shown for a step: the result, or the error, as JSON."""
    body = {"error": step.error} if step.error is not None else step.result
    return json.dumps(body, ensure_ascii=False, default=str)


def chat(file: TrajectoryFile, tools: list[dict] | None = None, system: str = SYSTEM_PROMPT) -> dict:
    """``{"messages": [...], "tools": [...], "metadata": {...}}`` for one file."""
    prompt = file.header.task.prompt if file.header.task else ""
    messages: list[dict] = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    for step in agent_steps(file):
        call_id = f"call_{step.index}"
        messages.append({"role": "assistant", "content": None, "tool_calls": [{
            "id": call_id, "type": "function",
            "function": {"name": step.tool, "arguments": json.dumps(step.arguments, ensure_ascii=False)}}]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": tool_content(step)})
    footer = file.footer
    out = {"messages": messages, "metadata": {
        "episode": file.header.episode, "task": file.header.task.id if file.header.task else None,
        "world": file.header.world, "actor": file.header.actor, "finished": file.finished,
        "reward": footer.total if footer else None, "passed": footer.passed if footer else None}}
    if tools is not None:
        out["tools"] = tools
    return out
