"""Mail operations for reading and organising, as Gmail users know them (sending is in ``composing``).

Every ``message_id`` is the id of a message in the acting user's own mailbox.
"""

from __future__ import annotations

from sqlmodel import col, delete, func, select

from apps.kit import Conflict, Ctx, Invalid, NotFound, OperationSet, content
from apps.kit.wire import Wire
from apps.mail import fastpath, store, threadpath
from apps.mail import models as m
from apps.mail import schemas as s

ops = OperationSet("mail")

_SETTABLE = {"INBOX", "STARRED", "IMPORTANT", "UNREAD"}


@ops.read
def search(ctx: Ctx, query: str = "", limit: int = 20, offset: int = 0) -> Wire[s.SearchResult]:
    """Search your mailbox with Gmail's operators, newest first (or by relevance for free text).

    One row per message; search_threads lists conversations. Operators: from: to: cc: bcc:
    subject: label: in: is:unread is:read is:starred is:important has:attachment has:userlabels
    filename: before:YYYY/MM/DD after:YYYY/MM/DD older_than:3d newer_than:2m size: larger:10M
    smaller:1M list: deliveredto: rfc822msgid:, "quoted phrases", OR, {a b} (either), - to negate,
    parentheses, groups after an operator (subject:(deck board), from:(ravi OR lauren)), and
    'a AROUND 5 b'. Trash and spam are left out unless asked for.

    Args:
        query: Gmail search query, e.g. 'from:dana is:unread has:attachment'; empty lists everything.
        limit: Most messages to return (1-100).
        offset: Skip this many matches (for paging).
    """
    check_page(limit, offset)
    return fastpath.search(ctx, query, limit, offset)


def check_page(limit: int, offset: int) -> None:
    if not 1 <= limit <= 100:
        raise Invalid("limit: must be between 1 and 100", field="limit")
    if offset < 0:
        raise Invalid("offset: must not be negative", field="offset")


@ops.read
def get_message(ctx: Ctx, message_id: int) -> Wire[s.Message]:
    """Read one message in full: headers, body, labels and attachment list.

    Args:
        message_id: Id of the message in your mailbox (from search or a thread).
    """
    return fastpath.message(ctx, message_id)


@ops.read
def get_thread(ctx: Ctx, thread_id: int) -> Wire[s.Thread]:
    """Read a whole conversation, oldest message first.

    Args:
        thread_id: Id of the thread (the thread_id of any of its messages).
    """
    return threadpath.thread(ctx, thread_id)


@ops.read
def get_attachment(ctx: Ctx, message_id: int, attachment_id: int) -> s.AttachmentContent:
    """Download an attachment: text files come back as text, others base64-encoded.

    Args:
        message_id: Id of the message that carries the attachment.
        attachment_id: Id of the attachment (from the message's attachment list).
    """
    entry = store.entry_of(ctx, message_id)
    found = ctx.session.get(m.Attachment, attachment_id)
    if found is None or found.message_id != entry.message_id:
        raise NotFound(f"message {message_id} has no attachment {attachment_id}", field="attachment_id")
    encoding, text = content.encode(found.content)
    return s.AttachmentContent(id=found.id, filename=found.filename, mime_type=found.mime_type,
                               size=found.size, encoding=encoding, content=text)


@ops.read
def list_labels(ctx: Ctx) -> list[s.LabelInfo]:
    """List your system and user labels with how many messages (and unread ones) each holds."""
    rows = ctx.session.exec(
        select(col(m.EntryLabel.label), func.count()).join(m.Entry, col(m.Entry.id) == col(m.EntryLabel.entry_id))
        .where(col(m.Entry.owner) == ctx.actor).group_by(col(m.EntryLabel.label))).all()
    totals = dict(rows)
    unread = dict(ctx.sql.execute(
        "select l.label, count(*) from mail_entry_label l join mail_entry e on e.id = l.entry_id "
        "where e.owner = ? and exists (select 1 from mail_entry_label u where u.entry_id = l.entry_id "
        "and u.label = 'UNREAD') group by l.label", (ctx.actor,)))
    names = [(n, "system") for n in m.SYSTEM_LABELS] + [
        (lab.name, "user") for lab in ctx.session.exec(select(m.Label).where(col(m.Label.owner) == ctx.actor)
                                                        .order_by(col(m.Label.name)))]
    return [s.LabelInfo(name=n, type=t, total=totals.get(n, 0), unread=unread.get(n, 0)) for n, t in names]


@ops.write
def create_label(ctx: Ctx, name: str) -> s.LabelInfo:
    """Create a user label.

    Args:
        name: The label's name, e.g. 'Deals/Renewals'.
    """
    name = name.strip()
    if not name or len(name) > 100:
        raise Invalid("name: a label name has 1 to 100 characters", field="name")
    if name.upper() in m.SYSTEM_LABELS or store.user_label(ctx, name):
        raise Conflict(f"a label named {name!r} already exists", field="name")
    ctx.session.add(m.Label(owner=ctx.actor, name=name))
    return s.LabelInfo(name=name, type="user", total=0, unread=0)


@ops.write
def delete_label(ctx: Ctx, name: str) -> s.Removed:
    """Delete a user label; its messages stay, without the label.

    Args:
        name: The user label to delete.
    """
    label = store.user_label(ctx, name)
    if label is None:
        raise NotFound(f"you have no label named {name!r}", field="name")
    mine = select(col(m.Entry.id)).where(col(m.Entry.owner) == ctx.actor)
    ctx.session.exec(delete(m.EntryLabel).where(col(m.EntryLabel.label) == label.name, col(m.EntryLabel.entry_id).in_(mine)))
    ctx.session.delete(label)
    return s.Removed(removed=label.name)


