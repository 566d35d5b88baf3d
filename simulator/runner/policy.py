"""The policy seam: what a rollout asks for each turn.

A policy answers the conversation so far with the assistant's next message (``role``, ``content``,
``tool_calls``), or raises a ``ModelFailure`` (counted against it). ``Model`` (an OpenAI-compatible
server) is one; ``scripted.OraclePolicy`` (replays a task's oracle, going wrong by a seeded chance)
is another, for tests and smoke runs. A policy must pickle: ``run_on_ray`` ships it to every actor.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import httpx


@runtime_checkable
class Policy(Protocol):
    async def reply(self, http: httpx.AsyncClient, messages: list[dict], tools: list[dict], *,
                    task: str, sample: int) -> dict:
        """The assistant's next message; ``http`` is the rollout's shared client (a policy may ignore it)."""

    def describe(self) -> dict:
        """What results.json says the policy was (``model``, ``model_name``, ...)."""
