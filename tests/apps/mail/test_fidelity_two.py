"""Gmail behaviours of the second fidelity review, over REST: nested labels in search, filters on arriving
and existing mail, a trashed spam message, and the Message-ID of mail an outsider sends."""

import pytest
from factories import make_world
from surfaces import call

SAM = "sam@globex.example"


@pytest.fixture
def world_dir(tmp_path):
    return make_world(tmp_path / "worlds")


def ok(response):
    assert response.status_code == 200, response.text
    return response.json()


def problem(response, status: int = 422) -> dict:
    assert response.status_code == status, response.text
    return response.json()["error"]


def send_as(api, episode, sender: str, **arguments) -> dict:
    """A message sent by someone else of the world (an outsider too), as a scheduled event or NPC would."""
    step = api.post(f"/v1/episodes/{episode['id']}/call", json={"tool": "mail_send", "as": sender,
                                                                  "arguments": arguments}).json()
    assert step["error"] is None, step["error"]
    return step["result"]


def found(api, episode, query: str) -> list[str]:
    return sorted(m["subject"] for m in ok(call(api, episode, "mail", "search", query=query))["messages"])


def labels_of(api, episode, subject: str) -> set[str]:
    hits = ok(call(api, episode, "mail", "search", query=f'subject:"{subject}" in:anywhere'))["messages"]
    hits = [h for h in hits if h["subject"] == subject]
    assert len(hits) == 1, hits
    return set(hits[0]["labels"])


def test_a_nested_label_is_found_with_a_dash_or_a_slash(api, episode):
    ok(call(api, episode, "mail", "create_label", name="Clients/Globex"))
    ok(call(api, episode, "mail", "create_label", name="Clients"))
    message = ok(call(api, episode, "mail", "search", query="from:sam"))["messages"][0]
    ok(call(api, episode, "mail", "add_label", message_ids=[message["id"]], label="Clients/Globex"))
    for query in ("label:clients-globex", "label:clients/globex", "label:Clients/Globex", 'label:"clients/globex"'):
        assert found(api, episode, query) == ["Globex renewal pricing"], query
    assert found(api, episode, "label:clients") == []   # as in Gmail, a parent label does not find its sub-labels


def test_a_trashed_spam_message_is_no_longer_spam(api, episode):
    message = ok(call(api, episode, "mail", "search", query="from:sam"))["messages"][0]
    ok(call(api, episode, "mail", "mark_spam", message_ids=[message["id"]]))
    ok(call(api, episode, "mail", "trash", message_ids=[message["id"]]))
    assert labels_of(api, episode, "Globex renewal pricing") >= {"TRASH"}
    assert "SPAM" not in labels_of(api, episode, "Globex renewal pricing")
    assert found(api, episode, "in:spam") == [] and found(api, episode, "in:trash") == ["Globex renewal pricing"]


def test_mail_an_outsider_sends_carries_their_own_domain_and_name(api, episode):
    send_as(api, episode, SAM, to=["dana@small.test"], subject="Signed order form", body="Attached soon.")
    received = ok(call(api, episode, "mail", "search", query="subject:(signed order)"))["messages"][0]
    full = ok(call(api, episode, "mail", "get_message", message_id=received["id"]))
    assert full["message_id"].endswith("@globex.example>") and full["sender_name"] == "Sam Ortiz"
    mine = ok(call(api, episode, "mail", "send", to=[SAM], subject="Thanks", body="Got it."))
    assert mine["message_id"].endswith("@small.test>")


def test_a_filter_acts_on_mail_as_it_arrives(api, episode):
    ok(call(api, episode, "mail", "create_label", name="Clients/Globex"))
    made = ok(call(api, episode, "mail", "create_filter", sender=SAM, label="Clients/Globex", archive=True,
                   star=True, mark_read=True))
    assert made["query"] == f"from:({SAM})" and made["applied_to"] == 0
    assert found(api, episode, "label:clients-globex") == []   # not applied to the mail already there
    send_as(api, episode, SAM, to=["dana@small.test"], subject="Renewal question", body="One more thing.")
    send_as(api, episode, "ravi@small.test", to=["dana@small.test"], subject="Lunch?", body="Noon?")
    assert labels_of(api, episode, "Renewal question") == {"Clients/Globex", "STARRED"}   # archived, read
    assert labels_of(api, episode, "Lunch?") == {"INBOX", "UNREAD"}
    assert found(api, episode, "label:clients/globex is:starred") == ["Renewal question"]
    assert ok(call(api, episode, "mail", "list_filters"))[0]["id"] == made["id"]
    ok(call(api, episode, "mail", "delete_filter", filter_id=made["id"]))
    send_as(api, episode, SAM, to=["dana@small.test"], subject="After the filter", body="Hello.")
    assert labels_of(api, episode, "After the filter") == {"INBOX", "UNREAD"}
    assert ok(call(api, episode, "mail", "list_filters")) == []


