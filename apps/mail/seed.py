"""Fill a fresh mail database from a world's mail: deliver every message, then apply mailbox state.

Written with plain SQL in the build's one transaction (the ORM's ~100 µs a statement made an ``xl``
world take minutes); rows, ids and threads come out as ``store.file_message`` would make them.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

from sqlmodel import Session

from apps.mail import models as m
from apps.mail import store
from apps.mail.rendering import body_text
from worlds.model import World

_TIME = "%Y-%m-%d %H:%M:%S.%f"  # how the ORM stores a time in SQLite (UTC, without its zone)


def seed(session: Session, world: World) -> None:
    _Seeder(session.connection().connection.dbapi_connection, world).run()


def _time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime(_TIME)


class _Seeder:
    def __init__(self, conn: sqlite3.Connection, world):
        self.conn, self.world = conn, world
        self.people = world.info.people_by_email()
        self.by_rfc: dict[str, int] = {}  # Message-ID -> message id (the last one of that id)
        self.thread_of: dict[tuple[str, str], int] = {}  # (owner, Message-ID) -> thread of the first such entry
        self.entry_of: dict[tuple[str, int], int] = {}  # (owner, message id) -> the owner's first entry of it

    def run(self) -> None:
        for source in sorted(self.world.mail.messages, key=lambda msg: (msg.date, msg.source)):
            self._deliver(source)
        for owner, box in self.world.mail.mailboxes.items():
            self._apply_mailbox(owner, box)

    def _deliver(self, source) -> None:
        message_id = self._message(source)
        if source.draft:
            self._file(source, message_id, source.sender, "DRAFT")
            return
        if source.sender in self.people:
            self._file(source, message_id, source.sender, "SENT")
        for recipient in dict.fromkeys(source.to + source.cc + source.bcc):
            if recipient in self.people and recipient != source.sender:
                self._file(source, message_id, recipient, "INBOX")

    def _message(self, source) -> int:
        row = (source.message_id, source.sender, source.sender_name, m.join_addresses(source.to),
               m.join_addresses(source.cc), m.join_addresses(source.bcc), source.subject,
               body_text(source.body_text, source.body_html), source.body_html, _time(source.date), source.in_reply_to,
               " ".join(source.references), source.list_id)
        message_id = self.conn.execute(
            "insert into mail_message (rfc_id, sender, sender_name, to_addrs, cc_addrs, bcc_addrs, subject,"
            " body_text, body_html, date, in_reply_to, \"references\", list_id)"
            " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row).lastrowid
        self.conn.executemany(
            "insert into mail_attachment (message_id, filename, mime_type, size, content) values (?, ?, ?, ?, ?)",
            [(message_id, a.filename, a.mime_type, len(a.content), a.content) for a in source.attachments])
        self.by_rfc[source.message_id] = message_id
        return message_id

    def _file(self, source, message_id: int, owner: str, label: str) -> None:
        thread = self._thread(source, owner)
        entry = self.conn.execute("insert into mail_entry (owner, message_id, thread_id) values (?, ?, ?)",
                                  (owner, message_id, thread)).lastrowid
        self.conn.execute("insert into mail_entry_label (entry_id, label) values (?, ?)", (entry, label))
        self.thread_of.setdefault((owner, source.message_id), thread)
        self.entry_of.setdefault((owner, message_id), entry)

    def _thread(self, source, owner: str) -> int:
        """The owner's thread of a message this one answers or references, else a new one."""
        refs = {r for r in [source.in_reply_to, *source.references] if r}
        for ref in sorted(refs):
            if (owner, ref) in self.thread_of:
                return self.thread_of[(owner, ref)]
        return self.conn.execute("insert into mail_thread (owner, subject) values (?, ?)",
                                 (owner, store.base_subject(source.subject))).lastrowid

    def _apply_mailbox(self, owner: str, box) -> None:
        self.conn.executemany("insert into mail_label (owner, name) values (?, ?)", [(owner, n) for n in box.labels])
        for rfc_id, labels in box.messages.items():
            entry = self.entry_of.get((owner, self.by_rfc[rfc_id]))
            if entry is None:
                continue
            self.conn.executemany("insert or ignore into mail_entry_label (entry_id, label) values (?, ?)",
                                  [(entry, label) for label in labels])
            if {"TRASH", "SPAM"} & set(labels):
                self.conn.execute("delete from mail_entry_label where entry_id = ? and label = 'INBOX'", (entry,))
