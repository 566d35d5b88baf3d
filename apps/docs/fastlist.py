"""Plain-SQL versions of the Drive views (``list_view``) and of search, with the summaries they list.

They return exactly what the ORM paths return (``access.all_roles``, ``search.view_items`` / ``search.find``
and ``store.summaries``), errors included: ``tests/apps/docs/test_docs_fastlist.py`` compares both for
every view, many searches and every person of a world. They exist because the ORM path reads every
item of the drive as objects (tens of ms a call); here each step is one query of tuples. Dates are
compared as the stored text, which sorts as the times do (``apps.kit.entity.UtcDateTime``).
"""

from __future__ import annotations

import json
from collections import namedtuple
from datetime import datetime

from apps.docs import fastpath
from apps.docs import schemas as s
from apps.docs import search as finder
from apps.docs.access import resolve_roles
from apps.kit import Ctx, Forbidden, Invalid, NotFound
from apps.kit.wire import Wire, time

_ACCESS = "select id, parent_id, drive_id, owner, general_access, trashed_at from docs_item"
_GRANTED = "select item_id, role from docs_permission where person = ?"
_DRIVES = "select drive_id, role from docs_drive_member where person = ?"
Item = namedtuple("Item", "id kind name owner drive_id parent_id mime_type size general_access created_at created_by"
                          " modified_at modified_by trashed_at")
_ITEM = "select " + ", ".join(Item._fields) + " from docs_item"
_FOLDERS = "select id, name, parent_id from docs_item where kind = 'folder'"
# Items (ids as a JSON array) and every folder above them, each once (``union``: a loop of folders ends too);
# ``_ACCESS``'s columns, then the name.
_UP = ("with recursive up(id, parent_id, drive_id, owner, general_access, trashed_at, name) as ("
       " select id, parent_id, drive_id, owner, general_access, trashed_at, name from docs_item"
       " where id in (select value from json_each(?))"
       " union select i.id, i.parent_id, i.drive_id, i.owner, i.general_access, i.trashed_at, i.name"
       " from docs_item i join up on i.id = up.parent_id) select * from up")


Roles = dict[int, tuple[str, bool]]
Folders = dict[int, tuple[str, int | None]]   # folders' (name, parent id), by id


def roles(ctx: Ctx) -> Roles:
    """``access.all_roles`` for the acting user."""
    return _resolve(ctx, ctx.sql.execute(_ACCESS).fetchall())


def _resolve(ctx: Ctx, rows) -> Roles:
    """``resolve_roles`` for the acting user, of ``rows`` (``_ACCESS``'s columns first)."""
    conn = ctx.sql
    return resolve_roles(rows, dict(conn.execute(_GRANTED, (ctx.actor,))), dict(conn.execute(_DRIVES, (ctx.actor,))),
                         ctx.actor)


def roles_of(ctx: Ctx, ids) -> tuple[Roles, Folders]:
    """``roles`` for the items ``ids`` (and the folders above them), and the names and parents of those items
    and folders: an item's role depends only on the folders above it, so a few items need not read the whole
    tree."""
    nodes = {row[0]: row for row in ctx.sql.execute(_UP, (json.dumps(list(ids)),))}
    known = _resolve(ctx, nodes.values())
    return known, {i: (node[6], node[1]) for i, node in nodes.items()}


def _items(ctx: Ctx, ids) -> list[Item]:
    ids = list(ids)
    if not ids:
        return []
    return [Item._make(r) for r in ctx.sql.execute(f"{_ITEM} where id in ({','.join('?' * len(ids))})", ids)]


def _ids(ctx: Ctx, sql: str) -> set[int]:
    return {r[0] for r in ctx.sql.execute(sql, (ctx.actor,))}


def _newest(items: list[Item]) -> list[Item]:
    return sorted(items, key=lambda i: (i.modified_at, i.id), reverse=True)


