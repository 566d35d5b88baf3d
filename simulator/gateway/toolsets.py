"""Which tools an episode's agent is offered: its task's apps' (by default) or every app's.

All of officeworld's tools are some 107k characters of JSON schema (about 27k tokens), too many for a
small model's context. A task's episode offers by default the tools of the apps its oracle uses (the task's
public ``apps``; a task whose oracle only answers takes its suite's app, or every app when the suite is
none), plus ``task_submit_answer``; ``toolset: all`` offers every app's. The choice is the episode's
``tools`` (a set of app names, None for all), which its MCP endpoint lists and the control API returns.
Tools outside it are not offered, but a call to one still runs: the set sizes a prompt, it is no sandbox.
"""

from __future__ import annotations

import json
from typing import Literal

from apps.kit import Invalid
from apps.kit.operation import Operation

Toolset = Literal["task", "all"]
ALWAYS = "task"   # the app of task_submit_answer: in every set


class Toolsets:
    """The tool forms (OpenAI, MCP) per set of apps, made once each."""

    def __init__(self, operations: list[Operation]):
        self.operations = operations
        self._forms: dict[frozenset[str] | None, dict[str, list[dict]]] = {}
        self._chars: dict[frozenset[str] | None, int] = {}

    @staticmethod
    def apps_of(task, apps: list[str], choice: Toolset | None) -> frozenset[str] | None:
        """The apps an episode offers the tools of: None for all. ``task`` is the episode's task (or None)."""
        if choice == "all" or (choice is None and task is None):
            return None
        if task is None:
            raise Invalid("toolset: 'task' needs an episode of a task", field="toolset")
        chosen = task.apps or ([task.suite] if task.suite in apps else [])
        return frozenset(chosen) | {ALWAYS} if chosen else None

    def chosen(self, apps: frozenset[str] | None) -> list[Operation]:
        return self.operations if apps is None else [op for op in self.operations if op.app in apps]

    def forms(self, apps: frozenset[str] | None) -> dict[str, list[dict]]:
        """The tools in each form (the MCP form imports the SDK, so it is made on first use)."""
        if apps not in self._forms:
            from apps.kit.mcp import tool as mcp_tool

            ops = self.chosen(apps)
            self._forms[apps] = {"openai": [op.openai_tool() for op in ops],
                                 "mcp": [mcp_tool(op).model_dump(mode="json", by_alias=True, exclude_none=True)
                                         for op in ops]}
        return self._forms[apps]

    def size(self, task, apps: list[str]) -> dict:
        """What a task's default tools weigh in a prompt: the apps, how many tools, characters of OpenAI JSON
        schema, and a rough token count (4 characters a token)."""
        chosen = self.apps_of(task, apps, "task")
        if chosen not in self._chars:
            self._chars[chosen] = sum(len(json.dumps(op.openai_tool())) for op in self.chosen(chosen))
        chars = self._chars[chosen]
        return {"apps": sorted(chosen) if chosen is not None else "all", "count": len(self.chosen(chosen)),
                "schema_chars": chars, "schema_tokens_approx": chars // 4}
