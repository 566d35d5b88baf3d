"""Composing and delivering mail inside the world.

A sent message is filed in the sender's mailbox (SENT) and in every recipient's who is a person of
the world (INBOX, UNREAD); a sender among the recipients holds one entry with both (SENT, INBOX, UNREAD), as in
Gmail. Each recipient's filters act on the entry that landed in their mailbox, the sender's own included.
Outside recipients get a row in the outbound log. An address at the company's own domain that belongs to nobody
bounces back to the sender, as a real server would.
"""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from sqlmodel import col, select

from apps.kit import Ctx, Invalid
from apps.kit.database import stored_time
from apps.mail import filters, seed, store
from apps.mail import models as m
from apps.mail import schemas as s
from apps.mail.rendering import body_text

MAILER_DAEMON = "mailer-daemon"


def new_message(ctx: Ctx, to: list[str], cc: list[str], bcc: list[str], subject: str, body: str,
                html: str | None = None, parent: m.Message | None = None) -> m.Message:
    """A new message from the actor, written in one plain insert: its id is the next one, as SQLite would give
    it, so that its Message-ID names it in the same row. The message returned is not in the session: what
    changes it afterwards goes through SQL."""
    msg = m.Message(
        rfc_id="", sender=ctx.actor, sender_name=_name(ctx),
        to_addrs=m.join_addresses(store.check_addresses("to", to)),
        cc_addrs=m.join_addresses(store.check_addresses("cc", cc)),
        bcc_addrs=m.join_addresses(store.check_addresses("bcc", bcc)),
        subject=subject, body_text=body_text(body, html), body_html=html, date=ctx.now,
        in_reply_to=parent.rfc_id if parent else None,
        references=" ".join(filter(None, [parent.references, parent.rfc_id])) if parent else "",
    )
    sql = ctx.sql
    msg.id = sql.execute("select coalesce(max(id), 0) + 1 from mail_message").fetchone()[0]
    # The Message-ID names the sender's own mail domain, as every mail server writes it: an outsider's is theirs.
    local, _, domain = ctx.actor.partition("@")
    msg.rfc_id = f"<{ctx.now:%Y%m%d%H%M%S}.{msg.id}.{local}@{domain or ctx.world.domain}>"
    sql.execute(_INSERT_MESSAGE, [stored_time(v) if isinstance(v, datetime) else v
                                  for v in (getattr(msg, column) for column in _MESSAGE_COLUMNS)])
    return msg


_MESSAGE_COLUMNS = [column.name for column in getattr(m.Message, "__table__").columns]
_INSERT_MESSAGE = seed.insert_statement(m.Message)


def _name(ctx: Ctx) -> str:
    """The sender's display name: a person's, or an outsider's (a customer writing in during an episode)."""
    person = ctx.world.people_by_email().get(ctx.actor)
    if person is not None:
        return person.name
    return next((o.name for o in ctx.world.outsiders if o.email == ctx.actor), "")


def attach(ctx: Ctx, msg: m.Message, files: list[s.NewAttachment]) -> None:
    for new in files:
        content = store.decode_attachment("attachments", new)
        ctx.session.add(m.Attachment(message_id=msg.id, filename=new.filename, mime_type=new.mime_type,
                                     size=len(content), content=content))


def copy_attachments(ctx: Ctx, source: m.Message, target: m.Message) -> None:
    for a in ctx.session.exec(select(m.Attachment).where(col(m.Attachment.message_id) == source.id)):
        ctx.session.add(m.Attachment(message_id=target.id, filename=a.filename, mime_type=a.mime_type,
                                     size=a.size, content=a.content))


def check_sendable(msg: m.Message) -> None:
    if not (msg.to or msg.cc or msg.bcc):
        raise Invalid("to: a message needs at least one recipient in to, cc or bcc", field="to")
    if not msg.subject.strip() and not msg.body_text.strip():
        raise Invalid("body: a message needs a subject or a body", field="body")


