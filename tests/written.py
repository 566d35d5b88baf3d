"""What one operation's function wrote, for comparing a plain-SQL write with the ORM path it replaces."""

import json

from apps.kit import OpError, changes
from apps.kit.wire import Wire


def written(fn, ctx, *args, **kwargs) -> str:
    """The call's dumped result or error, then every row the change log says it wrote (as it is after the call;
    none for an error, which rolls the call back), as JSON text; the call is rolled back."""
    conn = ctx.db.conn
    mark = changes.mark(conn)
    assert mark is not None
    try:
        result = fn(ctx, *args, **kwargs)
        outcome = result.data if isinstance(result, Wire) else result.model_dump(mode="json")
    except OpError as exc:   # the call is rolled back: nothing it did stays
        ctx.finish(commit=False)
        return json.dumps([exc.to_dict(), None])
    conn = ctx.sql   # the session's changes too, as its commit would write them
    rows = {table: [list(conn.execute(f"select * from {table} where rowid = ?", (rowid,)).fetchone() or ())
                    for rowid in sorted(rowids)]
            for table, rowids in sorted(changes.since(conn, mark).items())}
    ctx.finish(commit=False)
    return json.dumps([outcome, rows], default=repr)
