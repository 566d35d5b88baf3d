"""The MCP Inspector CLI (an independent client, installed by the setup script) lists and calls tools."""

import json
import os
import subprocess
from pathlib import Path

import httpx
from surfaces import CONTROL

INSPECTOR = Path(__file__).parents[2] / "tools" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"


def _inspect(url: str, tmp_path: Path, *args: str) -> dict:
    assert INSPECTOR.exists(), "run the setup script: it installs the MCP Inspector into tools/inspector"
    env = {**os.environ, "HOME": str(tmp_path)}
    done = subprocess.run([str(INSPECTOR), "--cli", url, "--transport", "http", *args],
                          capture_output=True, text=True, timeout=90, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_inspector_lists_and_calls_tools(live_server, world_dir, tmp_path):
    episode = httpx.post(f"{live_server}/v1/episodes", json={"world": str(world_dir)}, headers=CONTROL).json()
    listed = _inspect(episode["mcp_url"], tmp_path, "--method", "tools/list")
    assert "mail_reply_all" in {t["name"] for t in listed["tools"]}
    found = _inspect(episode["mcp_url"], tmp_path, "--method", "tools/call", "--tool-name", "mail_search",
                     "--tool-arg", "query=is:starred")
    assert found["structuredContent"]["messages"][0]["subject"] == "Globex renewal pricing"
    missing = _inspect(episode["mcp_url"], tmp_path, "--method", "tools/call", "--tool-name", "mail_get_message",
                       "--tool-arg", "message_id=999")
    assert missing["isError"] is True
