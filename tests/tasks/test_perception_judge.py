"""The judge path for perception: where no answer comparator can read the answer off a description (a total of
the deals it lists), a calibrated judge decides whether the question can be answered from it alone. Measured
with `tasks agreement --judge` against a stand-in OpenAI-compatible server started here; a judge not measured,
or under the bar, leaves the perception ungradable (None), never the reward."""

from __future__ import annotations

import json
import re

import pytest
from stand_in_model import StandIn, judge_by
from typer.testing import CliRunner

from simulator.cli.tasks import cli
from simulator.store.episodes import EpisodeStore
from simulator.tasks.catalog import task_catalog
from tasks.judge import Judge
from tasks.qa.attempt import call

TASK = "crm-perceive-negotiation-total"
AMOUNTS = {174800, 132000, 142000, 78660, 40000, 166000, 147000}
TOTAL = 880460


def careful(work: str) -> str:
    """The rule a good judge of this rubric follows: every deal's amount (or the total), and no other amount."""
    said = {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", work)}
    amounts = {n for n in said if n >= 1000}
    enough = AMOUNTS <= said or TOTAL in said
    return "pass" if enough and amounts <= AMOUNTS | {TOTAL} else "fail"


@pytest.fixture
def endpoint():
    """/v1/chat/completions on 127.0.0.1: model "careful" follows the rule, "lax" passes everything."""
    with StandIn(judge_by(careful)) as stand_in:
        yield stand_in.url, stand_in.requests


@pytest.fixture(scope="module")
def catalog():
    return task_catalog(EpisodeStore(), corpus="off")


def measured(monkeypatch, tmp_path, url: str, model: str):
    monkeypatch.setenv("OFFICEWORLD_JUDGE_URL", url)
    monkeypatch.setenv("OFFICEWORLD_JUDGE_MODEL", model)
    monkeypatch.setenv("OFFICEWORLD_CACHE_DIR", str(tmp_path / "cache"))
    return CliRunner().invoke(cli, ["agreement", TASK, "--judge"])


def graded(catalog, judge, description: str | None = None):
    """The task's oracle (its description replaced by ``description``), graded with ``judge``."""
    task = catalog.get(TASK)
    calls = [c if c.op != "task.describe_view" or description is None else call(c.op, description=description)
             for c in task.oracle]
    run = catalog.start(TASK)
    assert not [s.error for s in catalog.engine.run_calls(run, calls) if s.error]
    reward = catalog.finish(run.episode, judge=judge)
    return next(c for c in reward.criteria if c.id == "saw"), reward


def test_a_calibrated_judge_decides_whether_the_description_answers_the_question(monkeypatch, tmp_path, endpoint,
                                                                                catalog):
    url, asked = endpoint
    result = measured(monkeypatch, tmp_path, url, "careful")
    assert result.exit_code == 0, result.output
    [calibration] = json.loads(result.output)
    assert (calibration["criterion"], calibration["accuracy"], calibration["counted"]) == ("saw", 1.0, True)
    judge = Judge(url, "careful")
    saw, reward = graded(catalog, judge)
    assert saw.status == "pass" and "rule said pass" in saw.message
    assert (reward.total, reward.perception) == (1.0, 1.0)
    short = "Negotiation: Globex $174,800; Cyberdyne $132,000; Umbrella $142,000; Blue Sun $40,000."
    saw, reward = graded(catalog, judge, short)
    assert saw.status == "fail" and (reward.total, reward.perception) == (1.0, 0.0)   # the reward is not moved
    before = len(asked)
    saw, reward = graded(catalog, judge, "Seven deals in Negotiation, $174,800 the largest, $9,999 the smallest.")
    assert saw.status == "fail" and "9999" in saw.message and len(asked) == before   # no need to ask


def test_a_judge_not_measured_or_under_the_bar_leaves_the_perception_ungradable_not_the_reward(monkeypatch, tmp_path,
                                                                                                endpoint, catalog):
    url, _ = endpoint
    assert measured(monkeypatch, tmp_path, url, "lax").exit_code == 1   # passes the bad descriptions: not counted
    for judge in (Judge(url, "lax"), Judge(url, "never-measured"), None):
        saw, reward = graded(catalog, judge)
        assert saw.status == "na", saw.message
        assert (reward.total, reward.gradable, reward.perception) == (1.0, True, None)
