"""Reading and writing mailboxes: lookups by owner, labels, threading, and turning rows into results."""

from __future__ import annotations

import re
from collections import defaultdict

from sqlmodel import Session, col, delete, select

from apps.kit import Ctx, Invalid, NotFound, content
from apps.kit.checks import email_address
from apps.mail import models as m
from apps.mail import schemas as s
from apps.mail.rendering import body_text

_SUBJECT_PREFIX = re.compile(r"^\s*((re|fw|fwd)\s*:\s*)+", re.IGNORECASE)


def entry_of(ctx: Ctx, entry_id: int, field: str = "message_id") -> m.Entry:
    """The acting user's message ``entry_id``; another person's message is as good as absent."""
    entry = ctx.session.get(m.Entry, entry_id)
    if entry is None or entry.owner != ctx.actor:
        raise NotFound(f"no message {entry_id} in your mailbox", field=field)
    return entry


def message_of(session: Session, entry: m.Entry) -> m.Message:
    """The message an entry of a mailbox holds (an entry always holds one)."""
    found = session.get(m.Message, entry.message_id)
    if found is None:
        raise NotFound(f"message {entry.id} is gone", field="message_id")
    return found


def entries_of(ctx: Ctx, entry_ids: list[int]) -> list[m.Entry]:
    if not entry_ids:
        raise Invalid("message_ids: give at least one message id", field="message_ids")
    return [entry_of(ctx, i, "message_ids") for i in dict.fromkeys(entry_ids)]


def labels_of(session: Session, entry_ids: list[int]) -> dict[int, list[str]]:
    found: dict[int, list[str]] = defaultdict(list)
    if entry_ids:
        rows = session.exec(select(m.EntryLabel).where(col(m.EntryLabel.entry_id).in_(entry_ids)))
        for row in rows:
            found[row.entry_id].append(row.label)
    return {i: sorted(found[i]) for i in entry_ids}


def add_labels(session: Session, entry_id: int, labels: list[str]) -> None:
    have = set(labels_of(session, [entry_id])[entry_id])
    for label in labels:
        if label not in have:
            session.add(m.EntryLabel(entry_id=entry_id, label=label))
            have.add(label)


def remove_labels(session: Session, entry_id: int, labels: list[str]) -> None:
    session.exec(delete(m.EntryLabel).where(col(m.EntryLabel.entry_id) == entry_id, col(m.EntryLabel.label).in_(labels)))


def user_label(ctx: Ctx, name: str) -> m.Label | None:
    wanted = name.strip().lower()
    for label in ctx.session.exec(select(m.Label).where(col(m.Label.owner) == ctx.actor)):
        if label.name.lower() == wanted:
            return label
    return None


def check_addresses(field: str, addresses: list[str]) -> list[str]:
    return list(dict.fromkeys(email_address(address, field) for address in addresses))


def decode_attachment(field: str, new: s.NewAttachment) -> bytes:
    """The bytes of a file to attach, given as text or base64 (``apps.kit.content``)."""
    try:
        return content.decode(new.text, new.content_base64, field)
    except Invalid as exc:  # name the file: a message may carry several
        raise Invalid(f"{exc.message} ({new.filename})", field=field) from None


def base_subject(subject: str) -> str:
    return _SUBJECT_PREFIX.sub("", subject).strip()


def threads_of(ctx: Ctx, owners: list[str], message: m.Message) -> dict[str, int]:
    """Each owner's thread that ``message`` answers or references (In-Reply-To, References), for the owners who
    hold one of those messages: the thread of their first entry of the first such Message-ID in sort order, as
    the seed files it (``seed._Rows._thread``). One statement for every owner."""
    refs = sorted({r for r in [message.in_reply_to, *message.references.split()] if r})
    if not refs or not owners:
        return {}
    sql = (f"select e.owner, e.thread_id from mail_entry e join mail_message m on m.id = e.message_id"
           f" where e.owner in ({_marks(owners)}) and m.rfc_id in ({_marks(refs)}) order by m.rfc_id desc, e.id desc")
    return dict(ctx.sql.execute(sql, [*owners, *refs]).fetchall())   # the last row of an owner wins: the first


def file_message(ctx: Ctx, owner: str, message: m.Message, labels: list[str],
                 threads: dict[str, int] | None = None) -> int:
    """File ``message`` (already written) in ``owner``'s mailbox with ``labels``, in the owner's thread it
    answers (``threads``, as ``threads_of`` gives, which it asks when not given), else a new one; the new
    entry's id. Plain SQL: delivery files a message once per recipient, and the ORM's flushes were most of a
    reply's time."""
    if threads is None:
        threads = threads_of(ctx, [owner], message)
    sql = ctx.sql
    thread = threads.get(owner)
    if thread is None:
        thread = sql.execute("insert into mail_thread (owner, subject) values (?, ?)",
                             (owner, base_subject(message.subject))).lastrowid
    entry = sql.execute("insert into mail_entry (owner, message_id, thread_id) values (?, ?, ?)",
                        (owner, message.id, thread)).lastrowid
    sql.executemany("insert into mail_entry_label (entry_id, label) values (?, ?)",
                    [(entry, label) for label in dict.fromkeys(labels)])   # a new entry has none
    assert entry is not None
    return entry


def _marks(values: list) -> str:
    return ", ".join("?" * len(values))


def summaries(session: Session, entry_ids: list[int]) -> list[s.MessageSummary]:
    """Summaries of these entries, in the order given, in three queries whatever their number."""
    if not entry_ids:
        return []
    rows = {entry.id: (entry, msg) for entry, msg in session.exec(
        select(m.Entry, m.Message).join(m.Message, col(m.Message.id) == col(m.Entry.message_id))
        .where(col(m.Entry.id).in_(entry_ids)))}
    with_files = set(session.exec(select(col(m.Attachment.message_id)).where(
        col(m.Attachment.message_id).in_([msg.id for _, msg in rows.values()]))))
    labels = labels_of(session, entry_ids)
    return [s.MessageSummary(**_summary_fields(*rows[i], labels[i], rows[i][1].id in with_files)) for i in entry_ids]


def detail(session: Session, entry: m.Entry) -> s.Message:
    msg = message_of(session, entry)
    labels = labels_of(session, [entry.id])[entry.id]
    files = session.exec(select(m.Attachment).where(col(m.Attachment.message_id) == msg.id)
                         .order_by(col(m.Attachment.id))).all()
    return s.Message(
        **_summary_fields(entry, msg, labels, bool(files)),
        bcc=msg.bcc if entry.owner == msg.sender else [],
        body=body_text(msg.body_text, msg.body_html), body_html=msg.body_html, message_id=msg.rfc_id, in_reply_to=msg.in_reply_to,
        attachments=[s.AttachmentInfo(id=a.id, filename=a.filename, mime_type=a.mime_type, size=a.size) for a in files],
    )


def _summary_fields(entry: m.Entry, msg: m.Message, labels: list[str], has_files: bool) -> dict:
    return dict(
        id=entry.id, thread_id=entry.thread_id, sender=msg.sender, sender_name=msg.sender_name,
        to=msg.to, cc=msg.cc, subject=msg.subject, snippet=" ".join(body_text(msg.body_text, msg.body_html).split())[:140],
        date=msg.date, labels=labels, unread="UNREAD" in labels, starred="STARRED" in labels,
        has_attachments=has_files,
    )