def _relabel(ctx: Ctx, message_ids: list[int], add=(), remove=()) -> Wire[s.Updated]:
    return Wire({"updated": fastpath.relabel(ctx, message_ids, add, remove)})


@ops.write
def mark_read(ctx: Ctx, message_ids: list[int]) -> Wire[s.Updated]:
    """Mark messages as read.

    Args:
        message_ids: Ids of messages in your mailbox.
    """
    return _relabel(ctx, message_ids, remove=["UNREAD"])


@ops.write
def mark_unread(ctx: Ctx, message_ids: list[int]) -> Wire[s.Updated]:
    """Mark messages as unread.

    Args:
        message_ids: Ids of messages in your mailbox.
    """
    return _relabel(ctx, message_ids, add=["UNREAD"])


@ops.write
def star(ctx: Ctx, message_ids: list[int]) -> Wire[s.Updated]:
    """Star messages.

    Args:
        message_ids: Ids of messages in your mailbox.
    """
    return _relabel(ctx, message_ids, add=["STARRED"])


@ops.write
def unstar(ctx: Ctx, message_ids: list[int]) -> Wire[s.Updated]:
    """Remove the star from messages.

    Args:
        message_ids: Ids of messages in your mailbox.
    """
    return _relabel(ctx, message_ids, remove=["STARRED"])


@ops.write
def archive(ctx: Ctx, message_ids: list[int]) -> Wire[s.Updated]:
    """Archive messages: take them out of the inbox; they stay searchable in All Mail.

    Args:
        message_ids: Ids of messages in your mailbox.
    """
    return _relabel(ctx, message_ids, remove=["INBOX"])


@ops.write
def move_to_inbox(ctx: Ctx, message_ids: list[int]) -> Wire[s.Updated]:
    """Move archived messages back to the inbox.

    Args:
        message_ids: Ids of messages in your mailbox.
    """
    return _relabel(ctx, message_ids, add=["INBOX"], remove=["SPAM", "TRASH"])


@ops.write
def trash(ctx: Ctx, message_ids: list[int]) -> Wire[s.Updated]:
    """Move messages to the trash (restore brings them back; delete_forever removes them).

    Stars and importance stay on a trashed message, so that restoring it brings them back. A message in
    spam leaves spam for the trash, as in Gmail (it is no longer reported as spam).

    Args:
        message_ids: Ids of messages in your mailbox.
    """
    return _relabel(ctx, message_ids, add=["TRASH"], remove=["INBOX", "SPAM"])


@ops.write
def restore(ctx: Ctx, message_ids: list[int]) -> s.Updated:
    """Take messages out of the trash, back to where they were (received mail returns to the inbox).

    Args:
        message_ids: Ids of messages in the trash.
    """
    entries = store.entries_of(ctx, message_ids)
    for entry in entries:
        labels = store.labels_of(ctx.session, [entry.id])[entry.id]
        if "TRASH" not in labels:
            raise Conflict(f"message {entry.id} is not in the trash", field="message_ids")
        store.remove_labels(ctx.session, entry.id, ["TRASH"])
        if store.message_of(ctx.session, entry).sender != ctx.actor:
            store.add_labels(ctx.session, entry.id, ["INBOX"])
    return s.Updated(updated=[e.id for e in entries])


@ops.write
def delete_forever(ctx: Ctx, message_ids: list[int]) -> s.Updated:
    """Delete messages permanently. Only messages in the trash or spam can be deleted forever.

    Args:
        message_ids: Ids of messages in the trash or spam.
    """
    entries = store.entries_of(ctx, message_ids)
    for entry in entries:
        if not {"TRASH", "SPAM"} & set(store.labels_of(ctx.session, [entry.id])[entry.id]):
            raise Conflict(f"message {entry.id} is not in the trash or spam; trash it first", field="message_ids")
    for entry in entries:
        ctx.session.exec(delete(m.EntryLabel).where(col(m.EntryLabel.entry_id) == entry.id))
        ctx.session.delete(entry)
    return s.Updated(updated=[e.id for e in entries])


@ops.write
def mark_spam(ctx: Ctx, message_ids: list[int]) -> Wire[s.Updated]:
    """Report messages as spam: they move to the spam folder.

    Args:
        message_ids: Ids of messages in your mailbox.
    """
    return _relabel(ctx, message_ids, add=["SPAM"], remove=["INBOX", "STARRED", "IMPORTANT"])


@ops.write
def add_label(ctx: Ctx, message_ids: list[int], label: str) -> Wire[s.Updated]:
    """Put a label on messages: a user label (create it first) or INBOX, STARRED, IMPORTANT, UNREAD.

    Args:
        message_ids: Ids of messages in your mailbox.
        label: Name of the label.
    """
    return _relabel(ctx, message_ids, add=[label_name(ctx, label)])


@ops.write
def remove_label(ctx: Ctx, message_ids: list[int], label: str) -> Wire[s.Updated]:
    """Take a label off messages.

    Args:
        message_ids: Ids of messages in your mailbox.
        label: Name of the label.
    """
    return _relabel(ctx, message_ids, remove=[label_name(ctx, label)])


def label_name(ctx: Ctx, label: str) -> str:
    if label.upper() in _SETTABLE:
        return label.upper()
    if label.upper() in m.SYSTEM_LABELS:
        raise Invalid(f"label: {label.upper()} is set by sending, drafting, trash or spam operations, "
                      "not by labelling", field="label")
    found = store.user_label(ctx, label)
    if found is None:
        raise NotFound(f"you have no label named {label!r}; create it with create_label first", field="label")
    return found.name

