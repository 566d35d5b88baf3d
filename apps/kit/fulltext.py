"""Full-text indexes (SQLite FTS5) kept in step with an app's table by triggers."""

from __future__ import annotations


def fts5_index(table: str, columns: dict[str, str], watched: list[str] | None = None) -> list[str]:
    """DDL for ``<table>_fts``: one index column per ``columns`` entry (name -> SQL over the row ``new``).

    The index's rowid is the row's ``id``. ``watched`` names the table's columns whose update
    re-indexes the row (any update when left out). The digest skips ``*_fts`` tables: they derive.
    """
    index = f"{table}_fts"
    names, values = ", ".join(columns), ", ".join(["new.id", *columns.values()])
    insert = f"insert into {index}(rowid, {names}) values ({values});"
    on_update = f"update of {', '.join(watched)} on" if watched else "update on"
    return [
        f"create virtual table {index} using fts5({names}, tokenize='porter unicode61')",
        f"create trigger {table}_ai after insert on {table} begin {insert} end",
        f"create trigger {table}_ad after delete on {table} begin delete from {index} where rowid = old.id; end",
        f"create trigger {table}_au after {on_update} {table} begin "
        f"delete from {index} where rowid = old.id; {insert} end",
    ]
