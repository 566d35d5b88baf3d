"""A stand-in OpenAI-compatible chat endpoint on 127.0.0.1 (a free port), for model-backed co-workers and judges.

``answer`` turns each request's JSON body into the reply's text; every body is kept in ``requests``.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import ThreadingHTTPServer
from typing import Callable

from stand_in_http import Quiet, send_json


class StandIn:
    def __init__(self, answer: Callable[[dict], str]):
        self.answer = answer
        self.requests: list[dict] = []
        stand_in = self

        class Handler(Quiet):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                stand_in.requests.append(body)
                if self.path != "/v1/chat/completions":
                    self.send_response(404)
                    self.end_headers()
                    return
                send_json(self, {"choices": [{"message": {"role": "assistant", "content": stand_in.answer(body)}}]})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "StandIn":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def actions(*items: dict) -> str:
    """A reply proposing ``items`` (``{"op", "args"}``)."""
    return json.dumps({"actions": list(items)})


def judge_by(rule: Callable[[str], str]) -> Callable[[dict], str]:
    """A judge's answer: model "careful" gives ``rule``'s verdict on the ``<work>`` the judge was shown, any other
    model ("lax") passes everything."""
    def judge(body: dict) -> str:
        work = re.search(r"<work>\n(.*)\n</work>", body["messages"][1]["content"], re.S).group(1)
        verdict = rule(work) if body["model"] == "careful" else "pass"
        return json.dumps({"verdict": verdict, "reason": f"rule said {verdict}"})
    return judge
