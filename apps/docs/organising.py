"""Docs operations that create and organise: new files, rename, move, copy, star, trash, delete.

Ownership rules are Drive's: editors may rename and move within a drive; only the owner (or a
manager of a shared drive) may trash, restore, delete forever, or move a file across drives.
"""

from __future__ import annotations

import mimetypes

from sqlmodel import col, delete, select

from apps.docs import access, fastwrite, sheets, store
from apps.docs import models as m
from apps.docs import schemas as s
from apps.kit import Conflict, Ctx, Forbidden, Invalid, OperationSet
from apps.kit.content import decode
from apps.kit.wire import Wire, wired

ops = OperationSet("docs")
# A file travels inline (text or base64): allow about 10 MB rather than the kit's 100 kB.
UPLOAD_TEXT_LIMIT = 10_000_000


@ops.write
def create_folder(ctx: Ctx, name: str, folder_id: int | None = None, drive_id: int | None = None) -> s.FileSummary:
    """Create a folder.

    Args:
        name: The folder's name.
        folder_id: Id of the folder to create it in; leave empty for the root of My Drive (or of drive_id).
        drive_id: Id of a shared drive, to create it at that drive's root.
    """
    item = store.new_item(ctx, "folder", name, folder_id, drive_id)
    return store.summary(ctx.session, item, ctx.actor)


@ops.write
def create_document(ctx: Ctx, name: str, text: str = "", folder_id: int | None = None,
                    drive_id: int | None = None) -> Wire[s.FileSummary]:
    """Create a document (rich text kept as Markdown). Its first revision is the text given.

    Args:
        name: The document's title.
        text: Its content, in Markdown.
        folder_id: Id of the folder to create it in; leave empty for the root of My Drive (or of drive_id).
        drive_id: Id of a shared drive, to create it at that drive's root.
    """
    found = fastwrite.create_document(ctx, name, text, folder_id, drive_id)   # at the root of My Drive
    return found if found is not None else wired(_new_document(ctx, name, text, folder_id, drive_id))


def _new_document(ctx: Ctx, name: str, text: str, folder_id: int | None, drive_id: int | None) -> s.FileSummary:
    """``create_document`` through the ORM: in a folder or a shared drive."""
    item = store.new_item(ctx, "document", name, folder_id, drive_id, body=text)
    store.add_revision(ctx.session, item, ctx.actor, ctx.now, text)
    return store.summary(ctx.session, item, ctx.actor)


@ops.write
def create_spreadsheet(ctx: Ctx, name: str, rows: list[list[s.CellInput]] = [], folder_id: int | None = None,
                       drive_id: int | None = None) -> s.FileSummary:
    """Create a spreadsheet, optionally filled from A1 with rows of values or formulas ('=SUM(B2:B9)').

    Args:
        name: The spreadsheet's title.
        rows: Rows of cells, top row first; a text starting with '=' is a formula.
        folder_id: Id of the folder to create it in; leave empty for the root of My Drive (or of drive_id).
        drive_id: Id of a shared drive, to create it at that drive's root.
    """
    item = store.new_item(ctx, "spreadsheet", name, folder_id, drive_id)
    grid = sheets.from_rows([[sheets.input_text(v) for v in row] for row in rows])
    sheets.save(ctx.session, item, grid, (ctx.now, ctx.world.timezone))
    store.add_revision(ctx.session, item, ctx.actor, ctx.now, sheets.to_json(grid))
    return store.summary(ctx.session, item, ctx.actor)


@ops.write(text_limit=UPLOAD_TEXT_LIMIT)
def upload_file(ctx: Ctx, name: str, text: str | None = None, content_base64: str | None = None,
                mime_type: str | None = None, folder_id: int | None = None,
                drive_id: int | None = None) -> s.FileSummary:
    """Upload a file (a PDF, an image, a CSV...): give text for a text file or content_base64 otherwise.

    Args:
        name: The file name, with its extension (e.g. 'quote.pdf').
        text: The content of a text file.
        content_base64: The content of a binary file, base64-encoded.
        mime_type: Its MIME type; guessed from the name when left empty.
        folder_id: Id of the folder to put it in; leave empty for the root of My Drive (or of drive_id).
        drive_id: Id of a shared drive, to put it at that drive's root.
    """
    content = decode(text, content_base64)
    mime = mime_type or mimetypes.guess_type(name)[0] or "application/octet-stream"
    item = store.new_item(ctx, "file", name, folder_id, drive_id, mime_type=mime,
                          body=store.searchable_text(content, mime), content=content)
    return store.summary(ctx.session, item, ctx.actor)


