"""Plain-SQL versions of the docs writes a rollout makes most: a new document at the root of the actor's My Drive
(``create_document``) and text added to a document (``append_to_document``), built in their dumped form
(``apps.kit.wire``).

They write exactly the rows the ORM path writes (``store.new_item``, ``store.touch``, ``store.add_revision``: the
item, the actor's activity on it, its next revision), on the episode's one connection, so the change log's
triggers and the full-text index's see them as they see the ORM's; and they return what that path dumps to.
Any other case (a folder or shared drive given; a call the ORM path refuses) returns ``None`` before writing
anything, and the operation goes the ORM way, whose errors are the ones raised (``tests/apps/docs/
test_docs_fastwrite.py`` compares both, rows, change log and results, for every document and several people).
They exist because the ORM path's dozen statements, flushes and objects cost ~1.8 ms a call.
"""

from __future__ import annotations

from apps.docs import fastpath
from apps.docs import models as m
from apps.docs import schemas as s
from apps.docs.access import RANK
from apps.docs.store import clean_name
from apps.kit import Ctx
from apps.kit.database import stored_time
from apps.kit.wire import Wire, time

_NEW_DOCUMENT = ("insert into docs_item (kind, name, owner, drive_id, parent_id, mime_type, body, content, size,"
                 " general_access, created_at, created_by, modified_at, modified_by, trashed_at, trashed_by)"
                 " values ('document', ?, ?, null, null, ?, ?, null, ?, null, ?, ?, ?, ?, null, null)")
_EDIT = "update docs_item set body = ?, size = ?, modified_at = ?, modified_by = ? where id = ?"
# ``store.touch``: the ORM reads the actor's activity row, then makes it, or updates it unless it holds that time
# already (times are stored in one form, the ORM's, so equal text is an equal time).
_TOUCH = ("insert into docs_activity (item_id, person, at) values (?, ?, ?)"
          " on conflict (item_id, person) do update set at = excluded.at where at is not excluded.at")
_LAST_REVISION = "select max(number) from docs_revision where item_id = ?"
_REVISION = "insert into docs_revision (item_id, number, author, created_at, content) values (?, ?, ?, ?, ?)"
# What ``store.summary`` reads of a new item: whether the actor starred it, whether anyone was granted it.
_MARKS = ("select exists(select 1 from docs_star where item_id = ?1 and person = ?2),"
          " exists(select 1 from docs_permission where item_id = ?1)")


def _save(ctx: Ctx, item_id: int, text: str, moment: str, last: int | None) -> int:
    """``store.touch`` then ``store.add_revision``: the actor's activity, the next revision's number."""
    conn = ctx.sql
    conn.execute(_TOUCH, (item_id, ctx.actor, moment))
    number = (last or 0) + 1
    conn.execute(_REVISION, (item_id, number, ctx.actor, moment, text))
    return number


def create_document(ctx: Ctx, name: str, text: str, folder_id: int | None,
                    drive_id: int | None) -> Wire[s.FileSummary] | None:
    """``create_document`` at the root of the actor's My Drive; ``None`` for another place."""
    if folder_id is not None or drive_id is not None:
        return None
    name, conn, moment, size = clean_name(name), ctx.sql, stored_time(ctx.now), len(text.encode())
    mime_type = m.MIME_OF_KIND["document"]
    item_id = conn.execute(_NEW_DOCUMENT, (name, ctx.actor, mime_type, text, size, moment, ctx.actor, moment,
                                           ctx.actor)).lastrowid
    assert item_id is not None
    _save(ctx, item_id, text, moment, conn.execute(_LAST_REVISION, (item_id,)).fetchone()[0])
    starred, shared = conn.execute(_MARKS, (item_id, ctx.actor)).fetchone()
    return Wire({"id": item_id, "name": name, "type": "document", "mime_type": mime_type, "path": "My Drive",
                 "folder_id": None, "drive_id": None, "owner": ctx.actor, "size": size, "created_at": time(moment),
                 "modified_at": time(moment), "modified_by": ctx.actor, "starred": bool(starred),
                 "shared": bool(shared), "your_role": "owner", "trashed": False})


def append_to_document(ctx: Ctx, file_id: int, text: str) -> Wire[s.FileContent] | None:
    """``append_to_document`` by an editor of a document not in the trash; ``None`` when the ORM path refuses it
    (a missing item, or one the actor cannot see, is refused here with that path's error)."""
    nodes, grants, item, role = fastpath.opened(ctx, file_id)
    if RANK[role] < RANK["editor"] or item[0] != "document" or any(n[5] is not None for n in nodes) \
            or not text.strip():
        return None
    conn, moment = ctx.sql, stored_time(ctx.now)
    body = conn.execute("select body from docs_item where id = ?", (file_id,)).fetchone()[0].rstrip("\n")
    text = f"{body}\n\n{text}" if body else text
    size = len(text.encode())
    conn.execute(_EDIT, (text, size, moment, ctx.actor, file_id))
    number = _save(ctx, file_id, text, moment, item[12])
    kind, mime_type, _, created_at, created_by, _, _, *rest = item
    edited = (kind, mime_type, size, created_at, created_by, moment, ctx.actor, *rest)
    return Wire({"file": fastpath.summary(ctx, nodes, grants, edited, role), "encoding": "text", "content": text,
                 "revision": number})
