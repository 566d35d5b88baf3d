"""The gateway's MCP side, built when first needed rather than before the server answers.

Importing the MCP SDK (``mcp_types`` defines two protocol revisions' models) and building the server
(a tool per operation, each with its input and output schema) cost about 40% of ``officeworld up``'s
start. ``build()`` does both once, from any thread and idempotently: the first MCP request has it done in
a worker thread (about a second; the server goes on answering meanwhile) and then enters the SDK's
session manager, in a task of the lifespan's task group so that it runs until the server stops, as
before. With ``warm`` the lifespan starts the build in a thread at once instead, so that the first agent
seldom waits; it is off by default because the calls of those first seconds then share the GIL with it
(REST p50 ~1.3 ms became 3-25 ms and the longest call 0.2-0.7 s on a loaded 2-core machine), which is what a
benchmark or a load run measures first.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable

import anyio

from apps.kit.settings import settings

_BUILD_SWITCH_S = 0.0005
INSTRUCTIONS = ("You are working inside a company's apps (mail and more) as one of its employees. "
                "Tools are named <app>_<operation>; ids are scoped to your own account.")


def allowed_hosts() -> list[str]:
    extra = settings().hosts
    return ["127.0.0.1:*", "localhost:*", "[::1]:*", *extra]


@dataclass
class Built:
    server: Any                 # mcp.server.lowlevel.Server
    manager: Any                # its StreamableHTTPSessionManager
    handle_request: Callable    # the manager's ASGI entry
    calls: Any                  # simulator.gateway.mcp_calls.SessionCalls


class LazyMCP:
    """The MCP server over ``operations`` (and the ``extra`` browser tools), resolving each call's episode
    from the scope the gateway fills (``scope["episode"]``)."""

    def __init__(self, store, operations: list, extra=None):
        self.store, self.operations, self.extra = store, operations, extra
        self.built: Built | None = None
        self._lock = threading.Lock()
        self._group: anyio.abc.TaskGroup | None = None
        self._stop: anyio.Event | None = None
        self._starting: anyio.Lock | None = None
        self.running = False   # the session manager runs (entered by the first MCP request)

    def build(self) -> Built:
        """Import the SDK and build the server, its session manager and the fast call path (once). Done in a
        worker thread (the first MCP request's, or the warm-up), it takes the GIL for a second or more, and the
        server's thread waits for it at each turn: a shorter switch interval meanwhile lets it take it back
        sooner (the REST calls of those seconds), for a little more switching."""
        with self._lock:
            if self.built is None:
                interval = sys.getswitchinterval()
                sys.setswitchinterval(min(interval, _BUILD_SWITCH_S))
                try:
                    self.built = self._make()
                finally:
                    sys.setswitchinterval(interval)
            return self.built

    def _make(self) -> Built:
        from mcp.server.transport_security import TransportSecuritySettings

        from apps.kit.mcp import build_server
        from simulator.gateway.mcp_calls import SessionCalls

        store = self.store

        def episode_of(ctx):
            assert ctx.request is not None  # the HTTP transport attaches each call's request
            return store.get(ctx.request.scope["episode"])

        def scope_episode(scope):   # the same, from the request's scope (mcp_calls.SessionCalls)
            return store.get(scope["episode"])

        server = build_server(self.operations, episode_of, instructions=INSTRUCTIONS, extra=self.extra)
        hosts = allowed_hosts()
        security = TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=[f"http://{h}" for h in hosts])
        # JSON responses, not an SSE stream: a tool call is one request and one answer (the SDK's client takes both).
        server.streamable_http_app(transport_security=security, json_response=True)
        manager = server.session_manager
        # An operation's tools/call in a ready session is answered by the SDK's kernel without its message loop.
        calls = SessionCalls(server, manager, security, {op.qualified_name: op for op in self.operations}, scope_episode)
        # The gateway hands each MCP request to the session manager itself: the Starlette app around it only
        # routes its one path (the gateway already matched it) through two more middleware layers.
        return Built(server, manager, manager.handle_request, calls)

    @contextlib.asynccontextmanager
    async def lifespan(self, warm: bool = False):
        """Held by the server's lifespan: the task group the session manager will run in; with ``warm``, the
        build started at once in a thread (off by default: see ``build_app``)."""
        self._stop, self._starting = anyio.Event(), anyio.Lock()
        async with anyio.create_task_group() as group:
            self._group = group
            if warm and self.built is None:
                threading.Thread(target=self._warm, name="officeworld-mcp-warm", daemon=True).start()
            try:
                yield
            finally:
                self._group, self.running = None, False
                self._stop.set()   # the session manager's task leaves its run(); the group then exits

    def _warm(self) -> None:
        with contextlib.suppress(Exception):   # a failure here is raised again by the first MCP request's build
            self.build()

    async def ready(self) -> Built:
        """Built, and its session manager running (for an MCP request, on the server's loop)."""
        if self.running:
            assert self.built is not None
            return self.built
        if self._group is None or self._starting is None:
            raise RuntimeError("the MCP session manager runs in the server's lifespan: serve the app (or enter "
                               "TestClient as a context manager)")
        async with self._starting:
            built = self.built if self.built is not None else await anyio.to_thread.run_sync(self.build)
            if not self.running:
                await self._group.start(self._run_manager, built.manager)
                self.running = True
        return built

    async def _run_manager(self, manager, *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
        assert self._stop is not None
        async with manager.run():
            task_status.started()
            await self._stop.wait()
