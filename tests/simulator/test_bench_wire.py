"""The load run's lean HTTP/1.1 client (simulator.bench.wire) and its agents (simulator.bench.load.Agent),
against the real server on a loopback port, plus a tiny server that closes idle connections and chunks."""

import asyncio

import pytest
from surfaces import CONTROL

from simulator.bench.load import Agent
from simulator.bench.wire import Connection, ConnectionLost, on_uvloop


def test_rest_control_and_errors_over_one_kept_connection(live_server, world_dir):
    async def go():
        control = Connection.to(live_server, {"authorization": CONTROL["Authorization"]})
        created = await control.request("POST", "/v1/episodes", {"world": str(world_dir)})
        assert created.status == 201 and created.headers["content-type"] == "application/json"
        episode = created.json()["id"]
        conn = Connection.to(live_server)
        found = await conn.request("POST", f"/episodes/{episode}/api/mail/search", {"query": "renewal"})
        assert found.status == 200 and int(found.headers["content-length"]) == len(found.body)
        assert "Globex renewal pricing" in found.body.decode()
        wrong = await conn.request("POST", f"/episodes/{episode}/api/mail/get_message", {"message_id": "x"})
        assert wrong.status == 422 and wrong.json()["error"]["field"] == "message_id"
        missing = await conn.request("POST", "/episodes/nope/api/mail/search", {"query": "x"})
        assert missing.status == 404
        health = await conn.request("GET", "/health")   # no body sent, the same connection still
        assert health.status == 200 and health.json()["episodes"] == 1
        steps = (await control.request("GET", f"/v1/episodes/{episode}/trajectory")).json()["steps"]
        conn.close()
        control.close()
        return steps
    steps = asyncio.run(go())
    assert [s["operation"] for s in steps] == ["search", "get_message"]


def test_an_agent_opens_an_mcp_session_calls_tools_and_ends_it(live_server, world_dir):
    async def go():
        control = Connection.to(live_server, {"authorization": CONTROL["Authorization"]})
        episode = (await control.request("POST", "/v1/episodes", {"world": str(world_dir)})).json()["id"]
        agent = Agent(live_server, episode)
        assert await agent.open_mcp()
        assert agent.session is not None and agent.session["mcp-session-id"]
        assert await agent.mcp("mail", "search", {"query": "renewal"})
        assert not await agent.mcp("mail", "get_message", {"message_id": 999999})   # a tool error: isError
        assert await agent.rest("mail", "star", {"message_ids": [1]})
        await agent.close_mcp()
        after = await agent.conn.request("POST", f"/episodes/{episode}/mcp", {
            "jsonrpc": "2.0", "id": 9, "method": "tools/list"}, agent.session)
        steps = (await control.request("GET", f"/v1/episodes/{episode}/trajectory")).json()["steps"]
        return after.status, steps
    status, steps = asyncio.run(go())
    assert status == 404   # the session was ended
    assert [(s["operation"], s["surface"]) for s in steps] == [("search", "mcp"), ("get_message", "mcp"), ("star", "rest")]


async def _tiny_server(answers: list[bytes]):
    """Answers each request with the next of ``answers``, then closes the connection (as an idle keep-alive ends)."""
    async def handle(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(answers.pop(0))
        await writer.drain()
        writer.close()
    return await asyncio.start_server(handle, "127.0.0.1", 0)


def test_chunked_bodies_and_a_connection_closed_while_idle():
    async def go():
        server = await _tiny_server([b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
                                     b"HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok"])
        conn = Connection("127.0.0.1", server.sockets[0].getsockname()[1])
        first = await conn.request("GET", "/")
        await asyncio.sleep(0.05)   # the server has closed that connection meanwhile
        second = await conn.request("POST", "/", b"{}")   # sent again once, on a new connection
        server.close()
        return first, second
    first, second = asyncio.run(go())
    assert (first.status, first.body) == (200, b"abcde")
    assert (second.status, second.body) == (201, b"ok")


def test_a_new_connection_closed_before_an_answer_is_lost():
    async def go():
        server = await _tiny_server([b""])
        conn = Connection("127.0.0.1", server.sockets[0].getsockname()[1])
        try:
            with pytest.raises(ConnectionLost):
                await conn.request("GET", "/")
        finally:
            server.close()
    asyncio.run(go())


def test_the_load_clients_run_on_uvloop():
    async def loop_kind() -> str:
        await asyncio.sleep(0)
        return type(asyncio.get_running_loop()).__module__

    assert on_uvloop(loop_kind()).startswith("uvloop")
