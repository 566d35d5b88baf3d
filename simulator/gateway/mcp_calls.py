"""An operation's ``tools/call`` in an open MCP session, answered without the session's message loop.

In a handshake-era (2025) session over streamable HTTP the SDK passes each request from the HTTP
task through memory streams to the session's task, which spawns a handler task, whose answer goes back
through a router and two more streams to the HTTP task: about 3.5 ms of a server's CPU per call, most
of it anyio's and asyncio's. The answer itself is the SDK kernel's (``ServerRunner.on_request``:
params validation, the init gate, the handler, the result's per-version sieve), written as one JSON body.
So for the hottest message, and only when every condition below holds, the gateway runs that same
kernel in the HTTP task and writes the bytes and headers the SDK's transport writes
(``JSONRPCResponse(...).model_dump_json(by_alias=True, exclude_unset=True)``, content-type, the session
id, content-length; an exception mapped as the SDK's dispatcher maps it):

- a POST carrying one JSON-RPC ``tools/call`` request for an operation's tool (the browser tools and
  unknown names go to the SDK), without ``_meta`` (no progress token, no 2026 envelope);
- a session the SDK's manager still holds, not terminated, bound to this episode (the gateway checks),
  whose ``notifications/initialized`` the SDK has processed (a server middleware sees it and keeps the
  session's negotiated version and client params, read from the SDK's own session object);
- no protocol-version header or a handshake-era one (a 2026 one is the SDK's single-exchange entry),
  Accept allowing JSON, a JSON content type, the SDK's own Host/Origin checks passing, no
  authenticated user in the scope, a body under the SDK's limit.

Anything else goes to the SDK unchanged. For the common call (``params`` holding only the tool's name and its
arguments as an object, and the server's middleware only the gateway's own), the kernel's work is known to the
byte and is done here without it: the tool handler's own steps (``apps.kit.mcp``: the episode, ``invoke_async``,
the result's text), written as the kernel's handshake-era sieve writes a tool result (its keys in the sieve's
order, no ``resultType``) and the transport its response, the structured content being the step's kept JSON
(``Step.kept_json``: what pydantic-core writes for it) rather than written again. The kernel's validation, context,
middleware chain, sieve and response model cost a server about 70 us a call, more than all the rest of the call's
MCP handling; ``SessionCalls`` checks once, when built, that its bytes are the SDK's for every handshake-era
version (else every call goes through the kernel), and the hardening tests compare both paths' answers and steps.
The headers' checks (protocol version, Accept, Content-Type, Host, Origin: functions of those headers' values
alone) are made once per set of values.

The call keeps the session alive as the transport does: its
idle countdown starts again once no request is in flight (a session within a minute of expiring goes to
the SDK). Not carried over: a ``notifications/cancelled`` for a call answered here finds nothing to
cancel (the call runs to its end), and a server message sent from such a call on the session's
standalone stream would be dropped (operation tools send none).
"""

from __future__ import annotations

import logging
from typing import Any, Callable

import anyio
import pydantic_core
from mcp import types
from mcp.server.connection import Connection
from mcp.server.lowlevel import Server
from mcp.server.runner import ServerRunner
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import ErrorData, JSONRPCError, JSONRPCRequest, JSONRPCResponse, jsonrpc_message_adapter
from mcp_types.methods import serialize_server_result
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.requests import Request

from apps.kit.errors import OpError
from apps.kit.invoker import invoke_async
from apps.kit.mcp import error_result, error_text, result_text
from apps.kit.operation import Operation
from apps.kit.trajectory import encode

logger = logging.getLogger(__name__)

_JSON = b"application/json"
_HANDSHAKE = frozenset({"initialize", "notifications/initialized"})
# A session's idle countdown must have at least this long left for a call to be answered here (else the SDK answers).
_IDLE_MARGIN_S = 60.0
_TRANSPORT = TransportContext(kind="jsonrpc", can_send_request=False)  # what the SDK's dispatcher builds in JSON mode
_PLAIN = frozenset({"name", "arguments"})   # the params of a call answered without the kernel (see the module)
# The request headers the transport's checks read (each its first value, as Starlette's ``Headers.get``).
_CHECKED = (b"accept", b"content-type", b"host", b"origin", b"mcp-protocol-version")
_PASSED_MAX = 64   # sets of those headers' values kept as passing (clients send one or a few)


