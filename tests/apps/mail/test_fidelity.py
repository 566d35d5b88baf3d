"""Gmail behaviours users rely on, over REST: grouped operators, sizes, lists, threads, trash, HTML mail."""

import pytest
from factories import make_world, message
from surfaces import call

EXTRA = {
    "board/1.eml": message("b1@small.test", "Ravi Patel <ravi@small.test>", "dana@small.test",
                           "Board deck draft", "Fri, 13 Mar 2026 09:00:00 -0400",
                           "The budget needs final approval from finance before Friday.",
                           List_Id="Sales team <sales.small.test>"),
    "board/2.eml": message("b2@small.test", "Mei Chen <mei@small.test>", "dana@small.test",
                           "Re: Board deck draft", "Fri, 13 Mar 2026 10:00:00 -0400",
                           "Looks good.", In_Reply_To="<b1@small.test>", References="<b1@small.test>"),
    "news/1.eml": ("From: Sam Ortiz <sam@globex.example>\nTo: dana@small.test\nSubject: Spring newsletter\n"
                   "Date: Sat, 14 Mar 2026 08:00:00 -0400\nMessage-ID: <n1@globex.example>\nMIME-Version: 1.0\n"
                   "Content-Type: text/html; charset=utf-8\n\n<html><head><style>p{color:red}</style></head>"
                   "<body><h1>Spring&nbsp;update</h1><p>Prices rise in <b>April</b>.</p><ul><li>One</li>"
                   "<li>Two</li></ul></body></html>\n"),
}


@pytest.fixture
def world_dir(tmp_path):
    return make_world(tmp_path / "worlds", extra_mail=EXTRA)


def subjects(api, episode, query):
    response = call(api, episode, "mail", "search", query=query)
    assert response.status_code == 200, response.text
    return sorted(m["subject"] for m in response.json()["messages"])


@pytest.mark.parametrize("query, expected", [
    ("subject:(deck board)", ["Board deck draft", "Re: Board deck draft"]),
    ("subject:(deck outage)", []),
    ("from:(ravi OR mei) subject:deck", ["Board deck draft", "Re: Board deck draft"]),
    ("from:{ravi sam} -subject:newsletter", ["Board deck draft", "Globex renewal pricing"]),
    ("{postmortem newsletter}", ["Outage postmortem for Initech", "Spring newsletter"]),
    ("subject:(-re deck)", ["Board deck draft"]),
    ("budget AROUND 3 approval", ["Board deck draft"]),
    ("budget AROUND 1 approval", []),
    ("list:sales.small.test", ["Board deck draft"]),
    ("rfc822msgid:b2@small.test", ["Re: Board deck draft"]),
    ("rfc822msgid:<b2@small.test>", ["Re: Board deck draft"]),
    ("deliveredto:me subject:globex", ["Globex renewal pricing"]),
    ("larger:80 subject:globex", ["Globex renewal pricing"]),
    ("smaller:1K from:mei", ["Outage postmortem for Initech", "Re: Board deck draft"]),
    ("size:1M", []),
    ("has:userlabels", ["Globex renewal pricing"]),
    ('"10:30"', []),
])
def test_gmail_operators(api, episode, query, expected):
    assert subjects(api, episode, query) == expected


@pytest.mark.parametrize("query, fragment", [
    ("category:promotions", "category: is not supported"),
    ("foo:bar", "foo: is not supported"),
    ("larger:huge", "larger:huge is not a size"),
    ("larger:99999999999999999999999G", "larger than any message"),
    ("budget AROUND approval", "AROUND needs a number"),
    ("subject:(deck", "never closed"),
    ("(" * 60 + "deck" + ")" * 60, "nested more than"),
])
def test_unsupported_operators_are_refused_by_name(api, episode, query, fragment):
    response = call(api, episode, "mail", "search", query=query)
    assert response.status_code == 422, response.text
    assert fragment in response.json()["error"]["message"] and response.json()["error"]["field"] == "query"


def test_search_threads_lists_one_row_per_conversation(api, episode):
    result = call(api, episode, "mail", "search_threads", query="deck", include_messages=True).json()
    assert result["total"] == 1
    row = result["threads"][0]
    assert row["message_count"] == 2 and row["participants"] == ["Ravi Patel", "Mei Chen"]
    assert row["latest"]["subject"] == "Re: Board deck draft" and row["snippet"] == "Looks good."
    assert [m["subject"] for m in row["messages"]] == ["Board deck draft", "Re: Board deck draft"]
    plain = call(api, episode, "mail", "search", query="deck").json()
    assert plain["total"] == 2 and set(plain) == {"total", "messages"}


def test_thread_actions_act_on_every_message(api, episode):
    thread = call(api, episode, "mail", "search_threads", query="deck").json()["threads"][0]
    assert thread["unread"] is False
    marked = call(api, episode, "mail", "mark_thread_unread", thread_ids=[thread["id"]]).json()
    assert len(marked["updated"]) == 2
    assert subjects(api, episode, "is:unread deck") == ["Board deck draft", "Re: Board deck draft"]
    call(api, episode, "mail", "create_label", name="Board")
    call(api, episode, "mail", "add_thread_label", thread_ids=[thread["id"]], label="board")
    assert len(subjects(api, episode, "label:board")) == 2
    call(api, episode, "mail", "archive_thread", thread_ids=[thread["id"]])
    assert subjects(api, episode, "in:inbox deck") == []
    call(api, episode, "mail", "trash_thread", thread_ids=[thread["id"]])
    assert subjects(api, episode, "deck") == [] and len(subjects(api, episode, "in:trash deck")) == 2
    call(api, episode, "mail", "restore_thread", thread_ids=[thread["id"]])
    assert len(subjects(api, episode, "in:inbox deck")) == 2
    missing = call(api, episode, "mail", "archive_thread", thread_ids=[99999])
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "thread_ids"


def test_trash_keeps_star_and_importance_for_restore(api, episode):
    first = call(api, episode, "mail", "search", query="is:starred").json()["messages"][0]
    call(api, episode, "mail", "add_label", message_ids=[first["id"]], label="IMPORTANT")
    call(api, episode, "mail", "trash", message_ids=[first["id"]])
    assert subjects(api, episode, "is:starred") == []
    call(api, episode, "mail", "restore", message_ids=[first["id"]])
    labels = call(api, episode, "mail", "get_message", message_id=first["id"]).json()["labels"]
    assert {"STARRED", "IMPORTANT", "INBOX"} <= set(labels)


def test_html_only_mail_reads_as_text(api, episode):
    found = call(api, episode, "mail", "search", query="prices april").json()["messages"]
    assert found and found[0]["snippet"].startswith("Spring update Prices rise in April.")
    body = call(api, episode, "mail", "get_message", message_id=found[0]["id"]).json()["body"]
    assert "color" not in body and "- One\n- Two" in body


def test_quoted_line_is_in_the_world_time_zone(api, episode):
    original = call(api, episode, "mail", "search", query="from:sam subject:renewal").json()["messages"][0]
    reply = call(api, episode, "mail", "reply", message_id=original["id"], body="Thanks").json()
    # Sent at 09:14 -0400: New York time, not 13:14 UTC.
    assert "On Tue, Mar 10, 2026 at 9:14 AM Sam Ortiz <sam@globex.example> wrote:" in reply["body"]
