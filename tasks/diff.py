"""The state diff: an order-independent comparison of each app's initial and final tables.

Rows are matched by primary key (a table without one, by its whole row); full-text indexes are
derived data and skipped. The changes an episode may make are those its oracles make (the same
fields of the same records updated, the same records deleted, as many rows created per table),
plus the task's ``allow`` rules, minus ignored fields. Everything else is collateral damage,
reported per record and field.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from typing import AbstractSet, Any, Literal

from apps.kit import changes as change_log
from apps.kit.database import DERIVED_SUFFIXES
from tasks.records import State

ChangeKind = Literal["create", "update", "delete"]
# Apps whose changes are never collateral: the agent's own answer.
_EXEMPT_APPS = {"task"}


@dataclass(frozen=True)
class Change:
    app: str
    table: str
    kind: ChangeKind
    key: tuple
    fields: tuple[str, ...] = ()
    before: dict | None = None
    after: dict | None = None

    def describe(self) -> dict:
        out: dict[str, Any] = {"table": self.table, "change": self.kind, "key": list(self.key)}
        if self.kind == "update":
            assert self.before is not None and self.after is not None  # an update has both rows
            out["fields"] = {f: [_short(self.before[f]), _short(self.after[f])] for f in self.fields}
        else:
            row = self.after if self.kind == "create" else self.before
            out["record"] = {k: _short(v) for k, v in list((row or {}).items())[:8]}
        return out


def diff(initial: State, final: State, apps: list[str], ignore: AbstractSet[str] = frozenset(),
         marks: dict[str, int | None] | None = None) -> list[Change]:
    """Every row created, updated or deleted in ``apps`` between the two states.

    With ``marks`` (each app's change-log position in the initial state), only the rows the log says
    were written since are compared; without, every row of every table is.
    """
    out: list[Change] = []
    for app in apps:
        final_conn, position = final.connections[app], (marks or {}).get(app)
        touched = change_log.since(final_conn, position) if position is not None else None
        for table in sorted(touched) if touched is not None else _tables(final_conn):
            if touched is None:
                before, after = initial.table(app, table, _rows), _rows(final_conn, table)
            else:
                before = _rows(initial.connections[app], table, touched[table])
                after = _rows(final_conn, table, touched[table])
            if before["rows"] != after["rows"]:
                out.extend(_table_changes(app, table, before, after, ignore))
    return out


def _tables(conn: sqlite3.Connection) -> list[str]:
    names = conn.execute("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
    return sorted(n for (n,) in names if not n.endswith(DERIVED_SUFFIXES) and n != change_log.LOG)


def _table_changes(app: str, table: str, before_table: dict, after_table: dict, ignore: AbstractSet[str]) -> list[Change]:
    columns, before, after = after_table["columns"], before_table["rows"], after_table["rows"]
    out = []
    for key in before.keys() - after.keys():
        out.append(Change(app, table, "delete", key, before=before[key]))
    for key in after.keys() - before.keys():
        out.append(Change(app, table, "create", key, after=after[key]))
    for key in before.keys() & after.keys():
        old, new = before[key], after[key]
        if old != new:
            fields = tuple(c for c in columns if old[c] != new[c] and f"{table}.{c}" not in ignore)
            if fields:
                out.append(Change(app, table, "update", key, fields, old, new))
    return out


_SHAPES: dict[str, tuple[list[str], list[int]]] = {}


def _shape(conn: sqlite3.Connection, table: str) -> tuple[list[str], list[int]]:
    """A table's columns and the positions of its primary key (cached: an app's schema is fixed)."""
    if table not in _SHAPES:
        info = list(conn.execute(f'pragma table_info("{table}")'))
        columns = [r[1] for r in info]
        _SHAPES[table] = columns, [columns.index(r[1]) for r in sorted(info, key=lambda r: r[5]) if r[5]]
    return _SHAPES[table]


def _rows(conn: sqlite3.Connection, table: str, rowids: set[int] | None = None) -> dict:
    """A table's columns and its rows (all, or those of ``rowids``) by key: the primary key, or the
    whole row when it has none."""
    columns, pk = _shape(conn, table)
    rows = {}
    ids = sorted(rowids) if rowids is not None else None
    chunks = [ids[i:i + 500] for i in range(0, len(ids), 500)] if ids is not None else [None]
    try:
        for chunk in chunks:
            where = f" where rowid in ({','.join('?' * len(chunk))})" if chunk is not None else ""
            for values in conn.execute(f'select * from "{table}"{where}', chunk or ()):
                rows[tuple(values[i] for i in pk) if pk else values] = dict(zip(columns, values))
    except sqlite3.OperationalError:
        pass
    return {"columns": columns, "rows": rows}


@dataclass
class Allowance:
    """The changes an episode may make without damage: learnt from oracle runs, widened by rules."""

    updates: set[tuple[str, tuple, str]] = field(default_factory=set)
    deletes: set[tuple[str, tuple]] = field(default_factory=set)
    creates: Counter = field(default_factory=Counter)
    rules: list = field(default_factory=list)

    def learn(self, changes: list[Change]) -> None:
        """Allow what one correct run changed (called for the oracle and each alternative)."""
        created = Counter(c.table for c in changes if c.kind == "create")
        for table, count in created.items():
            self.creates[table] = max(self.creates[table], count)
        for c in changes:
            if c.kind == "update":
                self.updates.update((c.table, c.key, f) for f in c.fields)
            elif c.kind == "delete":
                self.deletes.add((c.table, c.key))

    def violations(self, changes: list[Change]) -> list[Change]:
        """The changes that neither a correct run made nor a rule allows: the collateral damage."""
        out = []
        created = Counter(c.table for c in changes if c.kind == "create")
        for c in changes:
            if c.app in _EXEMPT_APPS or self._ruled(c):
                continue
            if c.kind == "create" and created[c.table] > self.creates[c.table]:
                out.append(c)
            elif c.kind == "delete" and (c.table, c.key) not in self.deletes:
                out.append(c)
            elif c.kind == "update":
                extra = tuple(f for f in c.fields if (c.table, c.key, f) not in self.updates)
                if extra:
                    out.append(Change(c.app, c.table, "update", c.key, extra, c.before, c.after))
        return out

    def _ruled(self, change: Change) -> bool:
        for rule in self.rules:
            if rule.table == change.table and rule.change == change.kind:
                if rule.fields is None or set(change.fields) <= set(rule.fields):
                    return True
        return False


def _short(value, limit: int = 120):
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + "…"
    return value