class _CallContext:
    """The request's dispatch context: JSON-response mode, so no back-channel (as the SDK's transport says)."""

    transport = _TRANSPORT
    can_send_request = False

    def __init__(self, request_id, metadata: ServerMessageMetadata):
        self.request_id, self.message_metadata = request_id, metadata
        self.cancel_requested = anyio.Event()

    async def notify(self, method: str, params=None, opts=None) -> None:
        """Dropped, as the SDK's message router drops a request's notifications in JSON mode."""

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Dropped likewise."""

    async def send_raw_request(self, method: str, params=None, opts=None) -> dict[str, Any]:
        raise NoBackChannelError(method)


class SessionCalls:
    """Answers ``tools/call`` for ready sessions of ``server``'s session ``manager`` (see the module): the tools of
    ``operations`` (by tool name), whose episode ``episode_of(scope)`` finds as the server's handler finds it."""

    def __init__(self, server: Server, manager, security: TransportSecuritySettings,
                 operations: dict[str, Operation], episode_of: Callable[[dict], Any]):
        self.server, self.manager, self.operations, self.episode_of = server, manager, operations, episode_of
        self.security = TransportSecurityMiddleware(security)
        self.ready: dict[str, ServerRunner] = {}  # session id -> a kernel over the session's negotiated state
        self._passed: set[tuple] = set()   # sets of checked header values that passed (``_headers_pass``)
        server.middleware.append(self._observe)
        self._own = [self._observe]   # the middleware a call answered without the kernel may have
        self.direct = shaped_as_sdk()   # whether such calls are answered without the kernel

    async def _observe(self, ctx, call_next):
        """A server middleware: a session is ready once the SDK has processed its ``notifications/initialized``;
        an ``initialize`` sent again in a session makes it not ready (until its next notification)."""
        result = await call_next(ctx)
        if ctx.method not in _HANDSHAKE or not isinstance(ctx.request, Request):
            return result
        session = ctx.request.headers.get("mcp-session-id")
        if session is None:
            return result
        if ctx.method == "initialize":
            self.ready.pop(session, None)
        elif ctx.request_id is None:
            version = ctx.session.protocol_version
            if version in HANDSHAKE_PROTOCOL_VERSIONS:
                connection = Connection.from_envelope(version, None, None)
                connection.session_id = session
                connection.client_params = ctx.session.client_params
                self.ready[session] = ServerRunner(self.server, connection, ctx.lifespan_context)
        return result

    def forget(self, session: str) -> None:
        self.ready.pop(session, None)

    def prune(self, live) -> None:
        """Forget sessions the SDK no longer holds (``live``: its session map)."""
        for session in [s for s in list(self.ready) if s not in live]:
            self.ready.pop(session, None)

    async def answer(self, scope, body: bytes, send, session: str) -> bool:
        """Answer the request if it is a fast one (then True); False leaves it, untouched, to the SDK."""
        runner = self.ready.get(session)
        if runner is None or "user" in scope or len(body) > self.manager.max_request_body_size:
            return False
        transport = self.manager._server_instances.get(session)  # the SDK's own map (no public accessor)
        if transport is None or transport.is_terminated:
            self.ready.pop(session, None)
            return False
        idle = transport.idle_scope
        if idle is not None and (idle.cancel_called or idle.deadline - anyio.current_time() < _IDLE_MARGIN_S
                                 or not isinstance(getattr(transport, "_requests_in_flight", None), int)):
            return False   # expiring (the SDK answers), or an SDK whose idle bookkeeping is not the one known here
        if not await self._headers_pass(scope):
            return False
        message = _tool_call(body, self.operations)
        if message is None:
            return False
        await self._run(runner, transport, scope, message, send, session)
        return True

    async def _headers_pass(self, scope) -> bool:
        """The transport's checks of a POST's headers, made once per set of the values they read."""
        key = _checked_values(scope["headers"])
        if key in self._passed:
            return True
        request = Request(scope)
        headers = request.headers
        version = headers.get("mcp-protocol-version")
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return False
        if not check_accept_headers(request)[0] or not _json_content(headers.get("content-type", "")):
            return False
        if await self.security.validate_request(request, is_post=True) is not None:
            return False
        if len(self._passed) >= _PASSED_MAX:
            self._passed.clear()
        self._passed.add(key)
        return True

    def _kernel_free(self, runner: ServerRunner, params: dict) -> bool:
        """Whether the call is one whose kernel work is done here (see the module)."""
        return (self.direct and params.keys() <= _PLAIN and isinstance(params.get("arguments", {}), (dict, type(None)))
                and self.server.middleware == self._own and "tools/call" not in self.server.cache_hints
                and runner.connection.initialize_accepted)

    async def _direct(self, scope, params: dict) -> bytes:
        """The tool handler's result (``apps.kit.mcp.build_server``'s ``on_call_tool``) as the kernel's sieve shapes
        it, as JSON."""
        op = self.operations[params["name"]]
        try:
            episode = self.episode_of(scope)
        except OpError as exc:
            return _tool_error(error_text(exc.to_dict()))
        step = await invoke_async(episode, op, params.get("arguments") or {}, "mcp")
        if step.error:
            return _tool_error(error_text(step.error))
        structured = op.structured(step.result)
        return _tool_result(result_text(structured), structured, step.kept_json, op.wrapped)

    async def _run(self, runner: ServerRunner, transport, scope, message: JSONRPCRequest, send, session: str) -> None:
        reply: JSONRPCResponse | JSONRPCError | None = None
        try:
            assert message.params is not None   # _tool_call took only a call with params
            if self._kernel_free(runner, message.params):
                data = _framed(message.id, await self._direct(scope, message.params))
            else:
                dctx = _CallContext(message.id, ServerMessageMetadata(request_context=Request(scope),
                                                                      can_send_request=False))
                result = await runner.on_request(dctx, message.method, message.params)
                reply = JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)
        except Exception as exc:   # the SDK dispatcher's mapping, its v1-compatible code 0 included
            error = handler_exception_to_error_data(exc)
            if error is None:
                logger.exception("handler for %r raised", message.method)
                error = ErrorData(code=0, message=str(exc))
            reply = JSONRPCError(jsonrpc="2.0", id=message.id, error=error)
        finally:
            # The idle countdown starts again when no request is in flight, as the transport starts it after its own
            # (the call began with at least _IDLE_MARGIN_S left, so it cannot run out while the call runs).
            idle, timeout = transport.idle_scope, self.manager.session_idle_timeout
            if idle is not None and timeout is not None and not transport._requests_in_flight:
                idle.deadline = anyio.current_time() + timeout
        if reply is not None:
            data = reply.model_dump_json(by_alias=True, exclude_unset=True).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", _JSON), (b"mcp-session-id", session.encode("latin-1")),
            (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})