def list_view(ctx: Ctx, view: str, limit: int, offset: int) -> Wire[s.FileList]:
    """``list_view``: one of Drive's views (``search.view_items``), one page of it. Only the trash resolves
    every item's role; the other views resolve their candidates' (``roles_of``)."""
    actor, conn = ctx.actor, ctx.sql
    folders: Folders | None = None
    if view == "my_drive":   # the actor's own items at the root: theirs, live unless trashed themselves
        found = [Item._make(r) for r in conn.execute(
            f"{_ITEM} where parent_id is null and drive_id is null and owner = ? and trashed_at is null", (actor,))]
        found.sort(key=lambda i: (i.kind != "folder", i.name.lower(), i.id))
        known = {i.id: ("owner", False) for i in found}
    elif view == "trash":
        known = roles(ctx)
        found = [i for i in _items(ctx, known) if i.trashed_at is not None and known[i.id][0] == "owner"]
        found.sort(key=lambda i: (i.trashed_at, i.id), reverse=True)
    elif view == "recent":
        seen = dict(conn.execute("select item_id, at from docs_activity where person = ?", (actor,)))
        known, folders = roles_of(ctx, seen)
        found = [i for i in _items(ctx, _live(known) & set(seen)) if i.kind != "folder"]
        found.sort(key=lambda i: (seen[i.id], i.id), reverse=True)
    else:
        starred = view == "starred"
        wanted = _ids(ctx, "select item_id from docs_star where person = ?" if starred else
                      "select item_id from docs_permission where person = ?")
        known, folders = roles_of(ctx, wanted)
        found = _newest([i for i in _items(ctx, _live(known) & wanted) if starred or i.owner != actor])
    return _listing(ctx, found, known, limit, offset, folders)


def _live(known: dict[int, tuple[str, bool]]) -> set[int]:
    return {i for i, (_, trashed) in known.items() if not trashed}


def search(ctx: Ctx, query: str, f: finder.Filters, limit: int, offset: int) -> Wire[s.FileList]:
    """``search``: the files the acting user can open that match (``search.find``), one page of them. With
    words to look for, only the matches' roles are resolved (``roles_of``); without, every item's. Without
    filters, one statement reads every item's role columns, kind and name in the order shown, and only the page's
    items are read in full."""
    folders: Folders | None = None
    if query.strip():
        ranked = finder.ranked(ctx, query)
        known, folders = roles_of(ctx, ranked)
        live = _live(known)
        order = [i for i in ranked if i in live]
    elif f == _UNFILTERED:   # one read of every item: roles, ``_newest``'s order and the folders' names
        rows = ctx.sql.execute(_EVERY).fetchall()
        known = _resolve(ctx, rows)
        folders = {row[0]: (row[7], row[1]) for row in rows if row[6] == "folder"}
        order = [row[0] for row in rows if row[0] in known and not known[row[0]][1]]
    else:
        known = roles(ctx)
        return _listing(ctx, _filtered(ctx, _newest(_items(ctx, _live(known))), f), known, limit, offset)
    if f == _UNFILTERED:
        return _listing_ids(ctx, order, known, limit, offset, folders)
    by_id = {i.id: i for i in _items(ctx, order)}
    return _listing(ctx, _filtered(ctx, [by_id[i] for i in order], f), known, limit, offset, folders)


_UNFILTERED = finder.Filters()
# ``_ACCESS``'s columns, the kind and the name, in ``_newest``'s order: (modified_at, id), newest first.
_EVERY = ("select id, parent_id, drive_id, owner, general_access, trashed_at, kind, name from docs_item"
          " order by modified_at desc, id desc")


def _filtered(ctx: Ctx, found: list[Item], f: finder.Filters) -> list[Item]:
    """``search.find``'s filters (``search._keep``)."""
    owner = None if f.owner is None else (ctx.actor if f.owner.strip().lower() == "me" else f.owner.strip().lower())
    shared = _ids(ctx, "select item_id from docs_permission where person = ?") if f.shared_with_me else set()
    starred = _ids(ctx, "select item_id from docs_star where person = ?") if f.starred else set()
    name = None if f.name is None else f.name.lower()
    after = None if f.after is None else _stored(finder.day_start(ctx, f.after))
    before = None if f.before is None else _stored(finder.day_start(ctx, f.before))
    return [i for i in found if (name is None or name in i.name.lower()) and (owner is None or i.owner == owner)
            and (f.kind is None or i.kind == f.kind) and (after is None or i.modified_at >= after)
            and (before is None or i.modified_at < before)
            and (not f.shared_with_me or (i.id in shared and i.owner != ctx.actor))
            and (not f.starred or i.id in starred)]


