"""A log of the rows each write touches, so a grader diffs only what changed.

Every app table gets three triggers that append ``(table, rowid)`` to ``kit_changes`` after an
insert, update or delete. The log is bookkeeping, not content: the digest leaves it out. A reader
takes ``mark()`` at one moment and later asks ``since(mark)`` which rows of which tables were touched.
"""

from __future__ import annotations

import sqlite3

LOG = "kit_changes"


# Which row each event touches: an update logs the row before and after (its rowid may change).
_ROWS = {"insert": ("new",), "update": ("old", "new"), "delete": ("old",)}


def install(conn: sqlite3.Connection, tables: list[str]) -> None:
    conn.execute(f"create table if not exists {LOG} (id integer primary key, tbl text not null, rid integer not null)")
    for table in tables:
        for event, refs in _ROWS.items():
            values = ", ".join(f"('{table}', {ref}.rowid)" for ref in refs)
            conn.execute(f'create trigger if not exists "{LOG}_{table}_{event}" after {event} on "{table}" '
                         f"begin insert into {LOG} (tbl, rid) values {values}; end")
    conn.commit()


def mark(conn: sqlite3.Connection) -> int | None:
    """The log's position now; None when this database keeps no log (built before the log existed)."""
    try:
        return conn.execute(f"select coalesce(max(id), 0) from {LOG}").fetchone()[0]
    except sqlite3.OperationalError:
        return None


def since(conn: sqlite3.Connection, position: int) -> dict[str, set[int]]:
    """Per table, the rowids written after ``position``."""
    touched: dict[str, set[int]] = {}
    for table, rowid in conn.execute(f"select tbl, rid from {LOG} where id > ?", (position,)):
        touched.setdefault(table, set()).add(rowid)
    return touched