def _checked_values(headers) -> tuple:
    """The first value of each header in ``_CHECKED`` (None where absent)."""
    first: dict[bytes, bytes] = {}
    for key, value in headers:
        if key in _CHECKED:
            first.setdefault(key, value)
    return tuple(first.get(key) for key in _CHECKED)


def _tool_error(text: str) -> bytes:
    """A tool error as the kernel's handshake-era sieve writes it."""
    return pydantic_core.to_json({"content": [{"text": text, "type": "text"}], "isError": True})


def _tool_result(text: str, structured: dict, kept: bytes | None, wrapped: bool) -> bytes:
    """A tool result as the kernel's handshake-era sieve writes it (its keys in the sieve's order, no ``resultType``):
    its structured content the step's kept JSON (``kept``, which is what pydantic-core writes for it:
    ``apps.kit.trajectory.encode``), not written again; ``structured`` written where the step keeps no JSON."""
    if kept is None:
        return pydantic_core.to_json({"content": [{"text": text, "type": "text"}], "isError": False,
                                      "structuredContent": structured})
    content = b'{"result":' + kept + b"}" if wrapped else kept
    return b'{"content":[{"text":' + pydantic_core.to_json(text) + b',"type":"text"}],"isError":false,' \
        b'"structuredContent":' + content + b"}"


