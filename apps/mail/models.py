"""Mail tables: a message is stored once; each mailbox holds entries pointing at it, with labels.

Gmail's model: every person's mailbox has its own copy of a message (an entry) with its own labels
and thread. System labels are labels too (INBOX, SENT, DRAFT, TRASH, SPAM, STARRED, IMPORTANT, UNREAD).
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from apps.kit.fulltext import fts5_index

SYSTEM_LABELS = ("INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "STARRED", "IMPORTANT", "UNREAD")


class Message(SQLModel, table=True):
    """The content of a message, shared by the mailboxes it was delivered to."""

    __tablename__ = "mail_message"
    id: int | None = Field(default=None, primary_key=True)
    rfc_id: str = Field(index=True)
    sender: str = Field(index=True)
    sender_name: str = ""
    to_addrs: str = ""
    cc_addrs: str = ""
    bcc_addrs: str = ""
    subject: str = ""
    body_text: str = ""
    body_html: str | None = None
    date: datetime = Field(index=True)
    in_reply_to: str | None = None
    references: str = ""
    list_id: str | None = Field(default=None, description="The List-Id header of mailing-list mail")

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
    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(foreign_key="mail_message.id", index=True)
    filename: str
    mime_type: str
    size: int
    content: bytes


class Thread(SQLModel, table=True):
    """A conversation in one person's mailbox."""

    __tablename__ = "mail_thread"
    id: int | None = Field(default=None, primary_key=True)
    owner: str = Field(index=True)
    subject: str = ""


class Entry(SQLModel, table=True):
    """A message as it sits in one person's mailbox: the id agents see as ``message_id``."""

    __tablename__ = "mail_entry"
    id: int | None = Field(default=None, primary_key=True)
    owner: str = Field(index=True)
    message_id: int = Field(foreign_key="mail_message.id", index=True)
    thread_id: int = Field(foreign_key="mail_thread.id", index=True)


class EntryLabel(SQLModel, table=True):
    __tablename__ = "mail_entry_label"
    entry_id: int = Field(foreign_key="mail_entry.id", primary_key=True)
    label: str = Field(primary_key=True, index=True)


class Label(SQLModel, table=True):
    """A user label in one person's mailbox."""

    __tablename__ = "mail_label"
    id: int | None = Field(default=None, primary_key=True)
    owner: str = Field(index=True)
    name: str


class Outbound(SQLModel, table=True):
    """Mail that left the world: one row per outside recipient, for graders to read."""

    __tablename__ = "mail_outbound"
    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(foreign_key="mail_message.id", index=True)
    recipient: str
    sent_at: datetime


TABLES = [Message, Attachment, Thread, Entry, EntryLabel, Label, Outbound]

# Full-text index over messages; the people column lets free text match names and addresses too.
DDL = fts5_index("mail_message", {
    "subject": "new.subject", "body": "new.body_text",
    "people": "new.sender_name || ' ' || new.sender || ' ' || new.to_addrs || ' ' || new.cc_addrs",
})


def split_addresses(text: str) -> list[str]:
    return [a for a in text.split(",") if a]


def join_addresses(addresses: list[str]) -> str:
    return ",".join(addresses)
