"""The optional judge: strict JSON verdicts over an OpenAI-compatible endpoint; anything else is an error."""

from __future__ import annotations

import json

import httpx
import pytest

from tasks.checks import Grading
from tasks.judge import Judge, verdict
from tasks.model import JudgeCheck, Task
from tasks.records import State


class FakeEndpoint:
    """An OpenAI-compatible chat endpoint that replies with ``content`` and counts the calls."""

    def __init__(self, content):
        self.content, self.requests = content, []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": self.content}}]})


def grading(answer: str) -> Grading:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("create table task_answer (id integer primary key, author, answer, status, submitted_at)")
    conn.execute("insert into task_answer (author, answer, status) values ('a', ?, 'done')", (answer,))
    task = Task.model_validate({"id": "t", "world": "w", "prompt": "p", "criteria": [
        {"id": "c", "judge": {"rubric": "r"}}], "oracle": [{"op": "task.submit_answer", "args": {}}]})
    return Grading(task, {}, State({"task": conn}), State({"task": conn}), [])


def judge_with(content) -> tuple[Judge, FakeEndpoint]:
    endpoint = FakeEndpoint(content)
    client = httpx.Client(transport=httpx.MockTransport(endpoint))
    return Judge("http://judge.test/v1", "m", client=client, require_calibration=False), endpoint


def test_a_clear_verdict_is_used_and_cached():
    judge, endpoint = judge_with('{"verdict": "pass", "reason": "cites 14.2"}')
    spec = JudgeCheck(rubric="cites the clause", reference="s.14.2")
    first, second = judge.check(spec, grading("see 14.2")), judge.check(spec, grading("see 14.2"))
    assert first.status == second.status == "pass" and len(endpoint.requests) == 1
    sent = endpoint.requests[0]
    assert sent["temperature"] == 0 and "<work>\nsee 14.2\n</work>" in sent["messages"][1]["content"]


@pytest.mark.parametrize("content", ["", "   ", "yes", '{"verdict": "PASS!"}', '{"verdict": "pass"}',
                                     '{"verdict": "maybe", "reason": "x"}', "[1, 2]", None])
def test_a_malformed_or_empty_verdict_is_an_error_never_a_pass(content):
    assert verdict(content).status == "error"
    judge, _ = judge_with(content)
    assert judge.check(JudgeCheck(rubric="r"), grading("text")).status == "error"


def test_an_unreachable_judge_is_an_error_and_an_empty_answer_fails_without_asking():
    def down(request):
        raise httpx.ConnectError("refused")

    judge = Judge("http://judge.test/v1", "m", client=httpx.Client(transport=httpx.MockTransport(down)),
                  require_calibration=False)
    assert judge.check(JudgeCheck(rubric="r"), grading("text")).status == "error"
    assert judge.check(JudgeCheck(rubric="r"), grading("   ")).status == "fail"