def _framed(request_id, result: bytes) -> bytes:
    """The response the SDK's transport writes for ``result`` (JSON): ``JSONRPCResponse(...).model_dump_json(
    by_alias=True, exclude_unset=True)``, its fields in their order."""
    return b'{"jsonrpc":"2.0","id":' + pydantic_core.to_json(request_id) + b',"result":' + result + b"}"


# What ``shaped_as_sdk`` writes both ways: every kind of JSON value, text that needs escaping, a float of each form.
_SAMPLE = {"id": 7, "name": "Ünïcødé \u2028 \"quoted\" \\ \x1f\n", "amount": 45000.0, "tiny": 5e-324, "big": 1e300,
           "neg": -0.0, "list": [1, 2.5, None, True, False, {"nested": []}], "empty": {}, "none": None}


def shaped_as_sdk() -> bool:
    """Whether ``_framed`` of ``_tool_result`` and ``_tool_error`` is, byte for byte, what the SDK answers for the tool
    handler's results (a structured result, wrapped or not, and a tool error) in every handshake-era version (checked
    once: a newer SDK that wrote otherwise has every call go through its kernel)."""
    handled = []
    for structured, kept, wrapped in ((_SAMPLE, encode(_SAMPLE), False), ({"result": [_SAMPLE, 2]}, encode([_SAMPLE, 2]),
                                       True), (_SAMPLE, None, False)):
        text = result_text(structured)
        handled.append(({"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": False,
                         "resultType": "complete"}, _tool_result(text, structured, kept, wrapped)))
    error: types.CallToolResult = error_result({"type": "invalid", "message": "x", "field": "y"})
    handled.append((error.model_dump(by_alias=True, mode="json", exclude_none=True),
                    _tool_error(error_text({"type": "invalid", "message": "x", "field": "y"}))))
    try:
        same = all(_sdk_answer(version, returned, request_id) == _framed(request_id, mine)
                   for version in HANDSHAKE_PROTOCOL_VERSIONS for returned, mine in handled for request_id in (7, "s-7"))
    except Exception:   # an SDK whose sieve or models changed: its kernel answers
        same = False
    if not same:
        logger.warning("MCP tool calls go through the SDK's kernel: it writes their results otherwise than known here")
    return same


def _sdk_answer(version: str, returned: dict, request_id) -> bytes:
    """What the SDK answers for a handler's dumped result: its kernel's sieve, then its transport's response."""
    sieved = serialize_server_result("tools/call", version, dict(returned))
    return JSONRPCResponse(jsonrpc="2.0", id=request_id, result=sieved).model_dump_json(by_alias=True,
                                                                                       exclude_unset=True).encode()


def _json_content(content_type: str) -> bool:
    """The transport's own test (one of the type's comma-separated parts is exactly JSON) and its security
    middleware's (the type starts with JSON)."""
    parts = [part.strip() for part in content_type.split(";")[0].split(",")]
    return "application/json" in parts and content_type.lower().startswith("application/json")


def _tool_call(body: bytes, tools) -> JSONRPCRequest | None:
    """The body as the SDK parses it, if it is one ``tools/call`` of an operation's tool without ``_meta``."""
    try:
        raw = pydantic_core.from_json(body)
    except ValueError:
        return None
    if not isinstance(raw, dict) or raw.get("method") != "tools/call":
        return None
    params = raw.get("params")
    if not isinstance(params, dict) or "_meta" in params:
        return None
    name = params.get("name")
    if not isinstance(name, str) or name not in tools:
        return None
    try:
        message = jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValidationError:
        return None
    return message if isinstance(message, JSONRPCRequest) else None
