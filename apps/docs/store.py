"""Reading and writing the drive: placing items, paths, activity, revisions, and results from rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from sqlmodel import Session, col, func, select

from apps.docs import access, extract
from apps.docs import models as m
from apps.docs import schemas as s
from apps.kit import Conflict, Ctx, Forbidden, Invalid, NotFound

MAX_NAME = 255


def utc(moment: datetime | None) -> datetime | None:
    """Times come back from SQLite without a zone; they were stored in UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=timezone.utc)


def searchable_text(content: bytes, mime_type: str) -> str:
    """The words search finds in an upload: a text file's text, or the text a PDF, DOCX or XLSX shows."""
    if mime_type.startswith("text/") or mime_type in ("application/json", "application/csv"):
        return content.decode("utf-8", errors="replace")
    return extract.text_of(content, mime_type)


def clean_name(name: str, field: str = "name") -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME or "/" in name:
        raise Invalid(f"{field}: a name has 1 to {MAX_NAME} characters and no '/'", field=field)
    return name


def touch(ctx: Ctx, item: m.Item, edited: bool = True) -> None:
    """Record the actor's activity on the item (the Recent view); an edit also moves modified time."""
    if edited:
        item.modified_at, item.modified_by = ctx.now, ctx.actor
        ctx.session.add(item)
    found = ctx.session.get(m.Activity, (item.id, ctx.actor))
    if found is None:
        found = m.Activity(item_id=item.id, person=ctx.actor, at=ctx.now)
    found.at = ctx.now
    ctx.session.add(found)


def destination(ctx: Ctx, folder_id: int | None, drive_id: int | None) -> tuple[int | None, int | None]:
    """(parent_id, drive_id) for a new or moved item; the actor must be able to add files there."""
    if folder_id is not None:
        folder, _ = access.require(ctx, folder_id, "editor", "add files to it", field="folder_id")
        if folder.kind != "folder":
            raise Invalid(f"folder_id: {folder.name!r} is a {folder.kind}, not a folder", field="folder_id")
        if access.is_trashed(ctx.session, folder):
            raise Conflict(f"folder {folder.name!r} is in the trash; restore it first", field="folder_id")
        if drive_id is not None and drive_id != folder.drive_id:
            raise Invalid("drive_id: the folder is not in that shared drive; give only folder_id", field="drive_id")
        return folder.id, folder.drive_id
    if drive_id is not None:
        drive = ctx.session.get(m.Drive, drive_id)
        role = access.drive_role(ctx.session, drive_id, ctx.actor) if drive else None
        if drive is None or role is None:
            raise NotFound(f"no shared drive {drive_id} that you are a member of", field="drive_id")
        if access.RANK[access.DRIVE_TO_ROLE[role]] < access.RANK["editor"]:
            raise Forbidden(f"you are a {role} of shared drive {drive.name!r}; adding files needs editor",
                                   field="drive_id")
    return None, drive_id


def new_item(ctx: Ctx, kind: m.Kind, name: str, folder_id: int | None, drive_id: int | None,
             mime_type: str | None = None, body: str = "", content: bytes | None = None) -> m.Item:
    parent_id, drive_id = destination(ctx, folder_id, drive_id)
    item = m.Item(kind=kind, name=clean_name(name), owner=None if drive_id else ctx.actor, drive_id=drive_id,
                  parent_id=parent_id, mime_type=mime_type or m.MIME_OF_KIND[kind], body=body, content=content,
                  size=len(content) if content is not None else len(body.encode()), created_at=ctx.now,
                  created_by=ctx.actor, modified_at=ctx.now, modified_by=ctx.actor)
    ctx.session.add(item)
    ctx.session.flush()
    touch(ctx, item)
    return item


def add_revision(session: Session, item: m.Item, author: str, at: datetime, content: str) -> m.Revision:
    last = session.exec(select(func.max(m.Revision.number)).where(m.Revision.item_id == item.id)).one()
    revision = m.Revision(item_id=item.id, number=(last or 0) + 1, author=author, created_at=at, content=content)
    session.add(revision)
    session.flush()
    return revision


def current_revision(session: Session, item_id: int) -> int | None:
    return session.exec(select(func.max(m.Revision.number)).where(m.Revision.item_id == item_id)).one()


