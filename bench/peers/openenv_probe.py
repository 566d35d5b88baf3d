"""Run with OpenEnv's venv: an ``MCPEnvironment`` with one FastMCP tool, served by ``create_app`` under
uvicorn in its own process (its start timed until ``/health`` answers, as ``officeworld up``'s is), called
the way OpenEnv's users call it: its own ``MCPToolClient`` (reset and
``call_tool`` over the ``/ws`` websocket, the client's default), the same client in production mode (a
JSON-RPC ``tools/call`` POSTed to ``/mcp`` in a session), and plain HTTP (``/health``, ``POST /reset``,
a session-less ``tools/call``, which builds a fresh environment per request). Then the clients that
measure officeworld's server too (``ours_probe.py``), so both servers meet the same client: a bare
JSON-RPC ``tools/call`` in a session from httpx and from Node's fetch (``ts_client.cjs``), each with the
server's CPU per call read from /proc, and the official Python and TypeScript SDK clients, which
OpenEnv's ``/mcp`` refuses (it is OpenEnv's own JSON-RPC endpoint, not MCP's streamable HTTP: no
``initialize``, no ``Mcp-Session-Id``); those figures say why. Prints JSON.

The environment is a stub (its reset does nothing, its tool reads a dict): every figure here is
OpenEnv's own overhead, a lower bound for any real environment served by it."""

import asyncio
import json
import socket
import subprocess
import sys
import time

import httpx
from common import atimes, jsonrpc_call, server_cpu_s, times, ts_client
from openenv.core.mcp_client import MCPToolClient

TOOL, ARGS = "get_message", {"message_id": 1}

SERVER = '''
from fastmcp import FastMCP
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation
from openenv.core.env_server.types import Observation, State

MESSAGES = {i: {"id": i, "subject": f"Message {i}", "body": "hello " * 50} for i in range(1, 200)}


class MailEnv(MCPEnvironment):
    def __init__(self):
        mcp = FastMCP("mail")

        @mcp.tool
        def get_message(message_id: int) -> dict:
            """Read one message."""
            return MESSAGES[message_id]

        super().__init__(mcp)
        self._state = State(episode_id="e", step_count=0)

    def reset(self, seed=None, episode_id=None, **kwargs):
        self._state = State(episode_id=episode_id or "e", step_count=0)
        return Observation(done=False, reward=0.0)

    def _step_impl(self, action, timeout_s=None, **kwargs):
        return Observation(done=False, reward=0.0)

    @property
    def state(self):
        return self._state


app = create_app(MailEnv, CallToolAction, CallToolObservation, env_name="mail")
'''

async def client_figures(url: str, repeat: int, pid: int) -> dict:
    async with MCPToolClient(base_url=url) as env:
        await env.reset()
        answer = await env.call_tool("get_message", message_id=1)
        if not (isinstance(answer, dict) and answer.get("id") == 1):
            raise SystemExit(f"OpenEnv probe: call_tool answered {answer!r}")
        out = {
            "client_reset": await atimes(env.reset, repeat, "MCPToolClient.reset() over /ws (the client's default)"),
            "client_call_tool": await atimes(lambda: env.call_tool("get_message", message_id=1), repeat,
                                              "MCPToolClient.call_tool over /ws (the client's default)", pid),
        }
    production = MCPToolClient(base_url=url)
    production.use_production_mode = True  # JSON-RPC POST /mcp in a session made once
    try:
        answer = await production.call_tool("get_message", message_id=1)
        if not (isinstance(answer, dict) and answer.get("id") == 1):
            raise SystemExit(f"OpenEnv probe: production call_tool answered {answer!r}")
        out["mcp_session_call"] = await atimes(
            lambda: production.call_tool("get_message", message_id=1), repeat,
            "MCPToolClient.call_tool in production mode: JSON-RPC tools/call POSTed to /mcp in a session", pid)
    finally:
        await production.close()
    return out