def test_a_filter_on_words_attachments_and_exclusions_forwards_and_deletes(api, episode):
    ok(call(api, episode, "mail", "create_filter", subject="invoice", doesnt_have="draft", forward_to="mei@small.test"))
    ok(call(api, episode, "mail", "create_filter", has_words="unsubscribe OR newsletter", delete=True))
    send_as(api, episode, SAM, to=["dana@small.test"], subject="Invoice 42", body="Due in 30 days.")
    send_as(api, episode, SAM, to=["dana@small.test"], subject="Invoice draft", body="Not final.")
    send_as(api, episode, SAM, to=["dana@small.test"], subject="Spring news", body="Our newsletter. Unsubscribe here.")
    dana = ok(call(api, episode, "mail", "search", query="subject:invoice"))
    assert [m["subject"] for m in dana["messages"]] == ["Invoice draft", "Invoice 42"]   # forwarding keeps hers
    forwarded = api.post(f"/v1/episodes/{episode['id']}/call", json={
        "tool": "mail_search", "as": "mei@small.test", "arguments": {"query": "subject:invoice"}}).json()["result"]
    assert [m["subject"] for m in forwarded["messages"]] == ["Invoice 42"]
    assert forwarded["messages"][0]["sender"] == SAM   # the message itself, from its sender, as Gmail forwards
    assert labels_of(api, episode, "Spring news") == {"TRASH", "UNREAD"}


def test_a_filter_applied_to_existing_mail_never_forwards_it(api, episode):
    made = ok(call(api, episode, "mail", "create_filter", sender="sam", star=True, forward_to="mei@small.test",
                   apply_to_existing=True))
    assert made["applied_to"] == 1
    assert "STARRED" in labels_of(api, episode, "Globex renewal pricing")
    mei = api.post(f"/v1/episodes/{episode['id']}/call", json={
        "tool": "mail_search", "as": "mei@small.test", "arguments": {"query": "from:sam"}}).json()["result"]
    assert mei["messages"] == []


@pytest.mark.parametrize("arguments, field", [
    ({"star": True}, "sender"),
    ({"sender": "sam"}, "label"),
    ({"sender": "sam", "label": "Nope"}, "label"),
    ({"sender": "sam", "forward_to": SAM}, "forward_to"),
    ({"sender": "sam", "forward_to": "dana@small.test"}, "forward_to"),
    ({"subject": "(unclosed", "star": True}, "query"),
])
def test_a_filter_that_cannot_work_is_refused_naming_the_field(api, episode, arguments, field):
    error = problem(call(api, episode, "mail", "create_filter", **arguments),
                    404 if arguments.get("label") == "Nope" else 422)
    assert error["field"] == field
    assert ok(call(api, episode, "mail", "list_filters")) == []


def labels_as(api, episode, person: str, subject: str) -> list[set[str]]:
    """The labels of each copy of the message ``person`` holds (their search, anywhere in their mailbox)."""
    hits = api.post(f"/v1/episodes/{episode['id']}/call", json={
        "tool": "mail_search", "as": person, "arguments": {"query": f'subject:"{subject}" in:anywhere'}}).json()
    return [set(h["labels"]) for h in hits["result"]["messages"] if h["subject"] == subject]


def test_filters_act_on_mail_you_send_yourself_as_it_lands_in_your_inbox(api, episode):
    ok(call(api, episode, "mail", "create_label", name="Notes"))
    ok(call(api, episode, "mail", "create_filter", sender="dana@small.test", label="Notes", archive=True))
    ok(call(api, episode, "mail", "create_filter", sender="dana@small.test", subject="forward",
            forward_to="mei@small.test"))
    # Mei's filter would send it straight back: filters do not act on mail a filter forwarded, so nothing loops
    back = {"sender": "dana", "forward_to": "dana@small.test"}
    step = api.post(f"/v1/episodes/{episode['id']}/call", json={"tool": "mail_create_filter", "as": "mei@small.test",
                                                                 "arguments": back})
    assert step.json()["error"] is None
    ok(call(api, episode, "mail", "send", to=["dana@small.test"], cc=["ravi@small.test"], subject="Note to self",
            body="Call Sam back."))
    # one copy in her mailbox, sent and received: the filter labelled it and took it out of the inbox, as in Gmail
    assert labels_of(api, episode, "Note to self") == {"SENT", "Notes", "UNREAD"}
    assert labels_as(api, episode, "ravi@small.test", "Note to self") == [{"INBOX", "UNREAD"}]
    assert labels_as(api, episode, "mei@small.test", "Note to self") == []
    ok(call(api, episode, "mail", "send", to=["ravi@small.test"], subject="Just for Ravi", body="Noon?"))
    assert labels_of(api, episode, "Just for Ravi") == {"SENT"}   # mail to others only never arrives: untouched
    ok(call(api, episode, "mail", "send", to=["dana@small.test"], subject="Please forward", body="To Mei."))
    assert labels_of(api, episode, "Please forward") == {"SENT", "Notes", "UNREAD"}
    assert labels_as(api, episode, "mei@small.test", "Please forward") == [{"INBOX", "UNREAD"}]
    assert labels_as(api, episode, "dana@small.test", "Please forward") == [{"SENT", "Notes", "UNREAD"}]
    draft = ok(call(api, episode, "mail", "create_draft", to=["dana@small.test"], subject="Drafted note", body="Later."))
    ok(call(api, episode, "mail", "send_draft", draft_id=draft["id"]))   # a draft sent to herself lands the same way
    assert labels_of(api, episode, "Drafted note") == {"SENT", "Notes", "UNREAD"}
