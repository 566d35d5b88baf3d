"""Who may do what: a person's role on an item, from ownership, sharing, folders above and drives.

A role on a folder holds for everything under it; the strongest role found on the way up wins,
except that owning a folder makes you an editor (not the owner) of what others put in it.
A shared drive's managers act as owners of its files. "Anyone in the organisation" access
(``Item.general_access``) holds for every person of the world, since only they can act.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlmodel import Session, select

from apps.docs import models as m
from apps.kit import Ctx, Forbidden, NotFound

RANK = {"viewer": 1, "commenter": 2, "editor": 3, "owner": 4}
DRIVE_TO_ROLE = {"viewer": "viewer", "commenter": "commenter", "editor": "editor", "manager": "owner"}
NEEDED_FOR = {"viewer": "view", "commenter": "comment on", "editor": "edit", "owner": "manage"}


def stronger(a: str | None, b: str | None) -> str | None:
    """The stronger of two roles (an empty one counts as none); called for every item of a drive, so plain."""
    if not a:
        return b or None
    if not b:
        return a
    return b if RANK[b] > RANK[a] else a


def drive_role(session: Session, drive_id: int, person: str) -> str | None:
    member = session.get(m.DriveMember, (drive_id, person))
    return member.role if member else None


def role_of(session: Session, item: m.Item, person: str) -> str | None:
    """The person's effective role on ``item``, or None when they have no access."""
    role = None
    if item.drive_id is not None:
        role = DRIVE_TO_ROLE.get(drive_role(session, item.drive_id, person) or "")
    if item.owner == person:
        return "owner"
    node: m.Item | None = item
    while node is not None:
        if node.owner == person:
            role = stronger(role, "editor")
        granted = session.get(m.Permission, (node.id, person))
        role = stronger(role, granted.role if granted else None)
        role = stronger(role, node.general_access)
        node = session.get(m.Item, node.parent_id) if node.parent_id else None
    return role


def is_trashed(session: Session, item: m.Item) -> bool:
    """Whether the item, or a folder above it, is in the trash."""
    node: m.Item | None = item
    while node is not None:
        if node.trashed_at is not None:
            return True
        node = session.get(m.Item, node.parent_id) if node.parent_id else None
    return False


def item_of(ctx: Ctx, item_id: int, field: str = "file_id") -> m.Item:
    item = ctx.session.get(m.Item, item_id)
    if item is None:
        raise NotFound(f"no file or folder with id {item_id}", field=field)
    return item


def require(ctx: Ctx, item_id: int, needed: str, action: str, field: str = "file_id") -> tuple[m.Item, str]:
    """The item and the actor's role on it, if that role is at least ``needed``; else ``Forbidden``."""
    item = item_of(ctx, item_id, field)
    role = role_of(ctx.session, item, ctx.actor)
    if role is None:
        raise Forbidden(f"you have no access to {item.kind} {item_id}; ask its owner to share it with you",
                        field=field)
    if RANK[role] < RANK[needed]:
        raise Forbidden(f"you are a {role} of {item.name!r}; to {action} you need to be {_article(needed)}",
                        field=field)
    return item, role


def _article(role: str) -> str:
    return f"an {role}" if role[0] in "aeiou" else f"a {role}"


def all_roles(session: Session, person: str) -> dict[int, tuple[str, bool]]:
    """Every item the person can reach: {id: (role, trashed)}; one pass over the whole tree."""
    # Only the columns access depends on: building whole Item objects for every node costs most of a call.
    columns: list[Any] = [m.Item.id, m.Item.parent_id, m.Item.drive_id, m.Item.owner, m.Item.general_access,
                          m.Item.trashed_at]
    granted = {p.item_id: p.role for p in session.exec(select(m.Permission).where(m.Permission.person == person))}
    drives = {d.drive_id: d.role for d in session.exec(select(m.DriveMember).where(m.DriveMember.person == person))}
    return resolve_roles(list(session.exec(select(*columns))), granted, drives, person)


def resolve_roles(rows: Iterable[Sequence], granted: Mapping[int, str], drives: Mapping[int, str],
                  person: str) -> dict[int, tuple[str, bool]]:
    """``all_roles`` from the rows read: every item's (id, parent_id, drive_id, owner, general_access, trashed_at),
    more columns after those ignored, the person's grants {item id: role} and drive memberships {drive id: drive
    role}. Given some items and every folder above them, it gives their roles as it would given all."""
    items: dict[int, Any] = {row[0]: row for row in rows}
    drive_roles = {d: DRIVE_TO_ROLE[role] for d, role in drives.items()}
    memo: dict[int, tuple[str | None, bool]] = {}
    for item_id in items:
        chain, node = [], item_id   # the folders above not yet resolved, nearest first
        while node not in memo:
            chain.append(node)
            if len(chain) > len(items):
                raise RecursionError(f"docs item {item_id} is inside itself")
            node = items[node][1]
            if not node:
                break
        for node in reversed(chain):
            _, parent_id, drive_id, owner, general, trashed_at = items[node][:6]
            above, trashed = memo[parent_id] if parent_id else (drive_roles.get(drive_id), False)
            trashed = trashed or trashed_at is not None
            if owner == person:
                memo[node] = ("owner", trashed)
                continue
            if above == "owner" and drive_id is None:
                above = "editor"  # owning a folder in My Drive is not owning what others put in it
            memo[node] = (stronger(above, stronger(granted.get(node), general)), trashed)
    reached: dict[int, tuple[str, bool]] = {}
    for i in items:
        role, trashed = memo[i]
        if role:
            reached[i] = (role, trashed)
    return reached