async def official_client(url: str) -> dict:
    """The official Python SDK's ``ClientSession`` over streamable HTTP at ``/mcp``: OpenEnv's ``/mcp`` is its
    own JSON-RPC endpoint (``tools/list``, ``tools/call``, ``openenv/session/*``), not MCP's transport, so
    the handshake is refused; the figure says how."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    what = "official Python SDK ClientSession over streamable HTTP at /mcp"
    try:
        async with asyncio.timeout(20):
            async with streamable_http_client(f"{url}/mcp") as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool(TOOL, ARGS)
    except BaseException as exc:  # an ExceptionGroup from the transport's task group, or McpError
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        return {"error": f"{type(exc).__name__}: {exc}"[:400], "measured": what}
    return {"error": "the handshake unexpectedly worked: measure it", "measured": what}


def same_clients(http: httpx.Client, url: str, repeat: int, pid: int) -> dict:
    """The clients officeworld's side is measured with too (``ours_probe.py``): a bare JSON-RPC tools/call
    in a session from httpx and from Node's fetch, and both official SDK clients (refused here)."""
    made = http.post("/mcp", json={"jsonrpc": "2.0", "id": 0, "method": "openenv/session/create", "params": {}})
    session = made.json()["result"]["session_id"]
    call, headers = jsonrpc_call(TOOL, ARGS, session_id=session), {"content-type": "application/json"}
    answer = http.post("/mcp", content=call, headers=headers).json()
    if answer.get("error") or answer["result"].get("isError"):
        raise SystemExit(f"OpenEnv probe: JSON-RPC tools/call in a session answered {answer}")
    out = {"jsonrpc_session_call": times(lambda: http.post("/mcp", content=call, headers=headers), repeat,
                                         "httpx (keep-alive): a JSON-RPC tools/call POSTed to /mcp, in the session "
                                         "openenv/session/create made (session_id in params)", pid)}
    # Its sessions are few (the /ws client needs one): each is closed when measured.
    http.post("/mcp", json={"jsonrpc": "2.0", "id": 0, "method": "openenv/session/close",
                            "params": {"session_id": session}}).raise_for_status()
    out["ts_jsonrpc_session_call"] = ts_client("jsonrpc", f"{url}/mcp", TOOL, ARGS, repeat, "openenv", pid=pid)
    out["official_python_client_call"] = asyncio.run(official_client(url))
    out["ts_sdk_call"] = ts_client("sdk", f"{url}/mcp", TOOL, ARGS, repeat)
    return out


def serve(workdir: str) -> tuple[subprocess.Popen, str]:
    """The stub environment under uvicorn on a free loopback port, as its users serve it; the child and its URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    child = subprocess.Popen([sys.executable, "-m", "uvicorn", "openenv_server:app", "--host", "127.0.0.1",
                              "--port", str(port), "--log-level", "warning"], cwd=workdir)
    return child, f"http://127.0.0.1:{port}"


def wait_ready(child: subprocess.Popen, url: str, timeout: float = 60.0) -> None:
    """Until ``/health`` answers 200, asked every 50 ms as ``simulator.bench.served.server_process`` asks
    ``officeworld up`` (so both servers' start is read at the same grain)."""
    deadline = time.monotonic() + timeout
    while True:
        if child.poll() is not None:
            raise SystemExit(f"OpenEnv's server exited with {child.returncode}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit("OpenEnv's server did not answer /health in time")
        time.sleep(0.05)


def stop(child: subprocess.Popen) -> None:
    child.terminate()
    child.wait(timeout=10)


def server_ready(workdir: str, starts: int = 3) -> dict:
    """The stub environment's server started ``starts`` times (after one start that may write bytecode):
    wall seconds from the process's start until ``/health`` answers, and its CPU by then, as
    ``simulator.bench.scale.server_ready`` measures ``officeworld up``; the best of them."""
    runs = []
    for i in range(starts + 1):
        started = time.perf_counter()
        child, url = serve(workdir)
        try:
            wait_ready(child, url)
            wall = time.perf_counter() - started
            cpu = server_cpu_s(child.pid)
        finally:
            stop(child)
        if i:
            runs.append({"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)})
    return {"best_wall_s": min(r["wall_s"] for r in runs), "best_cpu_s": min(r["cpu_s"] for r in runs), "starts": runs,
            "measured": "uvicorn serving the stub MCPEnvironment (one FastMCP tool over a dict), from the "
                        "process's start until /health answers"}


def main(repeat: int, workdir: str) -> None:
    with open(f"{workdir}/openenv_server.py", "w") as f:
        f.write(SERVER)
    ready = server_ready(workdir)
    child, url = serve(workdir)
    try:
        wait_ready(child, url)
        with httpx.Client(base_url=url) as http:
            call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "get_message", "arguments": {"message_id": 1}}}
            answer = http.post("/mcp", json=call).json()
            if answer.get("error"):
                raise SystemExit(f"OpenEnv probe failed: {answer}")
            out = {
                "server_ready": ready,
                "health": times(lambda: http.get("/health"), repeat, "GET /health (httpx, keep-alive)"),
                "http_reset": times(lambda: http.post("/reset", json={}), repeat,
                                    "POST /reset (stateless: builds, resets and closes an environment)"),
                "mcp_stateless_call": times(lambda: http.post("/mcp", json=call), repeat,
                                            "JSON-RPC tools/call POSTed to /mcp without a session "
                                            "(builds an environment per request)"),
            }
            out.update(same_clients(http, url, repeat, child.pid))
        out.update(asyncio.run(client_figures(url, repeat, child.pid)))
        print(json.dumps(out))
    finally:
        stop(child)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
