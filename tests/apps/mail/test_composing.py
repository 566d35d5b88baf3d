"""Sending, replying, forwarding and drafts over REST, read back from the recipients' mailboxes."""

import base64

from sqlmodel import select
from surfaces import call

from apps.mail import models as m


def inbox_of(api, store, episode, person):
    """Subjects in ``person``'s inbox, read from the episode's database as a grader would."""
    db = store.get(episode["id"]).db("mail")
    with db.session() as s:
        rows = s.exec(select(m.Message.subject).join(m.Entry, m.Entry.message_id == m.Message.id)
                      .join(m.EntryLabel, m.EntryLabel.entry_id == m.Entry.id)
                      .where(m.Entry.owner == person, m.EntryLabel.label == "INBOX")).all()
    return sorted(rows)


def find(api, episode, query):
    return call(api, episode, "mail", "search", query=query).json()["messages"]


def test_send_delivers_inside_and_logs_outside(api, store, episode):
    sent = call(api, episode, "mail", "send", to=["ravi@small.test", "sam@globex.example"], cc=["mei@small.test"],
                subject="Q2 plan", body="Draft attached soon.")
    assert sent.status_code == 200, sent.text
    assert sent.json()["labels"] == ["SENT"]
    assert "Q2 plan" in inbox_of(api, store, episode, "ravi@small.test")
    assert "Q2 plan" in inbox_of(api, store, episode, "mei@small.test")
    with store.get(episode["id"]).db("mail").session() as s:
        assert [o.recipient for o in s.exec(select(m.Outbound))] == ["sam@globex.example"]


def test_unknown_company_address_bounces(api, episode):
    call(api, episode, "mail", "send", to=["ravvi@small.test"], subject="Typo", body="hello")
    bounce = find(api, episode, "from:mailer-daemon")
    assert bounce and "ravvi@small.test" in call(api, episode, "mail", "get_message",
                                                 message_id=bounce[0]["id"]).json()["body"]


def test_reply_all_threads_and_addresses_everyone_but_me(api, episode):
    original = find(api, episode, "subject:outage")[0]
    reply = call(api, episode, "mail", "reply_all", message_id=original["id"], body="Thanks Mei.").json()
    assert reply["to"] == ["mei@small.test", "ravi@small.test"]
    assert reply["subject"] == "Re: Outage postmortem for Initech"
    assert reply["thread_id"] == original["thread_id"]
    thread = call(api, episode, "mail", "get_thread", thread_id=original["thread_id"]).json()
    assert [msg["subject"] for msg in thread["messages"]][-1] == "Re: Outage postmortem for Initech"
    assert "> The dashboard outage lasted 42 minutes" in reply["body"]


def test_reply_goes_to_the_sender_only(api, episode):
    original = find(api, episode, "subject:outage")[0]
    reply = call(api, episode, "mail", "reply", message_id=original["id"], body="Got it").json()
    assert reply["to"] == ["mei@small.test"] and reply["cc"] == []


def test_forward_carries_attachments(api, episode):
    original = find(api, episode, "has:attachment")[0]
    fwd = call(api, episode, "mail", "forward", message_id=original["id"], to=["ravi@small.test"],
               body="FYI").json()
    assert fwd["subject"] == "Fwd: Globex renewal pricing"
    assert [a["filename"] for a in fwd["attachments"]] == ["quote.csv"]
    content = call(api, episode, "mail", "get_attachment", message_id=fwd["id"],
                   attachment_id=fwd["attachments"][0]["id"]).json()
    assert content["encoding"] == "text" and "184000" in content["content"]


def test_binary_attachment_round_trip(api, episode):
    payload = bytes(range(256))
    sent = call(api, episode, "mail", "send", to=["mei@small.test"], subject="bin", body="b", attachments=[
        {"filename": "blob.bin", "content_base64": base64.b64encode(payload).decode()}]).json()
    got = call(api, episode, "mail", "get_attachment", message_id=sent["id"],
               attachment_id=sent["attachments"][0]["id"]).json()
    assert got["encoding"] == "base64" and base64.b64decode(got["content"]) == payload and got["size"] == 256