def deliver(ctx: Ctx, msg: m.Message, sender_entry: m.Entry | None = None) -> int:
    """File ``msg`` as sent by the actor and deliver it; returns the id of the sender's entry (``sender_entry``,
    a draft being sent, or a new one). Every person's thread is looked up at once (``store.threads_of``)."""
    check_sendable(msg)
    if sender_entry is not None:   # a draft (in the session) is dated when it is sent; a new message already is
        msg.date = ctx.now
    people = ctx.world.people_by_email()
    recipients = list(dict.fromkeys(msg.to + msg.cc + msg.bcc))
    to_self = ["INBOX", "UNREAD"] if ctx.actor in recipients else []
    colleagues = [r for r in recipients if r in people and r != ctx.actor]
    threads = store.threads_of(ctx, [ctx.actor, *colleagues], msg)
    if sender_entry is None:
        sender = store.file_message(ctx, ctx.actor, msg, ["SENT", *to_self], threads)
    else:
        sender = sender_entry.id
        store.remove_labels(ctx.session, sender, ["DRAFT"])
        store.add_labels(ctx.session, sender, ["SENT", *to_self])
    arrived = [(ctx.actor, sender)] if to_self else []   # one entry, sent and received: their filters act on it
    for recipient in recipients:
        if recipient == ctx.actor:
            continue   # filed above, in their inbox too
        if recipient in people:
            arrived.append((recipient, store.file_message(ctx, recipient, msg, ["INBOX", "UNREAD"], threads)))
        elif recipient.endswith("@" + ctx.world.domain):
            bounce(ctx, msg, recipient)
        else:
            ctx.session.add(m.Outbound(message_id=msg.id, recipient=recipient, sent_at=ctx.now))
    filters.arrived(ctx, arrived)   # each recipient's filters act on the mail as it lands
    return sender


def bounce(ctx: Ctx, original: m.Message, recipient: str) -> None:
    notice = m.Message(
        rfc_id=f"<bounce.{original.id}.{recipient}>", sender=f"{MAILER_DAEMON}@{ctx.world.domain}",
        sender_name="Mail Delivery Subsystem", to_addrs=ctx.actor,
        subject="Delivery Status Notification (Failure)",
        body_text=(f"Address not found\n\nYour message wasn't delivered to {recipient} because the address "
                   f"couldn't be found, or is unable to receive mail.\n\nOriginal subject: {original.subject}"),
        date=ctx.now, in_reply_to=original.rfc_id, references=original.rfc_id,
    )
    ctx.session.add(notice)
    ctx.session.flush()
    store.file_message(ctx, ctx.actor, notice, ["INBOX", "UNREAD"])


def reply_recipients(ctx: Ctx, msg: m.Message, reply_all: bool) -> tuple[list[str], list[str]]:
    """Gmail's rules: reply goes to the sender (or, for your own message, to its recipients)."""
    if msg.sender == ctx.actor:
        to = msg.to
        cc = msg.cc if reply_all else []
    else:
        to = [msg.sender] + ([a for a in msg.to if a != ctx.actor] if reply_all else [])
        cc = [a for a in msg.cc if a != ctx.actor] if reply_all else []
    return list(dict.fromkeys(to)), [a for a in dict.fromkeys(cc) if a not in to]


def prefixed(prefix: str, subject: str) -> str:
    return subject if subject.lower().startswith(prefix.lower()) else f"{prefix} {subject}"


def local_time(ctx: Ctx, moment: datetime) -> str:
    """A time as Gmail writes it in quoted headers, in the world's time zone: 'Tue, Mar 10, 2026 at 9:14 AM'."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    local = aware.astimezone(ZoneInfo(ctx.world.timezone))
    return f"{local:%a, %b} {local.day}, {local.year} at {local.hour % 12 or 12}:{local:%M %p}"


def quoted(ctx: Ctx, msg: m.Message) -> str:
    lines = "\n".join("> " + line for line in msg.body_text.splitlines())
    return f"On {local_time(ctx, msg.date)} {msg.sender_name or msg.sender} <{msg.sender}> wrote:\n{lines}"


def forwarded(ctx: Ctx, msg: m.Message) -> str:
    return (f"---------- Forwarded message ---------\nFrom: {msg.sender_name} <{msg.sender}>\n"
            f"Date: {local_time(ctx, msg.date)}\nSubject: {msg.subject}\nTo: {', '.join(msg.to)}\n\n"
            f"{msg.body_text}")
