"""Fill a fresh mail database from a world's mail: deliver every message, then apply mailbox state."""

from __future__ import annotations

from datetime import timezone

from sqlmodel import Session, select

from apps.mail import models as m
from apps.mail import store
from apps.mail.rendering import body_text


def seed(session: Session, world) -> None:
    people = world.info.people_by_email()
    by_rfc: dict[str, m.Message] = {}
    for source in sorted(world.mail.messages, key=lambda msg: (msg.date, msg.source)):
        msg = _message(session, source)
        by_rfc[msg.rfc_id] = msg
        if source.draft:
            store.file_message(session, msg.sender, msg, ["DRAFT"])
            continue
        if msg.sender in people:
            store.file_message(session, msg.sender, msg, ["SENT"])
        for recipient in dict.fromkeys(msg.to + msg.cc + msg.bcc):
            if recipient in people and recipient != msg.sender:
                store.file_message(session, recipient, msg, ["INBOX"])
    for owner, box in world.mail.mailboxes.items():
        _apply_mailbox(session, owner, box, by_rfc)


def _message(session: Session, source) -> m.Message:
    msg = m.Message(
        rfc_id=source.message_id, sender=source.sender, sender_name=source.sender_name,
        to_addrs=m.join_addresses(source.to), cc_addrs=m.join_addresses(source.cc),
        bcc_addrs=m.join_addresses(source.bcc), subject=source.subject,
        body_text=body_text(source.body_text, source.body_html),
        body_html=source.body_html, date=source.date.astimezone(timezone.utc),
        in_reply_to=source.in_reply_to, references=" ".join(source.references), list_id=source.list_id,
    )
    session.add(msg)
    session.flush()
    for a in source.attachments:
        session.add(m.Attachment(message_id=msg.id, filename=a.filename, mime_type=a.mime_type,
                                 size=len(a.content), content=a.content))
    return msg


def _apply_mailbox(session: Session, owner: str, box, by_rfc: dict[str, m.Message]) -> None:
    for name in box.labels:
        session.add(m.Label(owner=owner, name=name))
    for rfc_id, labels in box.messages.items():
        entry = session.exec(select(m.Entry).where(
            m.Entry.owner == owner, m.Entry.message_id == by_rfc[rfc_id].id)).first()
        if entry is None:
            continue
        store.add_labels(session, entry.id, [label for label in labels])
        if {"TRASH", "SPAM"} & set(labels):
            store.remove_labels(session, entry.id, ["INBOX"])