def test_draft_lifecycle(api, store, episode):
    draft = call(api, episode, "mail", "create_draft", to=["ravi@small.test"], subject="Offer", body="v1").json()
    assert draft["labels"] == ["DRAFT"]
    assert "Offer" not in inbox_of(api, store, episode, "ravi@small.test")
    edited = call(api, episode, "mail", "update_draft", draft_id=draft["id"], body="v2").json()
    assert edited["body"] == "v2" and edited["to"] == ["ravi@small.test"]
    sent = call(api, episode, "mail", "send_draft", draft_id=draft["id"]).json()
    assert sent["labels"] == ["SENT"] and "Offer" in inbox_of(api, store, episode, "ravi@small.test")
    assert call(api, episode, "mail", "send_draft", draft_id=draft["id"]).status_code == 404
    other = call(api, episode, "mail", "create_draft", subject="scrap").json()
    assert call(api, episode, "mail", "discard_draft", draft_id=other["id"]).status_code == 200
    assert find(api, episode, "in:drafts") == []


def test_a_draft_without_recipients_cannot_be_sent(api, episode):
    draft = call(api, episode, "mail", "create_draft", subject="Nobody").json()
    response = call(api, episode, "mail", "send_draft", draft_id=draft["id"])
    assert response.status_code == 422 and response.json()["error"]["field"] == "to"


def test_reply_draft_joins_the_thread(api, episode):
    original = find(api, episode, "subject:outage")[0]
    draft = call(api, episode, "mail", "create_draft", to=["mei@small.test"], body="later",
                 reply_to_message_id=original["id"]).json()
    assert draft["thread_id"] == original["thread_id"] and draft["subject"] == "Re: Outage postmortem for Initech"


def test_bcc_is_seen_only_by_the_sender(api, episode):
    sent = call(api, episode, "mail", "send", to=["ravi@small.test"], bcc=["mei@small.test"], subject="Secret",
                body="x").json()
    assert sent["bcc"] == ["mei@small.test"]


def test_validation_errors_name_the_field(api, episode):
    cases = [
        ({"to": ["nope"], "subject": "s", "body": "b"}, "to"),
        ({"to": ["a@b.example"], "cc": ["bad address"], "subject": "s", "body": "b"}, "cc"),
        ({"to": ["a@b.example"], "subject": "", "body": ""}, "body"),
        ({"subject": "s", "body": "b"}, "to"),
        ({"to": ["a@b.example"], "subject": "s", "body": "b", "colour": "red"}, "colour"),
        ({"to": "a@b.example", "subject": 5, "body": "b"}, "to"),
    ]
    for arguments, field in cases:
        response = call(api, episode, "mail", "send", **arguments)
        assert response.status_code == 422, (arguments, response.text)
        assert response.json()["error"]["field"] == field, (arguments, response.json())


def thread_of(store, episode, person, subject):
    """``person``'s thread ids of the messages with ``subject``, read from the episode's database."""
    db = store.get(episode["id"]).db("mail")
    return [row[0] for row in db.conn.execute(
        "select e.thread_id from mail_entry e join mail_message m on m.id = e.message_id"
        " where e.owner = ? and m.subject = ? order by e.id", (person, subject))]


def test_a_reply_lands_in_each_recipients_own_thread_and_new_mail_starts_one(api, store, episode):
    original = find(api, episode, "subject:outage")[0]
    people = ("mei@small.test", "ravi@small.test")
    before = {p: thread_of(store, episode, p, original["subject"]) for p in people}
    assert all(len(threads) == 1 for threads in before.values())
    reply = call(api, episode, "mail", "reply_all", message_id=original["id"], body="Thanks both.").json()
    for person, threads in before.items():   # everyone's copy of the reply joins their own copy of the thread
        assert thread_of(store, episode, person, reply["subject"]) == threads
    sent = call(api, episode, "mail", "send", to=["dana@small.test", "ravi@small.test"], subject="Offsite",
                body="Friday?").json()
    assert sent["labels"] == ["INBOX", "SENT", "UNREAD"]   # sent to oneself too: one copy, in the inbox as well
    assert thread_of(store, episode, "dana@small.test", "Offsite") == [sent["thread_id"]]
    [new] = thread_of(store, episode, "ravi@small.test", "Offsite")
    assert new not in before["ravi@small.test"] and new != sent["thread_id"]
