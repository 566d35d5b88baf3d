"""Run with OpenEnv's venv: an ``MCPEnvironment`` with one FastMCP tool, served by ``create_app`` under
uvicorn in its own process, called over HTTP as its clients do: ``POST /reset`` and a JSON-RPC
``tools/call`` on ``POST /mcp``. Prints JSON."""

import json
import socket
import subprocess
import sys
import time

import httpx

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


def times(fn, repeat):
    for _ in range(10):
        fn()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1e6)
    samples.sort()
    return {"median_us": round(samples[len(samples) // 2], 1), "samples": repeat}


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
            if "error" in answer and answer["error"]:
                raise SystemExit(f"OpenEnv probe failed: {answer}")
            print(json.dumps({
                "health": times(lambda: http.get("/health"), repeat),
                "reset": times(lambda: http.post("/reset", json={}), repeat),
                "mcp_tool_call": times(lambda: http.post("/mcp", json=call), repeat),
            }))
    finally:
        child.terminate()
        child.wait(timeout=10)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
