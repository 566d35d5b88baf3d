"""Mail families' comparators: what the writer said, not what the quoted original said."""

from __future__ import annotations

from datetime import date

from scenarios.families.common import date_phrases, own_words
from tasks.comparators import compare


def test_own_words_ignore_the_quoted_original():
    want = own_words("The Marsh Hotel")
    quoted = "Thanks!\n\nOn Mon 16 Mar Sam <sam@x.com> wrote:\n> The Marsh Hotel at $210 a night"
    assert not compare(quoted, want)[0]
    assert compare("Please book the marsh hotel.\n\n" + quoted, want)[0]
    assert compare("ok\nGo with The Marsh Hotel, thanks", want)[0]


def test_a_date_is_read_in_the_ways_people_write_it():
    want = {"any_of": date_phrases(date(2026, 4, 1))}
    for text in ("due on April 1, 2026", "on 1 April", "2026-04-01", "Apr 1",
                 "4/1/2026"):
        assert compare(text, want)[0], text
    assert not compare("due on April 11, 2026", want)[0]
