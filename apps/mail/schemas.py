"""What mail operations take and return: the public shapes, separate from the tables."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Public(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewAttachment(Public):
    """A file to attach: give ``text`` for text files or ``content_base64`` for binary ones."""

    filename: str = Field(min_length=1, max_length=255, description="File name shown to recipients")
    mime_type: str = Field("application/octet-stream", description="MIME type, e.g. text/csv")
    text: str | None = Field(None, description="The content of a text file")
    content_base64: str | None = Field(None, description="The content of a binary file, base64-encoded")


class AttachmentInfo(Public):
    id: int
    filename: str
    mime_type: str
    size: int


class MessageSummary(Public):
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


class Thread(Public):
    id: int
    subject: str
    messages: list[Message]


class SearchResult(Public):
    total: int = Field(description="How many messages match, beyond this page too")
    messages: list[MessageSummary]


class AttachmentContent(AttachmentInfo):
    encoding: Literal["text", "base64"]
    content: str


class LabelInfo(Public):
    name: str
    type: Literal["system", "user"]
    total: int
    unread: int


class Updated(Public):
    updated: list[int] = Field(description="Ids of the messages that were changed")


class Removed(Public):
    removed: str


class ThreadSummary(Public):
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


class ThreadSearchResult(Public):
    total: int = Field(description="How many conversations match, beyond this page too")
    threads: list[ThreadSummary]