def list_folder(ctx: Ctx, folder_id: int | None, drive_id: int | None, limit: int, offset: int) -> Wire[s.FileList]:
    """``list_folder``: what is in a folder (or at a drive's root) that the acting user may see, folders first.

    Roles are resolved (``resolve_roles``, as ``access.all_roles`` does) for the folder's chain and its children
    only: an item's role depends only on the folders above it. The folder itself is checked as ``access.require``
    does (``fastpath.role_of``)."""
    conn, actor = ctx.sql, ctx.actor
    above: list = []
    if folder_id is not None:
        nodes = fastpath.chain(ctx, folder_id, "folder_id")
        kind = conn.execute("select kind from docs_item where id = ?", (folder_id,)).fetchone()[0]
        grants = [conn.execute(fastpath.GRANTS, (node[0],)).fetchall() for node in nodes]
        member = None if nodes[0][2] is None else conn.execute(fastpath.DRIVE_ROLE, (nodes[0][2], actor)).fetchone()
        if fastpath.role_of(actor, nodes, grants, member and member[0]) is None:
            raise Forbidden(f"you have no access to {kind} {folder_id}; ask its owner to share it with you",
                            field="folder_id")
        if kind != "folder":
            raise Invalid(f"folder_id: {nodes[0][6]!r} is a {kind}, not a folder", field="folder_id")
        above = [node[:6] for node in nodes]
        inside = conn.execute(f"{_ITEM} where parent_id = ?", (folder_id,))
    else:
        if drive_id is not None and conn.execute(fastpath.DRIVE_ROLE, (drive_id, actor)).fetchone() is None:
            raise NotFound(f"no shared drive {drive_id} that you are a member of", field="drive_id")
        if drive_id:   # ``store.children``: a drive's root; without one, the acting user's My Drive
            inside = conn.execute(f"{_ITEM} where parent_id is null and drive_id = ?", (drive_id,))
        elif drive_id is None:
            inside = conn.execute(f"{_ITEM} where parent_id is null and drive_id is null and owner = ?", (actor,))
        else:
            inside = conn.execute(f"{_ITEM} where parent_id is null and drive_id is null")
    items = [Item._make(r) for r in inside]
    rows = above + [(i.id, i.parent_id, i.drive_id, i.owner, i.general_access, i.trashed_at) for i in items]
    known = resolve_roles(rows, dict(conn.execute(_GRANTED, (actor,))), dict(conn.execute(_DRIVES, (actor,))), actor)
    visible = [i for i in items if i.id in known and not known[i.id][1]]
    visible.sort(key=lambda i: (i.kind != "folder", i.name.lower(), i.id))
    return _listing(ctx, visible, known, limit, offset)


def _stored(moment: datetime) -> str:
    """A naive UTC time as the database stores it, to compare with stored text."""
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")


def _listing(ctx: Ctx, items: list[Item], known: dict, limit: int, offset: int,
             folders: Folders | None = None) -> Wire[s.FileList]:
    """``operations._listing``: the count, and the page's summaries (``store.summaries``)."""
    return Wire({"total": len(items), "files": _files(ctx, items[offset:offset + limit], known, folders)})


def _listing_ids(ctx: Ctx, ids: list[int], known: dict, limit: int, offset: int,
                 folders: Folders | None) -> Wire[s.FileList]:
    """``_listing`` of the items ``ids``, in that order, reading only the page's."""
    page = ids[offset:offset + limit]
    by_id = {i.id: i for i in _items(ctx, page)}
    return Wire({"total": len(ids), "files": _files(ctx, [by_id[i] for i in page], known, folders)})


def _files(ctx: Ctx, page: list[Item], known: dict, folders: Folders | None) -> list[dict]:
    """``store.summaries`` of a page. Paths name the folders above from ``folders`` when given, else from every
    folder, read only when the page has an item in a folder; drives' names are read only when it has one in a
    drive."""
    files: list[dict] = []
    if not page:
        return files
    conn, marks, ids = ctx.sql, ",".join("?" * len(page)), [i.id for i in page]
    starred = {r[0] for r in conn.execute(f"select item_id from docs_star where person = ? and item_id in ({marks})",
                                          [ctx.actor, *ids])}
    shared = {r[0] for r in conn.execute(f"select item_id from docs_permission where item_id in ({marks})", ids)}
    if folders is None:
        folders = {i: (name, parent) for i, name, parent in conn.execute(_FOLDERS)} if any(
            i.parent_id for i in page) else {}
    drives = dict(conn.execute("select id, name from docs_drive")) if any(
        i.drive_id is not None for i in page) else {}
    for i in page:
        role, trashed = known[i.id]
        files.append({"id": i.id, "name": i.name, "type": i.kind, "mime_type": i.mime_type,
                      "path": _path(i, folders, drives), "folder_id": i.parent_id, "drive_id": i.drive_id,
                      "owner": i.owner, "size": i.size, "created_at": time(i.created_at),
                      "modified_at": time(i.modified_at), "modified_by": i.modified_by, "starred": i.id in starred,
                      "shared": bool(i.general_access) or i.id in shared, "your_role": role, "trashed": trashed})
    return files


def _path(item: Item, folders: dict, drives: dict) -> str:
    """``store.path_of``: the folders above, from the drive's root."""
    names = []
    parent = item.parent_id
    while parent:
        name, parent = folders[parent]
        names.append(name)
    if item.drive_id is not None:
        root = f"{drives[item.drive_id]} (shared drive)"
    else:
        root = "My Drive" if item.owner else "?"
    return "/".join([root, *reversed(names)])
