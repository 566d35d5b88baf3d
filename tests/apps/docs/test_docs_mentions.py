"""@mentions mail the person through the mail app in the same episode, recorded as a follow-up step."""

from sqlmodel import select
from surfaces import call

from apps.mail import models as m


def _doc(api, episode, name="Q2 plan"):
    made = call(api, episode, "docs", "create_document", name=name, text="Budget: 120k for the launch.")
    assert made.status_code == 200, made.text
    return made.json()["id"]


def test_a_mention_mails_the_person_and_says_who_lacks_access(api, store, episode):
    doc = _doc(api, episode)
    call(api, episode, "docs", "share", file_id=doc, email="ravi@small.test", role="commenter")
    made = call(api, episode, "docs", "add_comment", file_id=doc, quote="120k",
                text="@ravi please check, and +mei@small.test FYI. +1 from me")
    assert made.status_code == 200, made.text
    body = made.json()
    assert body["mentions"] == ["mei@small.test", "ravi@small.test"]
    assert body["mentioned_without_access"] == ["mei@small.test"]

    # Ravi and Mei find the notification in their own inboxes, as a grader reads the mail state.
    with store.get(episode["id"]).db("mail").session() as session:
        rows = session.exec(select(m.Entry.owner, m.Message.subject).join(m.Message, m.Message.id == m.Entry.message_id)
                            .where(m.Message.subject.contains("mentioned you"))).all()
    assert sorted(owner for owner, _ in rows) == ["dana@small.test", "dana@small.test", "mei@small.test",
                                                   "ravi@small.test"]
    steps = api.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"]
    comment_step = next(s for s in steps if s["operation"] == "add_comment")
    mails = [s for s in steps if s["app"] == "mail" and s["operation"] == "send"]
    assert [s["requested_by"] for s in mails] == [comment_step["index"]] * 2
    assert sorted(s["arguments"]["to"][0] for s in mails) == ["mei@small.test", "ravi@small.test"]
    mei_mail = next(s for s in mails if s["arguments"]["to"] == ["mei@small.test"])
    assert "do not have access" in mei_mail["arguments"]["body"] and "> 120k" in mei_mail["arguments"]["body"]
    sent = call(api, episode, "mail", "search", query="in:sent mentioned you").json()
    assert sent["total"] == 2 and all(m["subject"] == "Q2 plan - Dana Whitfield mentioned you in a comment"
                                      for m in sent["messages"])


def test_no_mail_for_a_failed_comment_or_for_mentioning_yourself(api, episode):
    doc = _doc(api, episode)
    bad = call(api, episode, "docs", "add_comment", file_id=doc, text="@nobody look")
    assert bad.status_code == 422
    call(api, episode, "docs", "add_comment", file_id=doc, text="note to self @dana")
    steps = api.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"]
    assert not [s for s in steps if s["app"] == "mail"]
