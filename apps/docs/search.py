"""Finding files: Drive's views, full-text search over names and content (FTS5), and file details.

Search works on the set of items the actor can reach (``access.all_roles``), so nobody finds a file
they could not open. Words are bound as quoted FTS5 terms, never spliced into the query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timezone
from zoneinfo import ZoneInfo

from sqlmodel import col, func, select

from apps.docs import access, store
from apps.docs import models as m
from apps.docs import schemas as s
from apps.kit import Ctx, Invalid

_WORDS = re.compile(r'"([^"]+)"|(\w+)')


@dataclass
class Filters:
    name: str | None = None
    owner: str | None = None
    kind: str | None = None
    after: date | None = None
    before: date | None = None
    shared_with_me: bool = False
    starred: bool = False


def _items(ctx: Ctx, ids) -> list[m.Item]:
    ids = list(ids)
    return list(ctx.session.exec(select(m.Item).where(col(m.Item.id).in_(ids)))) if ids else []


def _shared_ids(ctx: Ctx) -> set[int]:
    return set(ctx.session.exec(select(m.Permission.item_id).where(m.Permission.person == ctx.actor)))


def _starred_ids(ctx: Ctx) -> set[int]:
    return set(ctx.session.exec(select(m.Star.item_id).where(m.Star.person == ctx.actor)))


def view_items(ctx: Ctx, view: str, roles: dict) -> list[m.Item]:
    live = {i for i, (_, trashed) in roles.items() if not trashed}
    if view == "my_drive":
        mine = [i for i in store.children(ctx.session, None, None, ctx.actor) if i.id in live]
        return sorted(mine, key=lambda i: (i.kind != "folder", i.name.lower(), i.id))
    if view == "trash":
        found = [i for i in _items(ctx, roles) if i.trashed_at is not None and roles[i.id][0] == "owner"]
        return sorted(found, key=lambda i: (i.trashed_at, i.id), reverse=True)
    if view == "recent":
        seen = {a.item_id: a.at for a in ctx.session.exec(select(m.Activity).where(m.Activity.person == ctx.actor))}
        found = [i for i in _items(ctx, live & set(seen)) if i.kind != "folder"]
        return sorted(found, key=lambda i: (seen[i.id], i.id), reverse=True)
    wanted = _starred_ids(ctx) if view == "starred" else _shared_ids(ctx)
    found = [i for i in _items(ctx, live & wanted) if view == "starred" or i.owner != ctx.actor]
    return sorted(found, key=lambda i: (i.modified_at, i.id), reverse=True)


def _fts_query(query: str) -> str:
    terms = []
    for phrase, word in _WORDS.findall(query):
        text = (phrase or word).replace('"', "")
        if text.strip():
            terms.append('"' + text + '"')
    if not terms:
        raise Invalid("query: give at least one word to search for", field="query")
    return " ".join(terms)


def ranked(ctx: Ctx, query: str) -> list[int]:
    rows = ctx.sql.execute("select rowid from docs_item_fts where docs_item_fts match ? "
                           "order by bm25(docs_item_fts, 5.0, 1.0)", (_fts_query(query),))
    return [r[0] for r in rows]


def day_start(ctx: Ctx, day: date) -> datetime:
    local = datetime.combine(day, time(0), tzinfo=ZoneInfo(ctx.world.timezone))
    return local.astimezone(timezone.utc).replace(tzinfo=None)


def _keep(ctx: Ctx, item: m.Item, f: Filters, owner: str | None, shared: set[int], starred: set[int]) -> bool:
    checks = [
        f.name is None or f.name.lower() in item.name.lower(),
        owner is None or item.owner == owner,
        f.kind is None or item.kind == f.kind,
        f.after is None or _naive(item.modified_at) >= day_start(ctx, f.after),
        f.before is None or _naive(item.modified_at) < day_start(ctx, f.before),
        not f.shared_with_me or (item.id in shared and item.owner != ctx.actor),
        not f.starred or item.id in starred,
    ]
    return all(checks)


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


def find(ctx: Ctx, query: str, f: Filters, roles: dict) -> list[m.Item]:
    owner = None if f.owner is None else (ctx.actor if f.owner.strip().lower() == "me" else f.owner.strip().lower())
    live = {i for i, (_, trashed) in roles.items() if not trashed}
    shared, starred = _shared_ids(ctx), _starred_ids(ctx)
    if query.strip():
        order = [i for i in ranked(ctx, query) if i in live]
        by_id = {i.id: i for i in _items(ctx, order)}
        found = [by_id[i] for i in order]
    else:
        found = sorted(_items(ctx, live), key=lambda i: (i.modified_at, i.id), reverse=True)
    return [i for i in found if _keep(ctx, i, f, owner, shared, starred)]


def permissions(ctx: Ctx, item: m.Item) -> list[s.PermissionInfo]:
    """The owner, then everyone with access on the item or a folder above it, strongest grant kept."""
    found: dict[str, s.PermissionInfo] = {}
    if item.owner:
        found[item.owner] = s.PermissionInfo(person=item.owner, name=store.person_name(ctx, item.owner), role="owner")
    node: m.Item | None = item
    while node is not None:
        inherited = None if node.id == item.id else node.id
        for p in ctx.session.exec(select(m.Permission).where(m.Permission.item_id == node.id)):
            if p.person not in found or access.RANK[p.role] > access.RANK[found[p.person].role]:
                found[p.person] = s.PermissionInfo(person=p.person, name=store.person_name(ctx, p.person),
                                                   role=p.role, inherited_from=inherited)
        node = ctx.session.get(m.Item, node.parent_id) if node.parent_id else None
    return list(found.values())


def general_access(ctx: Ctx, item: m.Item) -> str | None:
    role: str | None = None
    node: m.Item | None = item
    while node is not None:
        role = access.stronger(role, node.general_access)
        node = ctx.session.get(m.Item, node.parent_id) if node.parent_id else None
    return role


def detail(ctx: Ctx, item: m.Item, role: str) -> s.FileDetail:
    revisions = ctx.session.exec(select(func.count()).where(m.Revision.item_id == item.id)).one()
    open_comments = ctx.session.exec(select(func.count()).where(
        m.Comment.item_id == item.id, col(m.Comment.parent_id).is_(None), col(m.Comment.resolved).is_(False))).one()
    base = store.summary(ctx.session, item, ctx.actor, role).model_dump()
    return s.FileDetail(**base, created_by=item.created_by, permissions=permissions(ctx, item),
                        general_access=general_access(ctx, item), revisions=revisions, open_comments=open_comments)
