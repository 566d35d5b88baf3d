"""Plain-SQL versions of the hottest mail calls (reading a message, labelling messages).

They return exactly what the ORM paths in ``store`` return (``tests/apps/mail/test_fastpath.py``
compares both on every message of a world); they exist because the ORM costs ~100 µs a statement.
"""

from __future__ import annotations

from apps.kit import Ctx, Invalid, NotFound
from apps.kit.database import utc_time
from apps.mail import schemas as s
from apps.mail.models import split_addresses

_MESSAGE = (
    "select e.id, e.owner, e.thread_id, m.id, m.rfc_id, m.sender, m.sender_name, m.to_addrs, m.cc_addrs,"
    " m.bcc_addrs, m.subject, m.body_text, m.body_html, m.date, m.in_reply_to"
    " from mail_entry e join mail_message m on m.id = e.message_id where e.id = ?")
_LABELS = "select label from mail_entry_label where entry_id = ?"
_FILES = "select id, filename, mime_type, size from mail_attachment where message_id = ? order by id"


def message(ctx: Ctx, entry_id: int) -> s.Message:
    """The acting user's message ``entry_id`` in full (as ``store.detail(store.entry_of(...))``)."""
    conn = ctx.sql
    row = conn.execute(_MESSAGE, (entry_id,)).fetchone()
    if row is None or row[1] != ctx.actor:
        raise NotFound(f"no message {entry_id} in your mailbox", field="message_id")
    (eid, owner, thread_id, mid, rfc_id, sender, sender_name, to, cc, bcc, subject, body, html, date,
     in_reply_to) = row
    labels = sorted(label for (label,) in conn.execute(_LABELS, (eid,)))
    files = [s.AttachmentInfo(id=i, filename=f, mime_type=t, size=n)
             for i, f, t, n in conn.execute(_FILES, (mid,))]
    return s.Message(
        id=eid, thread_id=thread_id, sender=sender, sender_name=sender_name, to=split_addresses(to),
        cc=split_addresses(cc), subject=subject, snippet=" ".join(body.split())[:140],
        date=utc_time(date), labels=labels, unread="UNREAD" in labels,
        starred="STARRED" in labels, has_attachments=bool(files),
        bcc=split_addresses(bcc) if owner == sender else [], body=body, body_html=html, message_id=rfc_id,
        in_reply_to=in_reply_to, attachments=files,
    )


def relabel(ctx: Ctx, entry_ids: list[int], add=(), remove=()) -> s.Updated:
    """Add and remove labels on the acting user's messages; the first id not in the mailbox is refused."""
    if not entry_ids:
        raise Invalid("message_ids: give at least one message id", field="message_ids")
    ids = list(dict.fromkeys(entry_ids))
    conn, owners = ctx.sql, {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        owners.update(conn.execute(f"select id, owner from mail_entry where id in ({marks})", chunk))
    for i in ids:
        if owners.get(i) != ctx.actor:
            raise NotFound(f"no message {i} in your mailbox", field="message_ids")
    conn.executemany("delete from mail_entry_label where entry_id = ? and label = ?",
                     [(i, label) for i in ids for label in remove])
    conn.executemany("insert or ignore into mail_entry_label (entry_id, label) values (?, ?)",
                     [(i, label) for i in ids for label in dict.fromkeys(add)])
    return s.Updated(updated=ids)
