"""tasks check runs wrong descriptions of what the agent saw (a figure invented, the asked one left out, the
prompt copied) that must score 0 on perception, whatever their reward, and the oracle's that must score 1."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from qa_suite import write_suite  # noqa: E402
from test_qa import _check, _task  # noqa: E402

OUTAGE = """
id: mail-outage-seen
world: {world}
outcome: answer
prompt: How many minutes did the Initech dashboard outage last? Say what you see first.
criteria:
  - id: minutes
    answer: {{type: number, expect: 42}}
  - id: saw
    role: perception
    perception: {perception}
oracle:
  - {{op: mail.search, args: {{query: outage}}}}
  - {{op: task.describe_view, args: {{description: "An email from Initech: the dashboard outage lasted 42 minutes."}}}}
  - {{op: task.submit_answer, args: {{answer: "42 minutes"}}}}
"""


def test_wrong_descriptions_score_zero_on_perception_and_a_check_that_needs_nothing_is_caught(tmp_path, world_dir):
    sound = OUTAGE.replace("{perception}", "{{}}")
    loose = OUTAGE.replace("mail-outage-seen", "mail-outage-loose").replace("{perception}", "{{needs: []}}")
    root = write_suite(tmp_path / "suites", world_dir, {"seen": sound, "loose": loose})
    _, report = _check(root, "--surfaces", "none")
    task = _task(report, "mail-outage-seen")
    assert task["passed"], task["failures"]
    wrong = [d for d in task["details"] if d["gate"] == "perception"]
    assert {d["kind"] for d in wrong} == {"invented", "omitted", "prompt_copy"}
    assert all(d["perception"] == 0.0 and d["total"] == 1.0 for d in wrong), wrong   # the reward is not moved
    assert all(d.get("perception") == 1.0 for d in task["details"] if d["gate"] == "oracle")
    caught = _task(report, "mail-outage-loose")
    assert not caught["passed"]
    assert [f["run"] for f in caught["failures"]] == ["description: the asked value taken out"], caught["failures"]
