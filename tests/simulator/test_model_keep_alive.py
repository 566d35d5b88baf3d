"""The model client lets go of an idle connection before a model server closes it (``runner/model.KEEP_IDLE_S``).

vLLM and SGLang serve under uvicorn, which keeps an idle connection 5 s; httpx kept one 5 s too, so a completion
asked on a connection idle for almost 5 s could meet the server closing it and fail as a model error."""

import asyncio
import time

import uvicorn

from simulator.runner.model import KEEP_IDLE_S, Model, complete, model_http
from simulator.service.serve import serve_in_thread

_REPLY = b'{"choices": [{"message": {"role": "assistant", "content": "ok"}}]}'


class _Endpoint:
    """A chat-completions stand-in that notes the client port of every request (one port per connection)."""

    def __init__(self):
        self.ports: list[int] = []

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return
        self.ports.append(scope["client"][1])
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(_REPLY)).encode())]})
        await send({"type": "http.response.body", "body": _REPLY})


def test_an_idle_connection_is_let_go_before_a_uvicorn_server_closes_it():
    assert KEEP_IDLE_S < uvicorn.Config(app=None).timeout_keep_alive   # the model servers' own default
    endpoint = _Endpoint()

    async def asks(url: str) -> list[dict]:
        model = Model(url + "/v1")
        async with model_http(4) as http:
            first = await complete(http, model, [{"role": "user", "content": "hi"}], [])
            again = await complete(http, model, [{"role": "user", "content": "hi"}], [])   # reused at once
            time.sleep(KEEP_IDLE_S + 0.5)
            late = await complete(http, model, [{"role": "user", "content": "hi"}], [])
            return [first, again, late]

    with serve_in_thread(endpoint) as url:
        replies = asyncio.run(asks(url))
    assert [r["content"] for r in replies] == ["ok"] * 3
    assert endpoint.ports[0] == endpoint.ports[1] != endpoint.ports[2]
