"""What mail operations take and return, derived from the entities in ``models`` where the fields are
the same (``apps.kit.entity``); a result that joins several tables adds its own fields."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from apps.kit.content import Encoding
from apps.kit.entity import Strict, derive
from apps.mail import models as m


class NewAttachment(derive(m.Attachment, "create", "NewAttachmentFields")):  # type: ignore[misc]
    """A file to attach: give ``text`` for text files or ``content_base64`` for binary ones."""

    text: str | None = Field(None, description="The content of a text file")
    content_base64: str | None = Field(None, description="The content of a binary file, base64-encoded")


class AttachmentInfo(derive(m.Attachment, "see", "AttachmentFields")):  # type: ignore[misc]
    id: int
    mime_type: str = Field(description="MIME type, e.g. text/csv")


class MessageSummary(Strict):
    id: int = Field(description="The message's id in this mailbox (use it in other operations)")
    thread_id: int
    sender: str
    sender_name: str
    to: list[str]
    cc: list[str]
    subject: str
    snippet: str
    date: datetime
    labels: list[str]
    unread: bool
    starred: bool
    has_attachments: bool


class Message(MessageSummary):
    bcc: list[str] = Field(description="Blind copies; visible only in the sender's own mailbox")
    body: str
    body_html: str | None
    message_id: str = Field(description="The RFC 5322 Message-ID header")
    in_reply_to: str | None
    attachments: list[AttachmentInfo]


class Thread(Strict):
    id: int
    subject: str
    messages: list[Message]


class SearchResult(Strict):
    total: int = Field(description="How many messages match, beyond this page too")
    messages: list[MessageSummary]


class AttachmentContent(AttachmentInfo):
    encoding: Encoding
    content: str


class LabelInfo(derive(m.Label, "see", "LabelFields")):  # type: ignore[misc]
    type: Literal["system", "user"]
    total: int
    unread: int


if TYPE_CHECKING:
    FilterFields = m.Filter   # mypy checks the derived model's fields against the entity's
else:
    FilterFields = derive(m.Filter, "create", "FilterFields")


class FilterInfo(derive(m.Filter, "see", "FilterSeen")):  # type: ignore[misc]
    query: str = Field(description="The Gmail search the filter's criteria make")
    applied_to: int = Field(0, description="How many messages already in the mailbox it was applied to")


class Updated(Strict):
    updated: list[int] = Field(description="Ids of the messages that were changed")


class Removed(Strict):
    removed: str


class ThreadSummary(Strict):
    """One conversation as Gmail lists it: its newest message, how many messages, who took part."""

    id: int = Field(description="The thread's id (use it in get_thread and the *_thread operations)")
    subject: str
    snippet: str = Field(description="The start of the newest message")
    date: datetime = Field(description="When the newest message was sent")
    message_count: int = Field(description="Messages in the conversation (trash and spam left out unless asked)")
    participants: list[str] = Field(description="Senders, by name where known, in the order they first wrote")
    labels: list[str] = Field(description="Every label on any of its messages")
    unread: bool
    starred: bool
    has_attachments: bool
    latest: MessageSummary
    messages: list[MessageSummary] | None = Field(
        None, description="Every message, oldest first, when include_messages was asked for")


class ThreadSearchResult(Strict):
    total: int = Field(description="How many conversations match, beyond this page too")
    threads: list[ThreadSummary]
