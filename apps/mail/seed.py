"""Fill a fresh mail database from a world's mail section: deliver every message, then apply mailbox state.

Rows are made as plain tuples in the columns' declared order (``models``), with ids given here (each
table starts empty, so they are what SQLite would give), and written with one ``executemany`` a table
in the build's one transaction; the full-text index is filled once after the messages, not by its
trigger row by row. Rows, ids and threads come out as ``store.file_message`` would make them.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, SQLModel

from apps.kit.database import stored_time
from apps.mail import models as m
from apps.mail import store
from apps.mail.records import Mailbox, MailData, MailMessage
from apps.mail.rendering import body_text
from worlds.model import World

_TRIGGER = "create trigger mail_message_ai "


def seed(session: Session, world: World) -> None:
    rows = _Rows(world, world.sections.get("mail") or MailData()).run()
    connection = session.connection()
    trigger = next(statement for statement in m.DDL if statement.startswith(_TRIGGER))
    connection.exec_driver_sql("drop trigger mail_message_ai")
    for table, values in rows.items():
        if values:
            connection.exec_driver_sql(insert_statement(table), values)
    columns = ", ".join(m.FULLTEXT)
    connection.exec_driver_sql(f"insert into mail_message_fts (rowid, {columns}) select id, "
                               f"{', '.join(m.FULLTEXT.values()).replace('new.', '')} from mail_message")
    connection.exec_driver_sql(trigger)


def insert_statement(table: type[SQLModel]) -> str:
    """``insert`` of every column, in the order the entity declares them (``references`` is an SQL word)."""
    columns = [f'"{column.name}"' for column in getattr(table, "__table__").columns]
    return f"insert into {getattr(table, '__tablename__')} ({', '.join(columns)}) values ({', '.join('?' * len(columns))})"


class _Rows:
    """Every row of the pristine database, by table, as tuples in the table's column order."""

    def __init__(self, world: World, mail: MailData):
        self.mail = mail
        self.people = world.info.people_by_email()
        self.rows: dict[type[SQLModel], list[tuple]] = {table: [] for table in m.TABLES}
        self.labels: dict[int, dict[str, None]] = {}  # entry id -> its labels, in the order they came
        self.by_rfc: dict[str, int] = {}  # Message-ID -> message id (the last one of that id)
        self.thread_of: dict[tuple[str, str], int] = {}  # (owner, Message-ID) -> thread of the first such entry
        self.entry_of: dict[tuple[str, int], int] = {}  # (owner, message id) -> the owner's first entry of it

    def run(self) -> dict[type[SQLModel], list[Any]]:
        for source in sorted(self.mail.messages, key=lambda msg: (msg.date, msg.source)):
            self._deliver(source)
        for owner, box in self.mail.mailboxes.items():
            self._apply_mailbox(owner, box)
        self.rows[m.EntryLabel] = [(entry, label) for entry, labels in self.labels.items() for label in labels]
        return self.rows

    def _next(self, table: type[SQLModel]) -> int:
        return len(self.rows[table]) + 1

    def _deliver(self, source: MailMessage) -> None:
        message_id = self._message(source)
        if source.draft:
            self._file(source, message_id, source.sender, "DRAFT")
            return
        if source.sender in self.people:
            self._file(source, message_id, source.sender, "SENT")
        for recipient in dict.fromkeys(source.to + source.cc + source.bcc):
            if recipient in self.people and recipient != source.sender:
                self._file(source, message_id, recipient, "INBOX")

    def _message(self, source: MailMessage) -> int:
        message_id = self._next(m.Message)
        self.rows[m.Message].append((
            message_id, source.message_id, source.sender, source.sender_name, m.join_addresses(source.to),
            m.join_addresses(source.cc), m.join_addresses(source.bcc), source.subject,
            body_text(source.body_text, source.body_html), source.body_html, stored_time(source.date), source.in_reply_to,
            " ".join(source.references), source.list_id))
        for a in source.attachments:
            self.rows[m.Attachment].append(
                (self._next(m.Attachment), message_id, a.filename, a.mime_type, len(a.content), a.content))
        self.by_rfc[source.message_id] = message_id
        return message_id

    def _file(self, source: MailMessage, message_id: int, owner: str, label: str) -> None:
        thread = self._thread(source, owner)
        entry = self._next(m.Entry)
        self.rows[m.Entry].append((entry, owner, message_id, thread))
        self.labels[entry] = {label: None}
        self.thread_of.setdefault((owner, source.message_id), thread)
        self.entry_of.setdefault((owner, message_id), entry)

    def _thread(self, source: MailMessage, owner: str) -> int:
        """The owner's thread of a message this one answers or references, else a new one."""
        refs = {r for r in [source.in_reply_to, *source.references] if r}
        for ref in sorted(refs):
            if (owner, ref) in self.thread_of:
                return self.thread_of[(owner, ref)]
        thread = self._next(m.Thread)
        self.rows[m.Thread].append((thread, owner, store.base_subject(source.subject)))
        return thread

    def _apply_mailbox(self, owner: str, box: Mailbox) -> None:
        self.rows[m.Label] += [(self._next(m.Label) + i, owner, name) for i, name in enumerate(box.labels)]
        columns = [column.name for column in getattr(m.Filter, "__table__").columns]
        named = {name.lower(): name for name in box.labels}
        for found in box.filters:
            values = {k: (v.strip() or None) if isinstance(v, str) else v for k, v in found.model_dump().items()}
            values.update(owner=owner, id=self._next(m.Filter))
            values["label"] = named.get((values["label"] or "").lower(), values["label"])
            values["forward_to"] = (values["forward_to"] or "").strip().lower() or None
            self.rows[m.Filter].append(tuple(values[c] for c in columns))
        for rfc_id, labels in box.messages.items():
            entry = self.entry_of.get((owner, self.by_rfc[rfc_id]))
            if entry is None:
                continue
            have = self.labels[entry]
            have.update(dict.fromkeys(labels))
            if {"TRASH", "SPAM"} & set(labels):
                have.pop("INBOX", None)