def _live(ctx: Ctx, file_id: int, needed: str, action: str) -> tuple[m.Item, str]:
    item, role = access.require(ctx, file_id, needed, action)
    if access.is_trashed(ctx.session, item):
        raise Conflict(f"{item.name!r} is in the trash; restore it first", field="file_id")
    return item, role


@ops.write
def rename(ctx: Ctx, file_id: int, name: str) -> s.FileSummary:
    """Rename a file or folder.

    Args:
        file_id: Id of the file or folder.
        name: The new name.
    """
    item, role = _live(ctx, file_id, "editor", "rename it")
    item.name = store.clean_name(name)
    store.touch(ctx, item)
    return store.summary(ctx.session, item, ctx.actor, role)


def _rehome(ctx: Ctx, item: m.Item, drive_id: int | None) -> None:
    """Moving across drives: a shared drive's files have no owner; files leaving one become the actor's."""
    for node in store.descendants(ctx.session, item):
        node.drive_id, node.owner = drive_id, None if drive_id else ctx.actor
        ctx.session.add(node)


@ops.write
def move(ctx: Ctx, file_id: int, folder_id: int | None = None, drive_id: int | None = None) -> s.FileSummary:
    """Move a file or folder into another folder, or to the root of your My Drive or of a shared drive.

    Args:
        file_id: Id of the file or folder to move.
        folder_id: Id of the destination folder; leave empty for a root.
        drive_id: Id of a shared drive, to move it to that drive's root (with folder_id empty).
    """
    item, role = _live(ctx, file_id, "editor", "move it")
    parent_id, target_drive = store.destination(ctx, folder_id, drive_id)
    if parent_id is not None and parent_id in {d.id for d in store.descendants(ctx.session, item)}:
        raise Invalid("folder_id: a folder cannot be moved into itself or a folder inside it", field="folder_id")
    if target_drive != item.drive_id:
        if role != "owner":
            raise Forbidden(f"moving {item.name!r} to another drive needs its owner (or a drive manager)",
                            field="file_id")
        _rehome(ctx, item, target_drive)
    elif parent_id is None and target_drive is None and item.owner != ctx.actor:
        raise Forbidden(f"only the owner can move {item.name!r} to the root of their My Drive", field="folder_id")
    item.parent_id = parent_id
    store.touch(ctx, item, edited=False)
    ctx.session.add(item)
    ctx.session.flush()
    return store.summary(ctx.session, item, ctx.actor)


@ops.write
def copy(ctx: Ctx, file_id: int, name: str | None = None, folder_id: int | None = None) -> s.FileSummary:
    """Make a copy of a file, owned by you, with its current content (not its comments or history).

    Args:
        file_id: Id of the file to copy (folders cannot be copied).
        name: Name of the copy; 'Copy of <name>' when left empty.
        folder_id: Where to put the copy; leave empty for the root of your My Drive.
    """
    item, _ = access.require(ctx, file_id, "viewer", "copy it")
    if item.kind == "folder":
        raise Invalid("file_id: folders cannot be copied; copy the files inside", field="file_id")
    copied = store.new_item(ctx, item.kind, name or f"Copy of {item.name}", folder_id, None, mime_type=item.mime_type,
                            body=item.body, content=item.content)
    copied.size = item.size
    if item.kind == "spreadsheet":
        snapshot = sheets.snapshot(ctx.session, item.id)   # every tab, as Sheets' "Make a copy" does
        sheets.restore(ctx.session, copied, snapshot, (ctx.now, ctx.world.timezone))
        store.add_revision(ctx.session, copied, ctx.actor, ctx.now, snapshot)
    elif item.kind == "document":
        store.add_revision(ctx.session, copied, ctx.actor, ctx.now, item.body)
    return store.summary(ctx.session, copied, ctx.actor)


