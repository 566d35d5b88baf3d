"""Run with OpenEnv's venv: an ``MCPEnvironment`` with one FastMCP tool, served by ``create_app`` under
uvicorn in its own process, called the way OpenEnv's users call it: its own ``MCPToolClient`` (reset and
``call_tool`` over the ``/ws`` websocket, the client's default), the same client in production mode (a
JSON-RPC ``tools/call`` POSTed to ``/mcp`` in a session), and plain HTTP (``/health``, ``POST /reset``,
a session-less ``tools/call``, which builds a fresh environment per request). Prints JSON.

The environment is a stub (its reset does nothing, its tool reads a dict): every figure here is
OpenEnv's own overhead, a lower bound for any real environment served by it."""

import asyncio
import json
import socket
import subprocess
import sys
import time

import httpx
from openenv.core.mcp_client import MCPToolClient

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

WARMUP = 10


def summary(samples: list[float], what: str) -> dict:
    samples = sorted(samples)
    return {"median_us": round(samples[len(samples) // 2], 1),
            "p90_us": round(samples[int(len(samples) * 0.9) - 1], 1), "samples": len(samples), "measured": what}


def times(fn, repeat: int, what: str) -> dict:
    for _ in range(WARMUP):
        fn()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1e6)
    return summary(samples, what)


async def atimes(fn, repeat: int, what: str) -> dict:
    for _ in range(WARMUP):
        await fn()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - started) * 1e6)
    return summary(samples, what)


async def client_figures(url: str, repeat: int) -> dict:
    async with MCPToolClient(base_url=url) as env:
        await env.reset()
        answer = await env.call_tool("get_message", message_id=1)
        if not (isinstance(answer, dict) and answer.get("id") == 1):
            raise SystemExit(f"OpenEnv probe: call_tool answered {answer!r}")
        out = {
            "client_reset": await atimes(env.reset, repeat, "MCPToolClient.reset() over /ws (the client's default)"),
            "client_call_tool": await atimes(lambda: env.call_tool("get_message", message_id=1), repeat,
                                             "MCPToolClient.call_tool over /ws (the client's default)"),
        }
    production = MCPToolClient(base_url=url)
    production.use_production_mode = True  # JSON-RPC POST /mcp in a session made once
    try:
        answer = await production.call_tool("get_message", message_id=1)
        if not (isinstance(answer, dict) and answer.get("id") == 1):
            raise SystemExit(f"OpenEnv probe: production call_tool answered {answer!r}")
        out["mcp_session_call"] = await atimes(
            lambda: production.call_tool("get_message", message_id=1), repeat,
            "MCPToolClient.call_tool in production mode: JSON-RPC tools/call POSTed to /mcp in a session")
    finally:
        await production.close()
    return out


def main(repeat: int, workdir: str) -> None:
    with open(f"{workdir}/openenv_server.py", "w") as f:
        f.write(SERVER)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    child = subprocess.Popen([sys.executable, "-m", "uvicorn", "openenv_server:app", "--host", "127.0.0.1",
                              "--port", str(port), "--log-level", "warning"], cwd=workdir)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        with httpx.Client(base_url=url) as http:
            call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "get_message", "arguments": {"message_id": 1}}}
            answer = http.post("/mcp", json=call).json()
            if answer.get("error"):
                raise SystemExit(f"OpenEnv probe failed: {answer}")
            out = {
                "health": times(lambda: http.get("/health"), repeat, "GET /health (httpx, keep-alive)"),
                "http_reset": times(lambda: http.post("/reset", json={}), repeat,
                                    "POST /reset (stateless: builds, resets and closes an environment)"),
                "mcp_stateless_call": times(lambda: http.post("/mcp", json=call), repeat,
                                            "JSON-RPC tools/call POSTed to /mcp without a session "
                                            "(builds an environment per request)"),
            }
        out.update(asyncio.run(client_figures(url, repeat)))
        print(json.dumps(out))
    finally:
        child.terminate()
        child.wait(timeout=10)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
