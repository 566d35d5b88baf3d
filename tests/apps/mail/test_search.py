"""Gmail's search operators over REST on a small world."""

import pytest
from surfaces import call


def subjects(api, episode, query):
    response = call(api, episode, "mail", "search", query=query)
    assert response.status_code == 200, response.text
    return [m["subject"] for m in response.json()["messages"]]


@pytest.mark.parametrize("query, expected", [
    ("from:sam", ["Globex renewal pricing"]),
    ("from:Ortiz", ["Globex renewal pricing"]),
    ("from:me", ["Re: Globex renewal pricing"]),
    ("to:ravi", ["Outage postmortem for Initech"]),
    ("cc:ravi", ["Re: Globex renewal pricing"]),
    ("subject:postmortem", ["Outage postmortem for Initech"]),
    ("label:deals", ["Globex renewal pricing"]),
    ("in:sent", ["Re: Globex renewal pricing"]),
    ("is:unread", ["Globex renewal pricing"]),
    ("is:read", ["Outage postmortem for Initech", "Re: Globex renewal pricing"]),
    ("is:starred", ["Globex renewal pricing"]),
    ("has:attachment", ["Globex renewal pricing"]),
    ("filename:csv", ["Globex renewal pricing"]),
    ("before:2026/03/11", ["Re: Globex renewal pricing", "Globex renewal pricing"]),
    ("after:2026/03/11", ["Outage postmortem for Initech"]),
    ("newer_than:6d", ["Outage postmortem for Initech", "Re: Globex renewal pricing", "Globex renewal pricing"]),
    ("newer_than:5d", ["Outage postmortem for Initech"]),
    ("older_than:5d", ["Re: Globex renewal pricing", "Globex renewal pricing"]),
    ('"expired certificate"', ["Outage postmortem for Initech"]),
    ('"certificate expired"', []),
    ("globex -is:unread", ["Re: Globex renewal pricing"]),
    ("from:sam OR from:mei", ["Outage postmortem for Initech", "Globex renewal pricing"]),
    ("(from:sam OR from:mei) has:attachment", ["Globex renewal pricing"]),
    ("interview", []),
])
def test_operators(api, episode, query, expected):
    assert subjects(api, episode, query) == expected


def test_free_text_is_ranked_by_relevance(api, episode):
    call(api, episode, "mail", "send", to=["dana@small.test"], subject="Certificate renewal",
         body="certificate certificate certificate: the certificate expires soon")
    assert subjects(api, episode, "certificate")[0] == "Certificate renewal"


def test_trash_is_hidden_unless_asked_for(api, episode):
    first = call(api, episode, "mail", "search", query="from:mei").json()["messages"][0]
    call(api, episode, "mail", "trash", message_ids=[first["id"]])
    assert subjects(api, episode, "from:mei") == []
    assert subjects(api, episode, "in:trash") == ["Outage postmortem for Initech"]
    assert subjects(api, episode, "in:anywhere from:mei") == ["Outage postmortem for Initech"]


@pytest.mark.parametrize("query, fragment", [
    ("before:yesterday", "before:yesterday is not a date"),
    ("newer_than:soon", "newer_than:soon is not an age"),
    ("in:elsewhere", "in:elsewhere is not a mailbox"),
    ("(from:sam", "never closed"),
    ("from:sam)", "no matching"),
    ("is:shiny", "is:shiny is not supported"),
])
def test_bad_queries_name_the_problem(api, episode, query, fragment):
    response = call(api, episode, "mail", "search", query=query)
    assert response.status_code == 422
    assert fragment in response.json()["error"]["message"]
    assert response.json()["error"]["field"] == "query"


def test_paging(api, episode):
    page = call(api, episode, "mail", "search", query="in:anywhere", limit=1, offset=1).json()
    assert page["total"] == 3 and len(page["messages"]) == 1
    assert call(api, episode, "mail", "search", limit=500).status_code == 422
