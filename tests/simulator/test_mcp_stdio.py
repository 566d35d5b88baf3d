"""``officeworld mcp`` serves one fresh episode over stdio to the official MCP client."""

import asyncio
import os
import sys

from mcp import Client, StdioServerParameters


def test_stdio_server_lists_and_calls_tools(world_dir, tmp_path):
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "simulator.cli", "mcp", "--world", str(world_dir)],
        env={**os.environ, "OFFICEWORLD_CACHE_DIR": str(tmp_path / "cache")},
    )

    async def session():
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            sent = await client.call_tool("mail_send", {"to": ["mei@small.test"], "subject": "Hi", "body": "Hello"})
            found = await client.call_tool("mail_search", {"query": "in:sent subject:hi"})
            return names, sent, found

    names, sent, found = asyncio.run(session())
    assert "mail_search" in names and "mail_forward" in names
    assert not sent.is_error
    assert found.structured_content["total"] == 1
    assert found.structured_content["messages"][0]["to"] == ["mei@small.test"]
