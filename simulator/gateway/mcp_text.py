"""Tool calls whose arguments hold lone surrogates (``"\\ud800"`` in the raw JSON), answered as tool errors.

JSON allows the escape; the MCP SDK's parser refuses it and answers a JSON-RPC parse error, so the
call would leave no step and name no field. The gateway finds such a call before the SDK does
(``lone_surrogate_call``), runs it through the invoker like any other (the kit's limits refuse the
text, naming the argument, and the refusal is recorded as a step) and answers a tool result with
``isError`` (``tool_error_reply``).
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def lone_surrogate_call(body: bytes) -> tuple[dict, str] | None:
    """A ``tools/call`` request whose arguments hold a lone surrogate, and where (``None`` otherwise)."""
    if not _SURROGATE_ESCAPE.search(body):
        return None
    try:
        request = json.loads(body)   # Python's parser keeps lone surrogates; pairs become one character
    except ValueError:
        return None
    if not isinstance(request, dict) or request.get("method") != "tools/call" or "id" not in request:
        return None
    params = request.get("params")
    if not isinstance(params, dict) or not _valid(params.get("name")):
        return None
    where = _lone(params.get("arguments"), "")
    return (request, where) if where is not None else None


def _valid(text: Any) -> bool:
    if not isinstance(text, str):
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _lone(value: Any, path: str) -> str | None:
    """The path (``a.b.0``) of the first text (or key) in ``value`` holding a lone surrogate."""
    if isinstance(value, str):
        return None if _valid(value) else (path or "arguments")
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        where = f"{path}.{key}" if path else str(key)
        if isinstance(key, str) and not _valid(key):
            return path or "arguments"
        found = _lone(item, where)
        if found is not None:
            return found
    return None


def tool_error_reply(request: dict, error: dict) -> bytes:
    """The JSON-RPC answer to ``request``: a tool result with ``isError`` and the error as its text."""
    text = json.dumps({"error": error})
    return json.dumps({"jsonrpc": "2.0", "id": request["id"],
                       "result": {"content": [{"type": "text", "text": text}], "isError": True}}).encode()
