"""Mail's entities, each declared once (``apps.kit.entity``): the tables, and from their fields what
agents give and see and what a world's ``mail/`` files hold (``schemas``, ``world``).

Gmail's model: a message is stored once; every person's mailbox has its own copy of it (an entry)
with its own labels and thread. System labels are labels too (INBOX, SENT, DRAFT, TRASH, SPAM,
STARRED, IMPORTANT, UNREAD).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlmodel import SQLModel

from apps.kit.entity import attr
from apps.kit.fulltext import fts5_index

SYSTEM_LABELS = ("INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "STARRED", "IMPORTANT", "UNREAD")
_ROW = dict(create=False, update=False, see=False, world=False)  # a row id or link nobody sets or sees


class Message(SQLModel, table=True):
    """The content of a message, shared by the mailboxes it was delivered to. The recipients are kept
    as comma-joined addresses (``to_addrs``...); results and world files hold them as lists."""

    __tablename__ = "mail_message"
    id: int = attr(None, primary_key=True, description="Row id", **_ROW)
    rfc_id: str = attr(index=True, description="The RFC 5322 Message-ID header", **_ROW)
    sender: str = attr(index=True, description="Address of the sender", create=False, update=False)
    sender_name: str = attr("", description="The sender's name as the From header gives it", create=False,
                            update=False)
    to_addrs: str = attr("", description="Recipients, comma-joined", **_ROW)
    cc_addrs: str = attr("", description="Copied addresses, comma-joined", **_ROW)
    bcc_addrs: str = attr("", description="Blindly copied addresses, comma-joined", **_ROW)
    subject: str = attr("", description="Subject line")
    body_text: str = attr("", description="Plain-text body", see=False)
    body_html: str | None = attr(None, description="HTML version of the body, if any")
    date: datetime = attr(index=True, description="When the message was sent (or the draft last saved)",
                          create=False, update=False)
    in_reply_to: str | None = attr(None, description="Message-ID of the message this one answers",
                                   create=False, update=False)
    references: str = attr("", description="Message-IDs of the thread so far, space-separated", **_ROW)
    list_id: str | None = attr(None, description="The List-Id header of mailing-list mail", create=False,
                               update=False, see=False)

    @property
    def to(self) -> list[str]:
        return split_addresses(self.to_addrs)

    @property
    def cc(self) -> list[str]:
        return split_addresses(self.cc_addrs)

    @property
    def bcc(self) -> list[str]:
        return split_addresses(self.bcc_addrs)


class Attachment(SQLModel, table=True):
    __tablename__ = "mail_attachment"
    id: int = attr(None, primary_key=True, description="Id of the attachment (use it in get_attachment)",
                   create=False, update=False, world=False)
    message_id: int = attr(foreign_key="mail_message.id", index=True, description="The message", **_ROW)
    filename: str = attr(description="File name shown to recipients", min_length=1, max_length=255,
                    sa_type=String)  # VARCHAR as before: the length is checked, not declared
    mime_type: str = attr("application/octet-stream", description="MIME type, e.g. text/csv")
    size: int = attr(description="Size in bytes", create=False, update=False, world=False)
    content: bytes = attr(description="The file's bytes", create=False, update=False, see=False)


class Thread(SQLModel, table=True):
    """A conversation in one person's mailbox."""

    __tablename__ = "mail_thread"
    id: int = attr(None, primary_key=True, description="Id of the thread", create=False, update=False,
                   world=False)
    owner: str = attr(index=True, description="Whose mailbox", **_ROW)
    subject: str = attr("", description="Subject of the conversation (without Re:/Fwd:)", create=False,
                        update=False, world=False)


class Entry(SQLModel, table=True):
    """A message as it sits in one person's mailbox: the id agents see as ``message_id``."""

    __tablename__ = "mail_entry"
    id: int = attr(None, primary_key=True, description="The message's id in this mailbox (use it in other "
                   "operations)", create=False, update=False, world=False)
    owner: str = attr(description="Whose mailbox", **_ROW)   # indexed with message_id (``DDL``)
    message_id: int = attr(foreign_key="mail_message.id", index=True, description="The message", **_ROW)
    thread_id: int = attr(foreign_key="mail_thread.id", index=True, description="The conversation",
                          create=False, update=False, world=False)


