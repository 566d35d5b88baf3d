"""tasks check runs meaning mutants (negated text and answers, prompt copies) that must fail, and the
oracle's answer in other correct forms that must pass."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from qa_suite import GOOD, write_suite  # noqa: E402
from test_qa import _check, _task  # noqa: E402

from tasks.qa.meaning import answer_forms, flip, words  # noqa: E402


def test_flip_turns_each_clause_around():
    assert flip("Hi Sam, the quote is 184,000.") == "not Hi Sam, not the quote is 184,000."
    assert flip("No rows synced since Saturday; we won't wait.") == "rows synced since Saturday; we will wait."
    assert flip("- Review Tyrell pipeline") == "- not Review Tyrell pipeline"


def test_answer_forms_are_other_ways_to_say_the_same():
    assert ("in words", "forty-two") in answer_forms("number", 42, [], "UTC") and words(184) == "one hundred eighty-four"
    assert ("slashed", "3/5/2026") in answer_forms("date", "2026-03-05", [], "America/New_York")
    assert ("slashed", "5/3/2026") in answer_forms("date", "2026-03-05", [], "Europe/Paris")
    assert answer_forms("entity", "Globex", ["Globex", "Initech"], "UTC") == [("named against a rival", "Globex, not Initech")]


def test_negations_and_prompt_copies_fail_and_other_forms_pass(tmp_path, world_dir):
    root = write_suite(tmp_path / "suites", world_dir, GOOD)
    result, report = _check(root, "--surfaces", "none")
    reply, minutes = _task(report, "mail-reply-sam"), _task(report, "mail-outage-minutes")
    assert reply["passed"] and minutes["passed"], (reply["failures"], minutes["failures"])
    negated = [d for t in (reply, minutes) for d in t["details"] if d.get("kind") == "negate"]
    assert {d["run"] for d in negated} == {"step 0 mail.reply: body negated", "step 1 task.submit_answer: answer negated"}
    assert not any(d["passed"] for d in negated)
    copied = [d for d in minutes["details"] if d.get("kind") == "prompt_copy"]
    assert copied and not copied[0]["passed"]
    forms = [d for d in minutes["details"] if d["gate"] == "variation"]
    assert {d["run"].split(":")[0] for d in forms} >= {"answer in words", "answer X, not Y", "answer with separators"}
    assert all(d["passed"] for d in forms), forms
    # the agent's sandbox is probed for task files too (none readable; or said plainly where no jail runs)
    assert report["sandbox"]["readable"] == [] and any(n.startswith("sandbox:") for n in report["notes"])


EMAIL_SAM = """
id: mail-email-sam
world: {world}
prompt: Email Sam that the quote is 184,000.
criteria:
  - id: told
    records:
      from: mail.outbound
      created: true
      count: 1
      expect: {{recipient: sam@globex.example, body: {{claim: {{about: [quote], money: 184000}}}}}}
oracle:
  - {{op: mail.send, args: {{to: [sam@globex.example], subject: Quote, body: "Hi Sam, the quote is 184,000."}}}}
"""


def test_a_new_message_may_be_a_reply_where_the_task_allows_either(tmp_path, world_dir):
    root = write_suite(tmp_path / "suites", world_dir, {"email-sam": EMAIL_SAM})
    result, report = _check(root, "--surfaces", "none")
    task = _task(report, "mail-email-sam")
    replies = [d for d in task["details"] if d["gate"] == "variation" and "a reply to" in d["run"]]
    assert replies and all(d["passed"] for d in replies), replies
    negated = [d for d in task["details"] if d.get("kind") == "negate"]
    assert negated and not any(d["passed"] for d in negated)
