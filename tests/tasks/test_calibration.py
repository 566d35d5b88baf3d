"""Judge calibration against a stand-in OpenAI-compatible server started here: `tasks agreement --judge`
reports accuracy and false positives on the labelled set, and only a judge at the bar is counted."""

from __future__ import annotations

import json

import pytest
from stand_in_model import StandIn, judge_by
from typer.testing import CliRunner

from simulator.cli.tasks import cli
from tasks.checks import Grading
from tasks.judge import Judge
from tasks.loader import load_suites
from tasks.records import State
from tasks.reward import CriterionScore, combine

TASK = "legal-memo-ridgeway-consent"
BAD_SIGNS = ("does not need", "may not", "board", "formality")


def careful(work: str) -> str:
    """A rule a good judge of this rubric agrees with: the section, the consent, the 60 days; no reversal."""
    ok = all(s in work for s in ("14.2", "consent", "notice")) and ("60" in work or "sixty" in work)
    return "pass" if ok and not any(b in work for b in BAD_SIGNS) else "fail"


@pytest.fixture
def endpoint():
    """An OpenAI-compatible /v1/chat/completions on 127.0.0.1: model "careful" follows the rule, "lax" passes all."""
    with StandIn(judge_by(careful)) as stand_in:
        yield stand_in.url, stand_in.requests


def _agreement(monkeypatch, tmp_path, url: str, model: str):
    monkeypatch.setenv("OFFICEWORLD_JUDGE_URL", url)
    monkeypatch.setenv("OFFICEWORLD_JUDGE_MODEL", model)
    monkeypatch.setenv("OFFICEWORLD_CACHE_DIR", str(tmp_path / "cache"))
    return CliRunner().invoke(cli, ["agreement", TASK, "--judge"])


def _memo_grading(memo: str) -> tuple[Grading, object]:
    """The memo task with its judged criterion read from the final answer (same rubric and reference, so
    the same calibration), graded on a state that holds ``memo`` as that answer."""
    import sqlite3

    task = next(t for t in load_suites() if t.id == TASK).model_copy(deep=True)
    spec = next(c.judge for c in task.criteria if c.id == "judged")
    spec.target, spec.from_ = "answer", None
    conn = sqlite3.connect(":memory:")
    conn.execute("create table task_answer (id integer primary key, author, answer, status, submitted_at)")
    conn.execute("insert into task_answer (author, answer, status) values ('a', ?, 'done')", (memo,))
    return Grading(task, {}, State({"task": conn}), State({"task": conn}), []), spec


def test_a_judge_that_agrees_is_measured_recorded_and_counted(monkeypatch, tmp_path, endpoint):
    url, asked = endpoint
    result = _agreement(monkeypatch, tmp_path, url, "careful")
    assert result.exit_code == 0, result.output
    [measured] = json.loads(result.output)
    assert (measured["criterion"], measured["accuracy"], measured["false_positive_rate"], measured["counted"]) == \
        ("judged", 1.0, 0.0, True)
    assert measured["good"] >= 3 and measured["bad"] >= 5 and len(asked) == measured["items"]
    g, spec = _memo_grading("Under s.14.2 the change of control needs Ridgeway's consent; else 60 days' notice.")
    assert Judge(url, "careful").check(spec, g).status == "pass"


def test_a_judge_under_the_bar_is_not_counted_and_a_graded_criterion_is_then_ungradable(monkeypatch, tmp_path, endpoint):
    url, _ = endpoint
    result = _agreement(monkeypatch, tmp_path, url, "lax")
    assert result.exit_code == 1
    [measured] = json.loads(result.output)
    assert measured["false_positive_rate"] == 1.0 and not measured["counted"] and measured["disagreements"]
    g, spec = _memo_grading("Section 14.2 does not need Ridgeway's consent.")
    checked = Judge(url, "lax").check(spec, g)
    assert checked.status == "na" and "under the bar" in checked.message
    assert Judge(url, "never-measured").check(spec, g).status == "na"
    reward = combine(TASK, 2, [CriterionScore(id="memo_sent", role="goal", weight=1, status="pass", score=1),
                               CriterionScore(id="judged", role="goal", weight=1, status=checked.status, score=0,
                                              message=checked.message)], [])
    assert reward.total is None and not reward.gradable


def test_no_judge_configured_is_said_plainly(monkeypatch, tmp_path):
    monkeypatch.delenv("OFFICEWORLD_JUDGE_URL", raising=False)
    result = CliRunner().invoke(cli, ["agreement", TASK, "--judge"])
    assert result.exit_code == 2 and "OFFICEWORLD_JUDGE_URL" in result.output
