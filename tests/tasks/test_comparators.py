"""Comparators and answer readers: the public failures of other benchmarks, each pinned down."""

import pytest

from tasks.answers import check_answer
from tasks.comparators import ComparatorError, compare, matches


@pytest.mark.parametrize("actual, expected, ok", [
    ("Quote is 100 units", {"tokens": ["10"]}, False),          # "10" never matches "100"
    ("Quote is 10 units", {"tokens": ["10"]}, True),
    ("Globex renewal quote", {"tokens": "renewal quote"}, True),
    ("Globex renewals", {"tokens": "renewal"}, False),
    ("see you on March 27", {"phrase": "March 27"}, True),
    ("27 March", {"phrase": "March 27"}, False),
    (" Globex   Renewal. ", {"text": "globex renewal"}, True),
    ("$184,000.00", {"money": 184000}, True),
    (184000.004, {"money": 184000}, True),
    (184001, {"money": 184000}, False),
    (91, {"number": 90, "tol": 1}, True),
    (92, {"number": 90, "tol": 1}, False),
    ("2026-03-27", {"date": "2026-03-27"}, True),
    ("2026-03-28 02:00:00+00:00", {"date": "2026-03-27"}, True),  # 22:00 on the 27th in New York
    ("2026-03-28 02:00:00+00:00", {"date": "2026-03-28"}, False),
    ("2026-03-27T14:00:00+00:00", {"datetime": "2026-03-27T10:00", "granularity": "minute"}, True),
    ("<Sam@Globex.example>", {"email": "sam@globex.example"}, True),
    (["b@x.test", "a@x.test"], ["a@x.test", "b@x.test"], True),
    (["a@x.test"], ["a@x.test", "b@x.test"], False),
    ([], ["a@x.test"], False),
    (["INBOX", "STARRED"], {"contains": "STARRED"}, True),
    (["a", "a", "b"], {"multiset": ["a", "b"]}, False),
    ("Q-2026-0142", {"regex": r"Q-2026-\d{4}"}, True),
    ("see Q-2026-0142 attached", {"regex": r"Q-2026-\d{4}"}, False),  # anchored at both ends
    ("Closed Won", {"any_of": ["Closed Won", "Closed Lost"]}, True),
    ("Closed Lost", {"not": "Closed Lost"}, False),
    (None, {"present": True}, False),
    ("", None, True),
    (5, 5, True),
    ("5", 5, True),
    ("50", 5, False),
])
def test_compare(actual, expected, ok):
    assert compare(actual, expected, "America/New_York")[0] is ok


def test_a_comparator_written_wrongly_is_an_error_not_a_verdict():
    with pytest.raises(ComparatorError):
        compare("x", {"sounds_like": "x"})
    with pytest.raises(ComparatorError):
        compare("x", {"tokens": []})


def test_a_record_lacking_a_field_never_matches():
    assert not matches({"name": "Globex"}, {"stage": None})
    assert matches({"name": "Globex", "stage": None}, {"stage": None})


@pytest.mark.parametrize("text, kind, expected, ok", [
    ("yes", "yesno", "yes", True),
    ("Yes, it was signed.", "yesno", True, True),
    ("yes and no", "yesno", "yes", False),             # a hedge is not an answer
    ("eyes open", "yesno", "yes", False),              # "yes" only as a whole word
    ("The cap is $2,000,000.", "money", 2000000, True),
    ("2,000,000 or 1,000,000", "money", 2000000, False),  # every candidate at once
    ("1.2M", "number", 1200000, True),
    ("42", "number", 41, False),
    ("It closes on 27 March 2026", "date", "2026-03-27", True),
    ("2026-03-27 or 2026-03-28", "date", "2026-03-27", False),
    ("Write to sam@globex.example", "email", "sam@globex.example", True),
    ("", "text", "anything", False),
])
def test_answers_are_read_strictly(text, kind, expected, ok):
    assert check_answer(text, kind, expected)[0] is ok


def test_entity_answers_name_one_candidate_and_no_rival():
    names = ["Globex", "Globex Logistics", "Initech", "Hooli"]
    assert check_answer("It is Globex Logistics.", "entity", "Globex Logistics", candidates=names)[0]
    assert not check_answer("Globex Logistics or Initech", "entity", "Globex Logistics", candidates=names)[0]
    assert not check_answer("Globex Logistics", "entity", "Globex", candidates=names)[0]
    assert check_answer("Initech and Hooli", "list", ["Hooli", "Initech"], candidates=names)[0]
    assert not check_answer("Initech, Hooli and Globex", "list", ["Hooli", "Initech"], candidates=names)[0]


def test_an_answer_time_without_offset_is_the_worlds_local_time():
    from tasks.answers import check_answer

    def said(text: str) -> bool:
        return check_answer(text, "datetime", "2026-04-07T15:00", tz="America/New_York")[0]

    assert said("2026-04-07 15:00") and said("2026-04-07T19:00Z")
    assert not said("2026-04-07 19:00")