def _set_star(ctx: Ctx, file_id: int, on: bool) -> s.FileSummary:
    item, role = access.require(ctx, file_id, "viewer", "star it")
    found = ctx.session.get(m.Star, (item.id, ctx.actor))
    if on and found is None:
        ctx.session.add(m.Star(item_id=item.id, person=ctx.actor))
    elif not on and found is not None:
        ctx.session.delete(found)
    ctx.session.flush()
    return store.summary(ctx.session, item, ctx.actor, role)


@ops.write
def star(ctx: Ctx, file_id: int) -> s.FileSummary:
    """Star a file or folder (stars are yours alone; it shows in the starred view).

    Args:
        file_id: Id of the file or folder.
    """
    return _set_star(ctx, file_id, True)


@ops.write
def unstar(ctx: Ctx, file_id: int) -> s.FileSummary:
    """Remove your star from a file or folder.

    Args:
        file_id: Id of the file or folder.
    """
    return _set_star(ctx, file_id, False)


@ops.write
def trash(ctx: Ctx, file_id: int) -> s.FileSummary:
    """Move a file or folder (with everything in it) to the trash; restore it from there, or delete it forever.

    Args:
        file_id: Id of the file or folder.
    """
    item, role = _live(ctx, file_id, "owner", "move it to the trash")
    item.trashed_at, item.trashed_by = ctx.now, ctx.actor
    store.touch(ctx, item, edited=False)
    ctx.session.add(item)
    return store.summary(ctx.session, item, ctx.actor, role, trashed=True)


def _in_trash(ctx: Ctx, file_id: int, action: str) -> tuple[m.Item, str]:
    item, role = access.require(ctx, file_id, "owner", action)
    if item.trashed_at is None:
        raise Conflict(f"{item.name!r} is not in the trash (only items put in the trash can be {action.split()[0]}d)",
                       field="file_id")
    return item, role


@ops.write
def restore(ctx: Ctx, file_id: int) -> s.FileSummary:
    """Take a file or folder out of the trash, back to its folder (or to the root if that folder is gone).

    Args:
        file_id: Id of the file or folder in the trash.
    """
    item, role = _in_trash(ctx, file_id, "restore it")
    parent = ctx.session.get(m.Item, item.parent_id) if item.parent_id else None
    if parent is not None and access.is_trashed(ctx.session, parent):
        item.parent_id = None
    item.trashed_at, item.trashed_by = None, None
    store.touch(ctx, item, edited=False)
    ctx.session.add(item)
    ctx.session.flush()
    return store.summary(ctx.session, item, ctx.actor, role, trashed=False)


@ops.write
def delete_forever(ctx: Ctx, file_id: int) -> s.Removed:
    """Delete a file or folder in the trash for good, with everything in it. This cannot be undone.

    Args:
        file_id: Id of the file or folder in the trash.
    """
    item, _ = _in_trash(ctx, file_id, "delete it forever")
    doomed = store.descendants(ctx.session, item)
    ids = [d.id for d in doomed]
    comments = select(m.Comment.id).where(col(m.Comment.item_id).in_(ids))
    ctx.session.exec(delete(m.Mention).where(col(m.Mention.comment_id).in_(comments)))
    ctx.session.exec(delete(m.Comment).where(col(m.Comment.item_id).in_(ids), col(m.Comment.parent_id).is_not(None)))
    tables: tuple[type[m.Comment | m.Revision | m.Cell | m.Tab | m.Permission | m.Star | m.Activity], ...] = (
        m.Comment, m.Revision, m.Cell, m.Tab, m.Permission, m.Star, m.Activity)
    for table in tables:
        ctx.session.exec(delete(table).where(col(table.item_id).in_(ids)))
    for node in reversed(doomed):
        ctx.session.delete(node)
        ctx.session.flush()
    return s.Removed(removed=f"{item.kind} {item.id} {item.name!r} and {len(ids) - 1} item(s) inside it")