class EntryLabel(SQLModel, table=True):
    __tablename__ = "mail_entry_label"
    entry_id: int = attr(foreign_key="mail_entry.id", primary_key=True, description="The entry", **_ROW)
    label: str = attr(primary_key=True, index=True, description="A system or user label", **_ROW)


class Label(SQLModel, table=True):
    """A user label in one person's mailbox."""

    __tablename__ = "mail_label"
    id: int | None = attr(None, primary_key=True, description="Row id", **_ROW)
    owner: str = attr(index=True, description="Whose mailbox", **_ROW)
    name: str = attr(description="The label's name, e.g. 'Deals/Renewals'.", update=False)


class Filter(SQLModel, table=True):
    """A Gmail filter in one person's mailbox: what mail it picks (every criterion given must hold) and what it
    does to that mail as it arrives (``filters``)."""

    __tablename__ = "mail_filter"
    id: int | None = attr(None, primary_key=True, description="Id of the filter", create=False, update=False,
                          world=False)
    owner: str = attr(index=True, description="Whose mailbox", **_ROW)
    sender: str | None = attr(None, description="From: words or an address the sender must match")
    to: str | None = attr(None, description="To: words or an address a recipient (to or cc) must match")
    subject: str | None = attr(None, description="Words the subject must hold")
    has_words: str | None = attr(None, description="Has the words: any Gmail search, e.g. 'invoice OR receipt'")
    doesnt_have: str | None = attr(None, description="Doesn't have: words the message must not hold")
    has_attachment: bool = attr(False, description="Only messages with an attachment")
    label: str | None = attr(None, description="Apply this user label (create it first)")
    archive: bool = attr(False, description="Skip the inbox (archive it)")
    mark_read: bool = attr(False, description="Mark it as read")
    star: bool = attr(False, description="Star it")
    important: bool = attr(False, description="Mark it as important")
    forward_to: str | None = attr(None, description="Forward it to this address of a person at the company")
    delete: bool = attr(False, description="Delete it (move it to the trash)")


class Outbound(SQLModel, table=True):
    """Mail that left the world: one row per outside recipient, for graders to read."""

    __tablename__ = "mail_outbound"
    id: int | None = attr(None, primary_key=True, description="Row id", **_ROW)
    message_id: int = attr(foreign_key="mail_message.id", index=True, description="The message sent", **_ROW)
    recipient: str = attr(description="The outside address", **_ROW)
    sent_at: datetime = attr(description="When it left", **_ROW)


TABLES: list[type[SQLModel]] = [Message, Attachment, Thread, Entry, EntryLabel, Label, Filter, Outbound]

# Full-text index over messages; the people column lets free text match names and addresses too.
FULLTEXT = {"subject": "new.subject", "body": "new.body_text",
            "people": "new.sender_name || ' ' || new.sender || ' ' || new.to_addrs || ' ' || new.cc_addrs"}
# A mailbox's entries by owner, covering the message each holds: a search joins a person's entries to
# the messages that match (or that the full-text index found), and to their threads, without reading the entry rows.
# Labels in the collation a search compares them in (``operators``: ``is:unread``, ``label:deals``), each with
# the entries holding it, so that a search lists those entries from the index alone.
DDL = [*fts5_index("mail_message", FULLTEXT),
       "create index ix_mail_entry_owner_message on mail_entry (owner, message_id, thread_id)",
       "create index ix_mail_entry_label_nocase on mail_entry_label (label collate nocase, entry_id)"]


def split_addresses(text: str) -> list[str]:
    parts = text.split(",")
    return parts if "" not in parts else [a for a in parts if a]   # stored lists have no empty parts (but "")


def join_addresses(addresses: list[str]) -> str:
    return ",".join(addresses)
