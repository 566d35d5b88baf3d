"""Record kinds: the app state as graders read it, by meaning rather than storage layout.

A kind is named ``app.kind`` (``crm.opportunity``, ``mail.sent``) and yields plain dicts whose
fields read like the product: an opportunity has its ``account`` by name, a message its ``to`` as
a list and its ``labels``. Kinds not listed here fall back to the app's table of that name
(``calendar.event`` reads ``calendar_event``), so a new app is gradable before anyone writes a view.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Kind:
    sql: str
    lists: tuple[str, ...] = ()       # comma-joined columns read as lists
    flags: tuple[str, ...] = ()       # 0/1 columns read as booleans
    key: tuple[str, ...] = ("id",)    # what identifies a record between the initial and the final state


_MESSAGE = """
select e.id as id, e.owner as owner, e.thread_id as thread_id, m.rfc_id as rfc_id, m.sender as sender,
       m.sender_name as sender_name, m.to_addrs as "to", m.cc_addrs as cc, m.bcc_addrs as bcc,
       m.subject as subject, m.body_text as body, m.date as date, m.in_reply_to as in_reply_to,
       (select group_concat(l.label) from mail_entry_label l where l.entry_id = e.id) as labels,
       (select group_concat(a.filename) from mail_attachment a where a.message_id = m.id) as attachments
from mail_entry e join mail_message m on m.id = e.message_id"""

_MAIL_LISTS = ("to", "cc", "bcc", "labels", "attachments")

_CRM_RELATED = """(case x.related_object
    when 'Account' then (select name from crm_account where id = x.related_id)
    when 'Opportunity' then (select name from crm_opportunity where id = x.related_id)
    when 'Contact' then (select trim(first_name || ' ' || last_name) from crm_contact where id = x.related_id)
    when 'Lead' then (select trim(first_name || ' ' || last_name) from crm_lead where id = x.related_id)
    when 'Case' then (select subject from crm_case where id = x.related_id) end) as related_name"""

KINDS: dict[str, Kind] = {
    "mail.message": Kind(_MESSAGE, _MAIL_LISTS),
    "mail.sent": Kind(_MESSAGE + " where exists (select 1 from mail_entry_label l where l.entry_id = e.id"
                      " and l.label = 'SENT')", _MAIL_LISTS),
    "mail.draft": Kind(_MESSAGE + " where exists (select 1 from mail_entry_label l where l.entry_id = e.id"
                       " and l.label = 'DRAFT')", _MAIL_LISTS),
    "mail.outbound": Kind(
        """select o.id as id, o.recipient as recipient, o.sent_at as sent_at, m.sender as sender,
                  m.subject as subject, m.body_text as body, m.to_addrs as "to", m.cc_addrs as cc,
                  m.in_reply_to as in_reply_to,
                  (select group_concat(a.filename) from mail_attachment a where a.message_id = m.id) as attachments
           from mail_outbound o join mail_message m on m.id = o.message_id""", ("to", "cc", "attachments")),
    "mail.label": Kind("select id, owner, name from mail_label"),
    "crm.account": Kind("select x.*, p.name as parent from crm_account x left join crm_account p on p.id = x.parent_id"),
    "crm.contact": Kind("""select x.*, trim(x.first_name || ' ' || x.last_name) as name, a.name as account
                           from crm_contact x left join crm_account a on a.id = x.account_id"""),
    "crm.lead": Kind("select x.*, trim(x.first_name || ' ' || x.last_name) as name from crm_lead x",
                     flags=("is_converted",)),
    "crm.opportunity": Kind("""select x.*, a.name as account from crm_opportunity x
                               left join crm_account a on a.id = x.account_id"""),
    "crm.history": Kind("""select h.*, o.name as opportunity from crm_opportunity_history h
                           join crm_opportunity o on o.id = h.opportunity_id"""),
    "crm.case": Kind("""select x.*, a.name as account from crm_case x left join crm_account a on a.id = x.account_id"""),
    "crm.task": Kind(f"select x.*, {_CRM_RELATED} from crm_task x"),
    "crm.event": Kind(f"select x.*, {_CRM_RELATED} from crm_event x"),
    "crm.note": Kind(f"select x.*, {_CRM_RELATED} from crm_note x"),
    "docs.item": Kind("""select x.id, x.kind, x.name, x.owner, x.mime_type, x.body, x.size, x.general_access,
                                x.created_by, x.modified_at, x.modified_by, x.trashed_at is not null as trashed,
                                p.name as folder, d.name as drive
                         from docs_item x left join docs_item p on p.id = x.parent_id
                         left join docs_drive d on d.id = x.drive_id""", flags=("trashed",)),
    "docs.permission": Kind("""select p.item_id as item_id, i.name as item, p.person as person, p.role as role
                               from docs_permission p join docs_item i on i.id = p.item_id""", key=("item_id", "person")),
    "docs.comment": Kind("""select c.*, i.name as item from docs_comment c join docs_item i on i.id = c.item_id""",
                         flags=("resolved",)),
    "docs.cell": Kind("""select c.*, i.name as item from docs_cell c join docs_item i on i.id = c.item_id""",
                      key=("item_id", "row", "col")),
    "calendar.event": Kind("""select x.*,
        (select group_concat(a.email) from calendar_attendee a where a.event_id = x.id) as attendees,
        (select group_concat(a.email) from calendar_attendee a where a.event_id = x.id
                                                              and a.response = 'accepted') as accepted,
        (select group_concat(a.email) from calendar_attendee a where a.event_id = x.id
                                                              and a.response = 'declined') as declined
        from calendar_event x""", ("attendees", "accepted", "declined"), flags=("all_day",)),
    "task.answer": Kind("select * from task_answer order by id"),
}


class UnknownKind(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


@dataclass
class State:
    """One moment of an episode's apps (initial or final): each app's SQLite connection, read-only
    by convention, with each kind's records read once."""

    connections: dict[str, sqlite3.Connection]
    _cache: dict[tuple, Any] = field(default_factory=dict)  # records by kind, and indexes by identity
    _tables: dict[tuple, dict] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def key(self, kind: str) -> tuple[str, ...]:
        """The fields that identify a record of ``kind`` (its primary key, for a plain table)."""
        if kind in KINDS:
            return KINDS[kind].key
        app, _, name = kind.partition(".")
        info = self.connections[app].execute(f'pragma table_info("{app}_{name}")').fetchall()
        return tuple(r[1] for r in sorted(info, key=lambda r: r[5]) if r[5]) or tuple(r[1] for r in info)

    def identity(self, kind: str, record: dict) -> tuple:
        return tuple(record.get(k) for k in self.key(kind))

    def by_identity(self, kind: str) -> dict[tuple, dict]:
        """Every record of ``kind`` by its identity, built once."""
        key = ("by_identity", kind)
        if key not in self._cache:
            fields = self.key(kind)
            index = {tuple(r.get(k) for k in fields): r for r in self.records(kind)}
            with self._lock:
                self._cache.setdefault(key, index)
        return self._cache[key]

    def records(self, kind: str, where: dict | None = None) -> list[dict]:
        """The records of ``kind``; with ``where``, SQL narrows them first by the fields compared for
        plain equality (callers still match every condition themselves)."""
        plain = tuple(sorted((k, v) for k, v in (where or {}).items()
                             if isinstance(v, (str, int, float)) and not isinstance(v, bool)))
        with self._lock:
            if (kind, plain) not in self._cache:
                self._cache[kind, plain] = read_kind(self.connections, kind, dict(plain))
            return self._cache[kind, plain]

    def table(self, app: str, table: str, read) -> dict:
        """``read(connection, table)`` once per table: the diff reads an initial state many times."""
        with self._lock:
            if (app, table) not in self._tables:
                self._tables[app, table] = read(self.connections[app], table)
            return self._tables[app, table]