@dataclass
class Tree:
    """Every folder's (name, parent) and every drive's name: read once to build many paths."""

    folders: dict[int, tuple[str, int | None]]
    drives: dict[int, str]


def folder_tree(session: Session) -> Tree:
    folders = {i: (name, parent) for i, name, parent in session.exec(
        select(m.Item.id, m.Item.name, m.Item.parent_id).where(m.Item.kind == "folder"))}
    drives: dict[int, str] = {i: name for i, name in session.exec(select(m.Drive.id, m.Drive.name))}
    return Tree(folders, drives)


def _step(session: Session, item_id: int) -> tuple[str, int | None]:
    node = session.get_one(m.Item, item_id)
    return node.name, node.parent_id


def path_of(session: Session, item: m.Item, tree: Tree | None = None) -> str:
    """The folder path above the item, from its drive's root; ``tree`` saves a query per step."""
    names = []
    parent = item.parent_id
    while parent:
        name, parent = tree.folders[parent] if tree else _step(session, parent)
        names.append(name)
    if item.drive_id is not None:
        drive = tree.drives[item.drive_id] if tree else session.get_one(m.Drive, item.drive_id).name
        root = f"{drive} (shared drive)"
    else:
        root = "My Drive" if item.owner else "?"
    return "/".join([root, *reversed(names)])


def is_shared(session: Session, item: m.Item) -> bool:
    if item.general_access:
        return True
    return session.exec(select(m.Permission.person).where(m.Permission.item_id == item.id)).first() is not None


def summary(session: Session, item: m.Item, actor: str, role: str | None = None, trashed: bool | None = None,
            starred: bool | None = None, shared: bool | None = None, tree: Tree | None = None) -> s.FileSummary:
    role = role or access.role_of(session, item, actor)
    trashed = access.is_trashed(session, item) if trashed is None else trashed
    starred = session.get(m.Star, (item.id, actor)) is not None if starred is None else starred
    return s.FileSummary(
        id=item.id, name=item.name, type=item.kind, mime_type=item.mime_type, path=path_of(session, item, tree),
        folder_id=item.parent_id, drive_id=item.drive_id, owner=item.owner, size=item.size,
        created_at=utc(item.created_at), modified_at=utc(item.modified_at), modified_by=item.modified_by,
        starred=starred, shared=is_shared(session, item) if shared is None else shared,
        your_role=role, trashed=trashed,
    )


def summaries(session: Session, items: list[m.Item], actor: str, roles: dict) -> list[s.FileSummary]:
    """Summaries of a page of items whose roles are known, with stars and sharing read once for all."""
    if not items:
        return []
    ids = [i.id for i in items]
    starred = set(session.exec(select(m.Star.item_id).where(m.Star.person == actor, col(m.Star.item_id).in_(ids))))
    shared = set(session.exec(select(m.Permission.item_id).where(col(m.Permission.item_id).in_(ids))))
    tree = folder_tree(session)
    return [summary(session, i, actor, roles[i.id][0], roles[i.id][1], i.id in starred,
                    bool(i.general_access) or i.id in shared, tree) for i in items]


def person_name(ctx: Ctx, address: str) -> str:
    person = ctx.world.people_by_email().get(address)
    return person.name if person else address


def check_person(ctx: Ctx, address: str, field: str) -> str:
    address = address.strip().lower()
    if address not in ctx.world.people_by_email():
        raise Invalid(f"{field}: {address!r} is not a person of {ctx.world.company}; sharing outside the "
                      "organisation is turned off", field=field)
    return address


def children(session: Session, parent_id: int | None, drive_id: int | None, owner: str | None) -> list[m.Item]:
    query = select(m.Item).where(m.Item.parent_id == parent_id) if parent_id else select(m.Item).where(
        col(m.Item.parent_id).is_(None), m.Item.drive_id == drive_id if drive_id else col(m.Item.drive_id).is_(None))
    if parent_id is None and drive_id is None:
        query = query.where(m.Item.owner == owner)
    return list(session.exec(query))


def descendants(session: Session, item: m.Item) -> list[m.Item]:
    found, queue = [], [item]
    while queue:
        node = queue.pop()
        found.append(node)
        if node.kind == "folder":
            queue.extend(session.exec(select(m.Item).where(m.Item.parent_id == node.id)))
    return found
