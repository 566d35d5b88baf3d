"""Text criteria read meaning: negated claims fail, values bind to their subject, correct answers in
other forms pass, rivals still fail, and a check that cannot run never drops out of the reward."""

from __future__ import annotations

import pytest
from test_grading import oracle, run

from tasks.answers import check_answer
from tasks.comparators import ComparatorError, compare, failures, matches
from tasks.reward import CriterionScore, combine

NY = "America/New_York"


@pytest.mark.parametrize("body", ["Not approved.", "The budget is not approved", "I can't say it's approved",
                                  "No, never approved."])
def test_a_required_word_said_only_in_the_negative_is_missing(body):
    assert failures({"body": body}, {"body": {"tokens": ["approved"]}}) != []
    assert failures({"body": "Approved, no changes needed."}, {"body": {"tokens": ["approved"]}}) == []


@pytest.mark.parametrize("body", ["We will NOT have the OKRs by March 20.", "The OKRs won't be in by March 20",
                                  "No way we make March 20"])
def test_a_required_phrase_in_a_negated_clause_is_missing(body):
    ok, why = compare(body, {"phrase": "March 20"}, affirm=True)
    assert not ok and "not negated" in why
    assert compare("Sorry for the wait, the OKRs will be in by March 20.", {"phrase": "March 20"}, affirm=True)[0]


def test_polarity_applies_to_what_is_expected_not_to_which_records_are_read():
    record = {"subject": "Can't make the OKR review"}
    assert matches(record, {"subject": {"tokens": ["okr", "review"]}})
    assert failures(record, {"subject": {"tokens": ["okr", "review"]}}) != []
    assert failures(record, {"subject": {"tokens": ["okr", "review"], "polarity": "any"}}) == []
    assert failures({"body": "We will not renew."}, {"body": {"tokens": ["not", "renew"]}}) == []
    with pytest.raises(ComparatorError):
        compare("x", {"tokens": ["x"], "polarity": "maybe"})


def test_a_claim_binds_the_value_to_its_subject():
    body = "The Globex renewal is worth $184,000. The Initech deal closes on March 27."
    assert compare(body, {"claim": {"about": ["globex"], "money": 184000}}, NY, affirm=True)[0]
    assert compare(body, {"claim": {"about": ["initech"], "date": "2026-03-27"}}, NY, affirm=True)[0]
    assert not compare(body, {"claim": {"about": ["globex"], "date": "2026-03-27"}}, NY, affirm=True)[0]
    assert not compare(body, {"claim": {"about": ["initech"], "money": 184000}}, NY, affirm=True)[0]
    denied = "The Globex renewal is not $184,000."
    assert not compare(denied, {"claim": {"about": ["globex"], "money": 184000}}, NY, affirm=True)[0]
    assert compare("Globex renewal: one hundred eighty-four thousand dollars.",
                   {"claim": {"about": "globex renewal", "money": 184000}}, NY, affirm=True)[0]
    with pytest.raises(ComparatorError):
        compare(body, {"claim": {"about": ["globex"]}})


@pytest.mark.parametrize("answer", ["2026-03-05", "March 5th", "3/5/2026", "3/5/26", "Mar. 5, 2026", "5 March",
                                    "It is March 5, not March 7.", "the 5th of March"])
def test_a_date_in_another_form_is_accepted(answer):
    ok, why = check_answer(answer, "date", "2026-03-05", tz=NY)
    assert ok, why


@pytest.mark.parametrize("answer", ["March 7", "Not March 5.", "March 5 or March 7", "3/7/2026"])
def test_a_wrong_denied_or_hedged_date_is_refused(answer):
    assert not check_answer(answer, "date", "2026-03-05", tz=NY)[0]


def test_slashed_dates_follow_the_worlds_zone():
    assert check_answer("5/3/2026", "date", "2026-03-05", tz="Europe/London")[0]
    assert not check_answer("5/3/2026", "date", "2026-03-05", tz=NY)[0]


@pytest.mark.parametrize("answer", ["42", "forty-two", "Forty two minutes", "42 minutes, not 45", "It lasted 42."])
def test_a_number_in_another_form_is_accepted(answer):
    assert check_answer(answer, "number", 42)[0]


@pytest.mark.parametrize("answer", ["45", "not 42", "42 or 45", "forty-five"])
def test_a_wrong_denied_or_padded_number_is_refused(answer):
    assert not check_answer(answer, "number", 42)[0]


