"""The records of a world's ``mail/`` folder, derived from the entities in ``models`` where the fields
are the same; what a file holds differently (recipients as lists, the Message-ID, the file it came
from) is declared here. ``apps.mail.world`` reads and writes them; ``seed`` fills the tables from them."""

from __future__ import annotations

from pydantic import Field

from apps.kit.entity import Strict, derive
from apps.mail import models as m


class MailAttachment(derive(m.Attachment, "world", "MailAttachmentFields")):  # type: ignore[misc]
    """A file a message carries (``mail/attachments/<filename>``)."""


_Fields = derive(m.Message, "world", "MailMessageFields")


class MailMessage(_Fields):  # type: ignore[misc,valid-type]
    """One message file (``.eml``) of the world's mail."""

    source: str = Field(description="The file, e.g. mail/deal-00001/1.eml")
    lines: dict[str, int] = Field(default_factory=dict, exclude=True, description="Header name -> line in source")
    message_id: str = Field(description="The Message-ID header")
    to: list[str] = Field(description="Recipients")
    cc: list[str] = Field(default_factory=list, description="Copied addresses")
    bcc: list[str] = Field(default_factory=list, description="Blindly copied addresses")
    references: list[str] = Field(default_factory=list, description="Message-IDs of the thread so far")
    attachments: list[MailAttachment] = Field(default_factory=list)
    draft: bool = Field(False, description="A draft in its sender's mailbox, not delivered (X-Draft: yes)")


class MailFilter(derive(m.Filter, "world", "MailFilterFields")):  # type: ignore[misc]
    """A filter of the mailbox (criteria and actions as ``create_filter`` takes them): it acts on mail that
    arrives during an episode; the world's own mail is as the files and labels say."""


class Mailbox(Strict):
    """Per-person mailbox state from ``mail/mailboxes.yaml``: user labels, labels on messages and filters."""

    labels: list[str] = Field(default_factory=list, description=m.Label.model_fields["name"].description)
    messages: dict[str, list[str]] = Field(default_factory=dict, description="Labels by Message-ID")
    filters: list[MailFilter] = Field(default_factory=list, description="Filters, in the order they were made")


class MailData(Strict):
    messages: list[MailMessage] = Field(default_factory=list)
    mailboxes: dict[str, Mailbox] = Field(default_factory=dict)
