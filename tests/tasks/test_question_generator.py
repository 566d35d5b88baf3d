"""The email-search generator refuses a question whose prompt gives its answer away."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import yaml

from tasks.generate import gives_away

SUITE = Path(__file__).resolve().parents[2] / "tasks" / "suites" / "email-qa-acme"
PEOPLE = ["Ben Carter", "The Revenue Brief", "Sofia Marino"]


def test_an_answer_written_in_the_prompt_is_a_give_away():
    subject = "The Revenue Brief: Discounting is a habit, not a strategy"
    assert gives_away("sender", f'Who sent "{subject}"?', subject, "The Revenue Brief", date(2026, 2, 9), PEOPLE)
    assert not gives_away("sender", "Who sent \"Q2 plan\"?", "Q2 plan", "Ben Carter", date(2026, 2, 9), PEOPLE)
    assert gives_away("date", 'When did Ben send "Call on March 5"?', "Call on March 5", "March 5, 2026",
                      date(2026, 3, 5), PEOPLE)
    assert gives_away("recipients", 'How many got "Note for 3 people"?', "Note for 3 people", "3", date(2026, 3, 5), PEOPLE)
    assert gives_away("attachment", 'Which file is on "hooli_terms.pdf attached"?', "hooli_terms.pdf attached",
                      "hooli_terms.pdf", date(2026, 3, 5), PEOPLE)
    assert not gives_away("attachment", 'Which file is on "Terms"?', "Terms", "hooli_terms.pdf", date(2026, 3, 5), PEOPLE)


def test_no_shipped_question_gives_its_answer_away():
    for path in SUITE.glob("*.yaml"):
        task = yaml.safe_load(path.read_text())
        kind = task["criteria"][0]["id"]
        if kind == "sender":
            answer = task["oracle"][-1]["args"]["answer"]
            assert not gives_away(kind, task["prompt"], task["prompt"], answer, date(2026, 1, 1),
                                  task["criteria"][0]["answer"]["candidates"]), path.name
