"""MCP surface: every operation as a tool named ``<app>_<operation>``, on the SDK's low-level server.

The tool's input schema is the operation's input model, its output schema the result (non-object
results wrapped as ``{"result": ...}``), its description the docstring. A tool error comes back as
a result with ``isError`` and a JSON body naming the problem; the session goes on.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, Protocol

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from apps.kit.errors import OpError
from apps.kit.invoker import invoke_async
from apps.kit.operation import Operation

if TYPE_CHECKING:
    from apps.kit.episode import Episode

# The call's context (the SDK's per-request context) -> its episode.
EpisodeResolver = Callable[[ServerRequestContext[Any, Any]], "Episode"]


def tool(op: Operation) -> types.Tool:
    return types.Tool(
        name=op.qualified_name, description=op.description, input_schema=op.input_schema(),
        output_schema=op.output_schema,
        annotations=types.ToolAnnotations(read_only_hint=not op.mutates, destructive_hint=op.mutates,
                                          open_world_hint=False),
    )


def _error(payload: dict) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps({"error": payload}))],
                                is_error=True)


class ExtraTools(Protocol):
    """Tools beside the operations (the simulator's browser tools): listed and called per episode."""

    def tools(self, episode) -> list[types.Tool]: ...
    def input_schema(self, name: str) -> dict | None: ...
    async def call(self, episode, name: str, arguments: dict) -> types.CallToolResult: ...


def build_server(operations: list[Operation], resolve_episode: EpisodeResolver, name: str = "officeworld",
                 instructions: str | None = None, extra: ExtraTools | None = None) -> Server:
    """A low-level MCP server over ``operations``; ``resolve_episode(ctx)`` finds the call's episode.
    ``extra`` adds tools that are not operations, for the episodes it offers them to."""
    by_name = {op.qualified_name: op for op in operations}
    tools = [tool(op) for op in operations]

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        if extra is None:
            return types.ListToolsResult(tools=tools)
        try:
            return types.ListToolsResult(tools=tools + extra.tools(resolve_episode(ctx)))
        except OpError:
            return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        op = by_name.get(params.name)
        if op is None and (extra is None or extra.input_schema(params.name) is None):
            return _error({"type": "not_found", "message": f"unknown tool {params.name!r}"})
        try:
            episode = resolve_episode(ctx)
            if op is None:
                assert extra is not None  # an unknown name without extra tools was answered above
                return await extra.call(episode, params.name, params.arguments or {})
        except OpError as exc:
            return _error(exc.to_dict())
        step = await invoke_async(episode, op, params.arguments or {}, "mcp")
        if step.error:
            return _error(step.error)
        structured = op.structured(step.result)
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(structured))],
                                    structured_content=structured)

    def input_schema(tool_name: str):
        op = by_name.get(tool_name)
        return op.input_schema() if op else (extra.input_schema(tool_name) if extra else None)

    return Server(name, instructions=instructions, on_list_tools=on_list_tools, on_call_tool=on_call_tool,
                  get_tool_input_schema=input_schema)
