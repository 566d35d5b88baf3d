"""Docs operations for sharing: roles for people and for anyone in the organisation, and ownership.

Roles, weakest first: viewer (read), commenter (read and comment), editor (change content, move,
share), owner (trash, delete, transfer). As in Drive, editors may share; only the owner transfers
ownership. Sharing a folder shares everything in it. Sharing is limited to the organisation.
"""

from __future__ import annotations

from typing import Literal

from apps.docs import access, search, store
from apps.docs import models as m
from apps.docs import schemas as s
from apps.kit import Conflict, Ctx, NotFound, OperationSet

ops = OperationSet("docs")


def _shareable(ctx: Ctx, file_id: int) -> tuple[m.Item, str]:
    item, role = access.require(ctx, file_id, "editor", "change who has access")
    store.touch(ctx, item, edited=False)
    return item, role


@ops.write
def share(ctx: Ctx, file_id: int, email: str, role: s.ShareRole) -> s.FileDetail:
    """Give a person access to a file or folder (and everything in it), or change their role.

    Args:
        file_id: Id of the file or folder.
        email: Address of a person of the organisation.
        role: editor, commenter or viewer (to make someone owner, use transfer_ownership).
    """
    item, mine = _shareable(ctx, file_id)
    person = store.check_person(ctx, email, "email")
    if person == item.owner:
        raise Conflict(f"{person} owns {item.name!r}; an owner's role cannot be changed here", field="email")
    found = ctx.session.get(m.Permission, (item.id, person)) or m.Permission(item_id=item.id, person=person, role=role)
    found.role = role
    ctx.session.add(found)
    ctx.session.flush()
    return search.detail(ctx, item, mine)


@ops.write
def unshare(ctx: Ctx, file_id: int, email: str) -> s.FileDetail:
    """Remove a person's access to a file or folder that was given on that very item.

    Args:
        file_id: Id of the file or folder.
        email: Address of the person whose access to remove.
    """
    item, mine = _shareable(ctx, file_id)
    person = email.strip().lower()
    if person == item.owner:
        raise Conflict(f"{person} owns {item.name!r}; transfer ownership instead", field="email")
    found = ctx.session.get(m.Permission, (item.id, person))
    if found is None:
        inherited = next((p for p in search.permissions(ctx, item) if p.person == person), None)
        hint = f"; their access comes from folder {inherited.inherited_from}" if inherited else ""
        raise NotFound(f"{person} has no access given on {item.name!r}{hint}", field="email")
    ctx.session.delete(found)
    ctx.session.flush()
    return search.detail(ctx, item, mine)


@ops.write
def set_general_access(ctx: Ctx, file_id: int, role: Literal["none", "viewer", "commenter", "editor"]) -> s.FileDetail:
    """Set what anyone in the organisation with the link may do: none (restricted), viewer, commenter or editor.

    Args:
        file_id: Id of the file or folder.
        role: none to restrict to people added, or the role everyone in the organisation gets.
    """
    item, mine = _shareable(ctx, file_id)
    item.general_access = None if role == "none" else role
    ctx.session.add(item)
    ctx.session.flush()
    return search.detail(ctx, item, mine)


@ops.write
def transfer_ownership(ctx: Ctx, file_id: int, new_owner: str) -> s.FileDetail:
    """Make another person the owner of a file or folder in your My Drive; you stay on as an editor.

    Args:
        file_id: Id of the file or folder you own.
        new_owner: Address of the person of the organisation who becomes owner.
    """
    item, _ = access.require(ctx, file_id, "owner", "transfer ownership")
    if item.drive_id is not None:
        raise Conflict(f"{item.name!r} is in a shared drive: files there belong to the drive, not a person",
                       field="file_id")
    person = store.check_person(ctx, new_owner, "new_owner")
    if person == item.owner:
        raise Conflict(f"{person} already owns {item.name!r}", field="new_owner")
    previous = item.owner
    existing = ctx.session.get(m.Permission, (item.id, person))
    if existing is not None:
        ctx.session.delete(existing)
    ctx.session.add(m.Permission(item_id=item.id, person=previous or ctx.actor, role="editor"))  # the owner acts
    item.owner = person
    ctx.session.add(item)
    store.touch(ctx, item, edited=False)
    ctx.session.flush()
    return search.detail(ctx, item, access.role_of(ctx.session, item, ctx.actor) or "editor")
