"""The task check: sound tasks pass every gate through every surface; weak ones are caught and quarantined."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

from qa_suite import GOOD, UNFAIR, WEAK, write_suite  # noqa: E402

from simulator.cli.tasks import cli  # noqa: E402
from simulator.store.episodes import EpisodeStore  # noqa: E402
from simulator.tasks.check import catalog_over  # noqa: E402
from tasks.qa import check as qa_check  # noqa: E402
from tasks.qa.check import Checker  # noqa: E402
from tasks.qa.stats import kendall_tau, runs_needed, wilson_upper  # noqa: E402
from tasks.quarantine import load_quarantine  # noqa: E402


def _check(root: Path, *args: str):
    result = CliRunner().invoke(cli, ["check", "--root", str(root), "--no-top-up", "--report", str(root / "out"), *args])
    report = json.loads((root / "out" / "tasks-check.json").read_text()) if (root / "out").exists() else None
    return result, report


def _task(report: dict, task_id: str) -> dict:
    return next(t for s in report["suites"] for t in s["tasks"] if t["id"] == task_id)


def test_sound_tasks_pass_every_gate_through_rest_mcp_and_ow(tmp_path, world_dir):
    root = write_suite(tmp_path / "suites", world_dir, GOOD)
    result, report = _check(root, "--surfaces", "rest,mcp,ow")
    for task_id in ("mail-reply-sam", "mail-outage-minutes"):
        task = _task(report, task_id)
        assert task["passed"], task["failures"]
        gates = {d["gate"] for d in task["details"]}
        assert {"oracle", "nothing", "read_only", "claims", "random", "mutant", "hack", "surface"} <= gates
        assert all(d["total"] == 0.0 for d in task["details"] if d["gate"] in ("nothing", "read_only", "claims"))
        assert not any(d["passed"] for d in task["details"] if d["gate"] in ("random", "hack"))
        surfaces = [d for d in task["details"] if d["gate"] == "surface"]
        assert surfaces and all(d["total"] == 1.0 for d in surfaces)
    # ow is a subprocess per call: only the first task of the suite goes through it
    ran = {t["id"]: [d["run"] for d in t["details"] if d["gate"] == "surface"] for t in report["suites"][0]["tasks"]}
    assert sum("oracle through ow" in runs for runs in ran.values()) == 1
    assert all("oracle through mcp" in runs and "oracle through rest" in runs for runs in ran.values())
    # dropping the search of the answer task leaves the state as the oracle leaves it: equivalent, not counted
    minutes = _task(report, "mail-outage-minutes")
    assert any(d.get("equivalent") and d["run"].startswith("drop step 0") for d in minutes["details"])
    reply = _task(report, "mail-reply-sam")
    kinds = {d.get("kind") for d in reply["details"] if d["gate"] == "mutant"}
    assert {"drop", "duplicate", "swap_target", "change_value"} <= kinds
    assert not any(d["passed"] for d in reply["details"] if d["gate"] == "mutant" and not d.get("equivalent"))
    assert "grader and admin routes through rest" in [d["run"] for d in reply["details"]]
    assert "| mail-reply-sam |" in (root / "out" / "tasks-check.md").read_text()
    assert report["seconds"] > 0 and "time in surface runs" in " ".join(report["notes"])
    said = result.stderr.splitlines()   # progress as it goes: what starts, then a line per task
    assert said[0].startswith("checking 2 task(s) in 1 suite(s); surfaces: rest, mcp, ow")
    assert {line.split()[1] for line in said if line.startswith("[")} == {"mail-reply-sam:", "mail-outage-minutes:"}
    assert any(line.startswith("[2/2] ") and ": ok in " in line for line in said)


def test_weak_tasks_are_caught_with_evidence_and_quarantined_until_they_pass(tmp_path, world_dir):
    root = write_suite(tmp_path / "suites", world_dir, {**GOOD, **WEAK})
    result, report = _check(root, "--surfaces", "none", "--quarantine")
    assert result.exit_code == 1
    archive, minutes = _task(report, "mail-weak-archive"), _task(report, "mail-weak-minutes")
    assert not archive["passed"] and not minutes["passed"]
    assert {"nothing", "claims"} <= {f["gate"] for f in archive["failures"]}
    assert any(f["gate"] == "mutant" and f["run"].startswith("drop step 0") for f in archive["failures"])
    long_answer = [f for f in minutes["failures"] if f["run"] == "a very long answer"]
    assert long_answer and "scored 1.0, expected 0" in long_answer[0]["evidence"]
    assert _task(report, "mail-reply-sam")["passed"] and _task(report, "mail-outage-minutes")["passed"]
    assert set(load_quarantine(root)) == {"mail-weak-archive", "mail-weak-minutes"}
    listed = {t.id for t in catalog_over(EpisodeStore(cache_dir=tmp_path / "cache"), root).select()}
    assert listed == {"mail-reply-sam", "mail-outage-minutes"}

    fixed = GOOD["outage-minutes"].replace("id: mail-outage-minutes", "id: mail-weak-minutes")
    (root / "mail" / "weak-minutes.yaml").write_text(fixed.format(world=world_dir))
    result, report = _check(root, "mail-weak-minutes", "--surfaces", "none", "--quarantine")
    assert _task(report, "mail-weak-minutes")["passed"], result.output
    assert _task(report, "mail-weak-minutes")["quarantined"]  # it was when the check began; now it is out
    # a task in quarantine when the check begins stays out of the suite's figures and the exit code
    assert report["suites"][0]["failures"] == [] and result.exit_code == 0
    assert set(load_quarantine(root)) == {"mail-weak-archive"}


def test_top_up_adds_runs_until_the_suite_sample_can_meet_the_bounds(tmp_path, world_dir, monkeypatch):
    monkeypatch.setattr(qa_check, "FP_BOUND", 0.12)
    monkeypatch.setattr(qa_check, "FN_BOUND", 0.15)
    root = write_suite(tmp_path / "suites", world_dir, {"outage-minutes": GOOD["outage-minutes"]})
    store = EpisodeStore(cache_dir=tmp_path / "cache")
    catalog = catalog_over(store, root)
    [suite] = Checker(catalog.engine, release=lambda e: store.delete(e.id)).check(list(catalog.tasks.values()))
    assert suite.top_up["right"] > 0 and suite.top_up["wrong"] > 0
    assert suite.figures.right >= runs_needed(0.15) and suite.figures.wrong >= runs_needed(0.12)
    assert suite.figures.wrong_passed == 0 and suite.figures.right_failed == 0
    assert len(store) == 0  # every episode of the check was released


def test_a_fairness_finding_outlives_the_top_up_and_the_progress_says_what_the_report_says(tmp_path, world_dir,
                                                                                        monkeypatch):
    monkeypatch.setattr(qa_check, "FP_BOUND", 0.06)   # a short top-up; the gates are judged again after it
    monkeypatch.setattr(qa_check, "FN_BOUND", 0.15)
    root = write_suite(tmp_path / "suites", world_dir, {**UNFAIR, "reply-sam": GOOD["reply-sam"]})
    result = CliRunner().invoke(cli, ["check", "mail", "--root", str(root), "--surfaces", "none",
                                      "--report", str(root / "out")])
    report = json.loads((root / "out" / "tasks-check.json").read_text())
    assert report["suites"][0]["top_up"]["wrong"] > 0
    hidden = _task(report, "mail-hidden-day")   # its runs are sound; only the visibility gate fails it
    assert [f["run"] for f in hidden["failures"]] == ["binding ask", "answer day"] and not hidden["passed"]
    assert _task(report, "mail-reply-sam")["passed"] and result.exit_code == 1
    said = result.stderr.splitlines()
    assert any(line.startswith("[") and "mail-hidden-day: failed (2 finding(s)) in " in line for line in said)
    assert not any(line.startswith("  mail-") for line in said)   # the top-up changed no task's findings
    suite = report["suites"][0]   # the suite's line agrees with the report too (its bounds stay at 2% and 5%)
    gates = f"FAIL ({len(suite['failures'])} finding(s))" if suite["failures"] else "pass"
    assert (f"suite mail: 1/2 task(s) pass; suite gates {gates}; top-up +{suite['top_up']['right']} right, "
            f"+{suite['top_up']['wrong']} wrong run(s)") in said


def test_a_task_the_top_up_fails_is_told_again_after_its_suite(tmp_path, world_dir, monkeypatch):
    monkeypatch.setattr(qa_check, "FP_BOUND", 0.06)
    monkeypatch.setattr(qa_check, "FN_BOUND", 0.15)
    random_agent = qa_check.agents.random_agent

    def lucky(ctx, seed: int):   # the top-up's random agents (seeds from 100) stumble on the oracle's calls
        attempt = random_agent(ctx, seed)
        attempt.calls = list(ctx.oracle) if seed >= 100 else attempt.calls
        return attempt
    monkeypatch.setattr(qa_check.agents, "random_agent", lucky)
    root = write_suite(tmp_path / "suites", world_dir, {"reply-sam": GOOD["reply-sam"]})
    result = CliRunner().invoke(cli, ["check", "mail", "--root", str(root), "--surfaces", "none",
                                      "--report", str(root / "out")])
    task = _task(json.loads((root / "out" / "tasks-check.json").read_text()), "mail-reply-sam")
    assert not task["passed"] and {f["gate"] for f in task["failures"]} == {"top_up_random"}
    said = result.stderr.splitlines()
    assert any(line.startswith("[1/1] mail-reply-sam: ok in ") for line in said)   # as it stood before the top-up
    assert f"  mail-reply-sam: failed ({len(task['failures'])} finding(s)) after the suite's top-up runs" in said
    assert any(line.startswith("suite mail: 0/1 task(s) pass; ") for line in said)


def test_agreement_ranks_trajectories_by_reward_against_a_person(tmp_path, world_dir):
    root = write_suite(tmp_path / "suites", world_dir, {"outage-minutes": GOOD["outage-minutes"]})
    answers = {"right": "It lasted 42 minutes.", "close": "About 43 minutes.", "silent": None}
    files = []
    for name, text in answers.items():
        calls = [{"op": "task.submit_answer", "args": {"answer": text}}] if text else []
        if name == "right":  # a recorded trajectory, as finished episodes leave them: setup steps are skipped
            steps = [{"surface": "setup", "app": "mail", "operation": "trash", "arguments": {"message_ids": [1]}},
                     {"surface": "mcp", "app": "task", "operation": "submit_answer", "arguments": {"answer": text}}]
            calls = {"episode": "e1", "world": "small", "actor": "dana@small.test", "steps": steps}
        (tmp_path / f"{name}.json").write_text(json.dumps(calls))
        files.append(str(tmp_path / f"{name}.json"))
    for ranking, sign in ((["right", "close", "silent"], 1), (["silent", "close", "right"], -1)):
        (tmp_path / "ranking.yaml").write_text(yaml.safe_dump(ranking))
        result = CliRunner().invoke(cli, ["agreement", "mail-outage-minutes", *files, "--ranking",
                                          str(tmp_path / "ranking.yaml"), "--root", str(root)])
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        assert data["trajectories"][0] == {"name": "right", "reward": 1.0, "person_score": 3.0 if sign > 0 else 1.0}
        assert data["kendall_tau"] * sign > 0.5
    (tmp_path / "ranking.yaml").write_text(yaml.safe_dump(["right", "close"]))
    result = CliRunner().invoke(cli, ["agreement", "mail-outage-minutes", *files, "--ranking",
                                      str(tmp_path / "ranking.yaml"), "--root", str(root)])
    assert result.exit_code == 2 and "silent" in result.output


def test_wilson_bounds_and_kendall_tau():
    assert wilson_upper(0, 189) <= 0.02 < wilson_upper(0, 188)
    assert runs_needed(0.02) == 189 and runs_needed(0.05) == 73
    assert wilson_upper(1, 10) == pytest.approx(0.4042, abs=1e-3)
    assert wilson_upper(0, 0) == 1.0
    assert kendall_tau([1, 2, 3], [10, 20, 30]) == 1.0
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    assert kendall_tau([1, 1, 0], [3, 2, 1]) == pytest.approx(2 / 6 ** 0.5)
    assert kendall_tau([1, 1], [1, 1]) is None
