"""The co-worker rule kinds' format (``scenarios.people.model``): a rule answers one way, a review names what to
change, a reminder's delay is positive. Their behaviour in episodes is tested through the families that use
them (``test_coworkers.py``: a review, its access request, its listed changes, its 'done'; a reminder too soon)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from scenarios.people.model import MailRule, Npc

REVIEW = {"document": "Plan - draft", "changes": [{"quote": "$10,000", "comment": "Make it $12,000."}]}


def test_a_rule_answers_by_one_of_reply_decide_or_review():
    assert MailRule.model_validate({"id": "r", "review": REVIEW}).review is not None
    with pytest.raises(ValidationError, match="not reply and review"):
        MailRule.model_validate({"id": "r", "reply": "Thanks", "review": REVIEW})
    with pytest.raises(ValidationError, match="needs reply, decide, review or do"):
        MailRule.model_validate({"id": "r", "reminded_after": 3600})


@pytest.mark.parametrize("bad", [{"document": "Plan", "changes": []}, {"document": "", "changes": REVIEW["changes"]},
                                 {"document": "Plan", "changes": [{"quote": "", "comment": "x"}]}])
def test_a_review_names_its_document_and_at_least_one_change(bad):
    with pytest.raises(ValidationError):
        MailRule.model_validate({"id": "r", "review": bad})


def test_a_reminder_delay_is_positive_and_unknown_keys_are_refused():
    with pytest.raises(ValidationError):
        MailRule.model_validate({"id": "r", "reply": "x", "reminded_after": 0})
    with pytest.raises(ValidationError):
        Npc.model_validate({"email": "a@b.test", "mail": [{"id": "r", "review": {**REVIEW, "edits": True}}]})
