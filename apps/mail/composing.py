"""Mail operations that write mail: send, reply, reply-all, forward, and drafts."""

from __future__ import annotations

from sqlmodel import col, delete

from apps.kit import Ctx, NotFound, OperationSet
from apps.kit.wire import Wire
from apps.mail import delivery, fastpath, store
from apps.mail import models as m
from apps.mail import schemas as s

ops = OperationSet("mail")
# Attachments travel inline (text or base64): allow about 10 MB per one rather than the kit's 100 kB.
ATTACHMENT_TEXT_LIMIT = 10_000_000


@ops.write(text_limit=ATTACHMENT_TEXT_LIMIT)
def send(ctx: Ctx, to: list[str], subject: str, body: str, cc: list[str] = [], bcc: list[str] = [],
         html_body: str | None = None, attachments: list[s.NewAttachment] = []) -> Wire[s.Message]:
    """Send a new message. People of the company receive it in their inbox at once.

    Args:
        to: Recipient addresses.
        subject: Subject line.
        body: Plain-text body.
        cc: Addresses to copy.
        bcc: Addresses to copy blindly (hidden from the other recipients).
        html_body: Optional HTML version of the body.
        attachments: Files to attach.
    """
    msg = delivery.new_message(ctx, to, cc, bcc, subject, body, html_body)
    delivery.attach(ctx, msg, attachments)
    return fastpath.message(ctx, delivery.deliver(ctx, msg))


def _reply(ctx: Ctx, message_id: int, body: str, reply_all: bool,
           attachments: list[s.NewAttachment]) -> Wire[s.Message]:
    entry = store.entry_of(ctx, message_id)
    parent = store.message_of(ctx.session, entry)
    to, cc = delivery.reply_recipients(ctx, parent, reply_all)
    text = f"{body}\n\n{delivery.quoted(ctx, parent)}"
    msg = delivery.new_message(ctx, to, cc, [], delivery.prefixed("Re:", parent.subject), text, parent=parent)
    delivery.attach(ctx, msg, attachments)
    return fastpath.message(ctx, delivery.deliver(ctx, msg))


@ops.write(text_limit=ATTACHMENT_TEXT_LIMIT)
def reply(ctx: Ctx, message_id: int, body: str, attachments: list[s.NewAttachment] = []) -> Wire[s.Message]:
    """Reply to the sender of a message, in the same thread (the original is quoted below).

    Args:
        message_id: Id of the message to answer.
        body: Your reply, plain text.
        attachments: Files to attach.
    """
    return _reply(ctx, message_id, body, False, attachments)


@ops.write(text_limit=ATTACHMENT_TEXT_LIMIT)
def reply_all(ctx: Ctx, message_id: int, body: str, attachments: list[s.NewAttachment] = []) -> Wire[s.Message]:
    """Reply to the sender and every other recipient of a message (To and Cc), in the same thread.

    Args:
        message_id: Id of the message to answer.
        body: Your reply, plain text.
        attachments: Files to attach.
    """
    return _reply(ctx, message_id, body, True, attachments)


@ops.write
def forward(ctx: Ctx, message_id: int, to: list[str], body: str = "", cc: list[str] = []) -> Wire[s.Message]:
    """Forward a message, with its attachments, to new recipients.

    Args:
        message_id: Id of the message to forward.
        to: Recipient addresses.
        body: A note above the forwarded message.
        cc: Addresses to copy.
    """
    entry = store.entry_of(ctx, message_id)
    original = store.message_of(ctx.session, entry)
    text = f"{body}\n\n{delivery.forwarded(ctx, original)}".lstrip()
    msg = delivery.new_message(ctx, to, cc, [], delivery.prefixed("Fwd:", original.subject), text)
    delivery.copy_attachments(ctx, original, msg)
    return fastpath.message(ctx, delivery.deliver(ctx, msg))


@ops.write
def create_draft(ctx: Ctx, to: list[str] = [], subject: str = "", body: str = "", cc: list[str] = [],
                 bcc: list[str] = [], reply_to_message_id: int | None = None) -> Wire[s.Message]:
    """Save a draft without sending it. It appears under in:drafts; send it later with send_draft.

    Args:
        to: Recipient addresses.
        subject: Subject line (for a reply draft, defaults to 'Re: ' and the original subject).
        body: Plain-text body.
        cc: Addresses to copy.
        bcc: Addresses to copy blindly.
        reply_to_message_id: Make the draft a reply in the thread of this message.
    """
    parent = None
    if reply_to_message_id is not None:
        parent = store.message_of(ctx.session, store.entry_of(ctx, reply_to_message_id, "reply_to_message_id"))
        subject = subject or delivery.prefixed("Re:", parent.subject)
    msg = delivery.new_message(ctx, to, cc, bcc, subject, body, parent=parent)
    return fastpath.message(ctx, store.file_message(ctx, ctx.actor, msg, ["DRAFT"]))


def _draft(ctx: Ctx, draft_id: int) -> tuple[m.Entry, m.Message]:
    entry = store.entry_of(ctx, draft_id, "draft_id")
    if "DRAFT" not in store.labels_of(ctx.session, [entry.id])[entry.id]:
        raise NotFound(f"message {draft_id} is not a draft", field="draft_id")
    return entry, store.message_of(ctx.session, entry)


@ops.write
def update_draft(ctx: Ctx, draft_id: int, to: list[str] | None = None, subject: str | None = None,
                 body: str | None = None, cc: list[str] | None = None, bcc: list[str] | None = None) -> s.Message:
    """Edit a draft; fields left out keep their value.

    Args:
        draft_id: Id of the draft.
        to: New recipient addresses.
        subject: New subject line.
        body: New plain-text body.
        cc: New addresses to copy.
        bcc: New addresses to copy blindly.
    """
    entry, msg = _draft(ctx, draft_id)
    for field, value in (("to", to), ("cc", cc), ("bcc", bcc)):
        if value is not None:
            setattr(msg, f"{field}_addrs", m.join_addresses(store.check_addresses(field, value)))
    msg.subject = msg.subject if subject is None else subject
    msg.body_text = msg.body_text if body is None else body
    msg.date = ctx.now
    ctx.session.add(msg)
    ctx.session.flush()
    return store.detail(ctx.session, entry)


@ops.write
def send_draft(ctx: Ctx, draft_id: int) -> Wire[s.Message]:
    """Send a draft as it stands.

    Args:
        draft_id: Id of the draft.
    """
    entry, msg = _draft(ctx, draft_id)
    return fastpath.message(ctx, delivery.deliver(ctx, msg, sender_entry=entry))


@ops.write
def discard_draft(ctx: Ctx, draft_id: int) -> s.Removed:
    """Throw a draft away.

    Args:
        draft_id: Id of the draft.
    """
    entry, msg = _draft(ctx, draft_id)
    ctx.session.exec(delete(m.EntryLabel).where(col(m.EntryLabel.entry_id) == entry.id))
    ctx.session.exec(delete(m.Attachment).where(col(m.Attachment.message_id) == msg.id))
    ctx.session.delete(entry)
    ctx.session.flush()
    ctx.session.delete(msg)
    return s.Removed(removed=f"draft {draft_id}")
