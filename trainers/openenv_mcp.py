"""``POST /mcp``: OpenEnv's JSON-RPC endpoint for direct tool access (openenv 0.10's ``http_server.py``), over
the same ``Session`` as the WebSocket: one world episode per session.

- ``openenv/session/create`` ``{task?, suite?, seed?, toolset?}``: a session, reset at once (the server's
  defaults unless given); answers ``{session_id, observation}`` (the prompt and the tools).
- ``tools/list`` ``{session_id}``: the session's tools in MCP form (name, description, inputSchema).
- ``tools/call`` ``{session_id, name, arguments}``: one step; an MCP ``CallToolResult`` (the result or the
  tool's error as text, ``isError``) with the observation beside it (``done``, the world's ``reward``).
- ``openenv/session/close`` ``{session_id}``: the session ends and its episode is deleted.

Every answer is HTTP 200 with a JSON-RPC 2.0 body, errors included (parse -32700, invalid request -32600,
unknown method -32601, bad params -32602), as OpenEnv's own server answers. Sessions count against the
server's ``max_sessions`` with the WebSocket ones; those still open when the server stops are closed.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Callable

from fastapi import FastAPI, Request

PARSE, INVALID_REQUEST, NO_METHOD, INVALID_PARAMS = -32700, -32600, -32601, -32602


def _error(code: int, message: str, request_id: Any = None) -> dict:
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": request_id}


def _result(result: dict, request_id: Any) -> dict:
    return {"jsonrpc": "2.0", "result": result, "id": request_id}


def mcp_tool(openai: dict) -> dict:
    function = openai["function"]
    return {"name": function["name"], "description": function.get("description", ""),
            "inputSchema": function.get("parameters") or {"type": "object", "properties": {}}}


def add_mcp(app: FastAPI, new_session: Callable, live: set, max_sessions: int, serialize: Callable,
            refused: type[Exception]) -> None:
    """Register ``POST /mcp`` on ``app``; ``live`` is the set of every open session (WebSocket ones too)."""
    sessions: dict[str, Any] = {}

    async def close_all() -> None:
        for session_id in list(sessions):
            live.discard(sessions[session_id])
            await sessions.pop(session_id).close()
    app.router.on_shutdown.insert(0, close_all)

    async def create(params: dict, request_id: Any) -> dict:
        if len(live) >= max_sessions:
            return _error(INVALID_REQUEST, f"server at capacity ({max_sessions} sessions)", request_id)
        session = new_session()
        live.add(session)
        try:
            observation = await session.reset(params)
        except BaseException:
            live.discard(session)
            await session.close()
            raise
        session_id = "s_" + secrets.token_hex(8)
        sessions[session_id] = session
        session.tools_seen = observation.tools
        return _result({"session_id": session_id, "observation": serialize(observation)}, request_id)

    async def answer(method: str, params: dict, request_id: Any) -> dict:
        if method == "openenv/session/create":
            return await create(params, request_id)
        if method not in ("tools/list", "tools/call", "openenv/session/close"):
            return _error(NO_METHOD, f"Method not found: {method}", request_id)
        session_id = params.get("session_id")
        session = sessions.get(session_id) if isinstance(session_id, str) else None
        if session is None or not isinstance(session_id, str):
            return _error(INVALID_PARAMS, f"{method}: params.session_id must name an open session "
                                          "(openenv/session/create opens one)", request_id)
        if method == "openenv/session/close":
            live.discard(sessions.pop(session_id))
            await session.close()
            return _result({"session_id": session_id, "closed": True}, request_id)
        if method == "tools/list":
            return _result({"tools": [mcp_tool(t) for t in session.tools_seen]}, request_id)
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return _error(INVALID_PARAMS, "tools/call: params.name (a string) and params.arguments (an object)",
                          request_id)
        observation = await session.step({"tool": name, "arguments": arguments})
        shown = observation.error if observation.error is not None else observation.result
        return _result({"content": [{"type": "text", "text": json.dumps(shown, ensure_ascii=False, default=str)}],
                        "isError": observation.error is not None, "observation": serialize(observation)},
                       request_id)

    @app.post("/mcp")
    async def mcp(request: Request) -> dict:
        """OpenEnv's MCP JSON-RPC endpoint: tools/list, tools/call, openenv/session/create and close."""
        try:
            message = json.loads(await request.body())
        except ValueError:
            return _error(PARSE, "Parse error")
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
            return _error(INVALID_REQUEST, "Invalid request: a JSON-RPC 2.0 object with a method",
                          message.get("id") if isinstance(message, dict) else None)
        params = message.get("params") or {}
        if not isinstance(params, dict):
            return _error(INVALID_PARAMS, "params must be an object", message.get("id"))
        try:
            return await answer(message["method"], params, message.get("id"))
        except refused as exc:
            return _error(INVALID_PARAMS, str(exc), message.get("id"))