@pytest.mark.parametrize("answer", ["$184,000", "184,000 dollars", "USD 184,000", "184 thousand dollars", "$184K",
                                    "one hundred eighty-four thousand dollars", "$184,000, not $150,000"])
def test_money_written_out_is_accepted(answer):
    assert check_answer(answer, "money", 184000)[0]


def test_an_entity_named_against_a_rival_passes_and_naming_both_fails():
    candidates = ["Globex", "Initech", "Umbrella"]
    assert check_answer("Globex, not Initech.", "entity", "Globex", candidates=candidates)[0]
    assert not check_answer("Globex and Initech", "entity", "Globex", candidates=candidates)[0]
    assert not check_answer("Not Globex.", "entity", "Globex", candidates=candidates)[0]


def _score(id_, role, status, score=None, weight=1.0):
    return CriterionScore(id=id_, role=role, weight=weight, status=status,
                          score=float(status == "pass") if score is None else score)


def test_a_graded_check_that_cannot_run_makes_the_episode_ungradable():
    graded = combine("t", 1, [_score("memo", "goal", "pass"), _score("judged", "goal", "na")], [])
    assert graded.total is None and not graded.gradable and any("judged" in e for e in graded.errors)
    logged = combine("t", 1, [_score("memo", "goal", "pass"), _score("judged", "diagnostic", "na", weight=0)], [])
    assert logged.total == 1.0


@pytest.mark.parametrize("goals", [["pass", "pass"], ["pass", "fail"], ["fail", "fail"]])
def test_damage_never_scores_above_an_untouched_episode(goals):
    untouched = combine("t", 1, [_score("a", "goal", "fail"), _score("b", "goal", "fail"),
                                 _score("no_collateral_damage", "penalty", "pass", weight=0.25)], [])
    damaged = combine("t", 1, [_score("a", "goal", goals[0]), _score("b", "goal", goals[1]),
                               _score("no_collateral_damage", "penalty", "fail", weight=0.25)], [{"table": "x"}])
    assert damaged.total <= untouched.total == 0.0 and not damaged.passed


def test_a_negated_reply_fails_a_real_task(catalog):
    denied = [{"op": "mail.reply", "args": {"message_id": 1, "body": "Hi Sam, the quote is not 184,000."}}]
    reward, _ = run(catalog, "reply-sam", denied)
    assert not reward.passed and reward.total == 0.0
    reward, _ = run(catalog, "reply-sam", oracle(catalog, "reply-sam"))
    assert reward.passed


def test_a_negative_fact_can_be_required_as_negative():
    want = {"description": {"tokens": ["synced", "saturday"], "polarity": "negated"}}
    assert failures({"description": "Reported by email: no rows synced since Saturday."}, want) == []
    assert failures({"description": "Rows synced since Saturday."}, want) != []


def test_all_of_holds_every_expectation_on_one_field():
    memo = ("Under section 14.2 of the Ridgeway MSA, the change of control needs Ridgeway's consent. "
            "Without consent, Ridgeway may terminate on 60 days' notice.")
    want = {"body": {"all_of": [{"tokens": ["ridgeway"]}, {"claim": {"about": ["14.2"], "states": "consent"}},
                                {"claim": {"about": ["terminate"], "states": "60 days"}}]}}
    assert failures({"body": memo}, want) == []
    swapped = "Under section 14.2 Ridgeway may terminate on 60 days' notice. The change of control needs Ridgeway's consent."
    assert failures({"body": swapped}, want) != []
    denied = memo.replace("needs Ridgeway's consent", "does not need Ridgeway's consent")
    assert failures({"body": denied}, want) != []


def test_a_name_written_last_name_first_is_the_same_person():
    people = ["Ben Carter", "Carter Bell", "Sofia Marino"]
    assert check_answer("Carter, Ben", "entity", "Ben Carter", candidates=people)[0]
    assert not check_answer("Carter Bell", "entity", "Ben Carter", candidates=people)[0]


def test_a_line_wrapped_inside_a_sentence_stays_one_sentence():
    body = "The OKRs will NOT\nbe ready by March 20.\n\n- Review Tyrell pipeline\n- Send the deck"
    assert not compare(body, {"phrase": "March 20"}, affirm=True)[0]
    memo = "Under section 14.2 the change of control needs Ridgeway's prior written\nconsent. Jonah"
    assert compare(memo, {"claim": {"about": ["14.2"], "states": "consent"}}, affirm=True)[0]
    assert compare(body, {"phrase": "Review Tyrell pipeline"}, affirm=True)[0]
