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


def error_text(payload: dict) -> str:
    """A tool error's text content: ``{"error": payload}`` as JSON."""
    return json.dumps({"error": payload})


def result_text(structured: dict) -> str:
    """A result's text content: its structured content (``Operation.structured``) as JSON."""
    return json.dumps(structured)


def error_result(payload: dict) -> types.CallToolResult:
    """A tool error: a result with ``isError`` whose text names the problem (``error_text``)."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=error_text(payload))], is_error=True)


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
    # Made once: the SDK asks for a tool's input schema on every tools/call of the 2026 protocol
    # (its Mcp-Param header check), and building one from the model costs milliseconds.
    schemas = {t.name: t.input_schema for t in tools}

    offered: dict[frozenset[str], list[types.Tool]] = {}   # the tools of a set of apps (``Episode.tools``)

    def listed(episode) -> list[types.Tool]:
        apps = episode.tools
        if apps is None:
            return tools
        if apps not in offered:
            offered[apps] = [t for t, op in zip(tools, operations) if op.app in apps]
        return offered[apps]

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        try:
            episode = resolve_episode(ctx)
        except OpError:
            return types.ListToolsResult(tools=tools)
        return types.ListToolsResult(tools=listed(episode) + (extra.tools(episode) if extra is not None else []))

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult | dict:
        op = by_name.get(params.name)
        if op is None and input_schema(params.name) is None:
            return error_result({"type": "not_found", "message": f"unknown tool {params.name!r}"})
        try:
            episode = resolve_episode(ctx)
            if op is None:
                assert extra is not None  # an unknown name without extra tools was answered above
                return await extra.call(episode, params.name, params.arguments or {})
        except OpError as exc:
            return error_result(exc.to_dict())
        step = await invoke_async(episode, op, params.arguments or {}, "mcp")
        if step.error:
            return error_result(step.error)
        structured = op.structured(step.result)
        # The result in its wire form: the SDK validates and dumps what a handler returns, so building the
        # model here first only doubled that work (a walk of the whole result each way).
        return {"content": [{"type": "text", "text": result_text(structured)}], "structuredContent": structured,
                "isError": False, "resultType": "complete"}

    def input_schema(tool_name: str):
        schema = schemas.get(tool_name)
        if schema is None and extra is not None:  # the extra tools' schemas are fixed too
            schema = extra.input_schema(tool_name)
            if schema is not None:  # kept for a known tool only: a name a client makes up is not stored
                schemas[tool_name] = schema
        return schema

    # The SDK types a tools/call handler as returning the model; its runner takes a wire-form dict as well.
    server: Server = Server(name, instructions=instructions, on_list_tools=on_list_tools,
                            on_call_tool=on_call_tool,  # type: ignore[arg-type]
                            get_tool_input_schema=input_schema)
    # The SDK's one default middleware opens an OpenTelemetry span per message, a no-op without an exporter
    # (officeworld installs none) that still cost a tenth of a tool call; its documented opt-out is this.
    server.middleware = [m for m in server.middleware if type(m).__name__ != "OpenTelemetryMiddleware"]
    return server