def read_kind(connections: dict[str, sqlite3.Connection], kind: str, equal: dict | None = None) -> list[dict]:
    app, _, name = kind.partition(".")
    if app not in connections:
        raise UnknownKind(f"{kind}: no app named {app!r} in this episode")
    conn = connections[app]
    spec = KINDS.get(kind) or _table_kind(conn, app, name)
    sql, params = spec.sql, []
    known = _columns(conn, spec.sql)
    usable = {k: v for k, v in (equal or {}).items() if k in known and k not in spec.lists and k not in spec.flags}
    if usable:
        sql = f"select * from ({spec.sql}) where " + " and ".join(f'"{k}" = ?' for k in usable)
        params = list(usable.values())
    cursor = conn.execute(sql, params)
    columns = [d[0] for d in cursor.description]
    rows = []
    for values in cursor:
        row = dict(zip(columns, values))
        for key in spec.lists:
            row[key] = [v for v in (row.get(key) or "").split(",") if v]
        for key in spec.flags:
            row[key] = bool(row.get(key))
        rows.append(row)
    return rows


_COLUMNS: dict[str, set[str]] = {}


def _columns(conn: sqlite3.Connection, sql: str) -> set[str]:
    """The columns a kind's query yields (the same for every episode of an app: cached by query)."""
    if sql not in _COLUMNS:
        _COLUMNS[sql] = {d[0] for d in conn.execute(f"select * from ({sql}) limit 0").description}
    return _COLUMNS[sql]


def _table_kind(conn: sqlite3.Connection, app: str, name: str) -> Kind:
    table = f"{app}_{name}"
    found = conn.execute("select 1 from sqlite_master where type = 'table' and name = ?", (table,)).fetchone()
    if not found:
        known = sorted(k for k in KINDS if k.startswith(app + "."))
        raise UnknownKind(f"{app}.{name}: no such record kind (known: {', '.join(known) or 'the app tables'})")
    return Kind(f'select * from "{table}"')
