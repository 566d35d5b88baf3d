"""Docs operations for finding and reading: drives, folders, the Drive views, files, search.

Changing things is elsewhere: ``organising`` (create, move, trash), ``editing`` (text, cells,
revisions), ``sharing`` and ``comments``. Every operation acts as the acting user and sees only
what that user may see.
"""

from __future__ import annotations

from datetime import date

from sqlmodel import col, select

from apps.docs import fastlist, fastpath, store
from apps.docs import models as m
from apps.docs import schemas as s
from apps.docs import search as finder
from apps.kit import Ctx, Invalid, OperationSet
from apps.kit.wire import Wire

ops = OperationSet("docs")


def _page(limit: int, offset: int) -> None:
    if not 1 <= limit <= 200:
        raise Invalid("limit: must be between 1 and 200", field="limit")
    if offset < 0:
        raise Invalid("offset: must not be negative", field="offset")


def _listing(ctx: Ctx, items: list[m.Item], roles: dict, limit: int, offset: int) -> s.FileList:
    page = items[offset:offset + limit]
    return s.FileList(total=len(items), files=store.summaries(ctx.session, page, ctx.actor, roles))


def _folders_first(items: list[m.Item]) -> list[m.Item]:
    return sorted(items, key=lambda i: (i.kind != "folder", i.name.lower(), i.id))


@ops.read
def list_drives(ctx: Ctx) -> list[s.DriveInfo]:
    """List the shared drives you are a member of, with their members and your role."""
    mine = ctx.session.exec(select(m.DriveMember).where(m.DriveMember.person == ctx.actor)).all()
    found = []
    for membership in sorted(mine, key=lambda d: d.drive_id):
        drive = ctx.session.get_one(m.Drive, membership.drive_id)
        members = ctx.session.exec(select(m.DriveMember).where(m.DriveMember.drive_id == drive.id)
                                   .order_by(col(m.DriveMember.person)))
        found.append(s.DriveInfo(id=drive.id, name=drive.name, your_role=membership.role, members=[
            s.DriveMemberInfo(person=x.person, name=store.person_name(ctx, x.person), role=x.role) for x in members]))
    return found


@ops.read
def list_folder(ctx: Ctx, folder_id: int | None = None, drive_id: int | None = None, limit: int = 50,
                offset: int = 0) -> Wire[s.FileList]:
    """List what is in a folder, folders first then by name; with no folder, the root of My Drive.

    Args:
        folder_id: Id of the folder to open; leave empty for the root of My Drive (or of drive_id).
        drive_id: Id of a shared drive, to list its root (see list_drives).
        limit: Most files to return (1-200).
        offset: Skip this many files (for paging).
    """
    _page(limit, offset)
    return fastlist.list_folder(ctx, folder_id, drive_id, limit, offset)   # what access.require, all_roles,
    # store.children then _listing give, in plain SQL


@ops.read
def list_view(ctx: Ctx, view: s.View, limit: int = 50, offset: int = 0) -> Wire[s.FileList]:
    """Open one of Drive's views: my_drive, shared_with_me, recent, starred or trash.

    shared_with_me lists files others shared with you directly; recent, files you created, edited,
    commented on or shared, latest first; trash, the files you own that you put in the trash.

    Args:
        view: Which view: my_drive, shared_with_me, recent, starred or trash.
        limit: Most files to return (1-200).
        offset: Skip this many files (for paging).
    """
    _page(limit, offset)
    return fastlist.list_view(ctx, view, limit, offset)   # what all_roles, view_items then _listing give


@ops.read
def get_file(ctx: Ctx, file_id: int) -> Wire[s.FileDetail]:
    """Details of a file or folder: where it is, who has access with which role, revisions, comments.

    Args:
        file_id: Id of the file or folder.
    """
    return fastpath.file_detail(ctx, file_id)   # what access.require then finder.detail give, in plain SQL


@ops.read
def read_file(ctx: Ctx, file_id: int) -> Wire[s.FileContent]:
    """Read a file's content as plain text: a document's Markdown, a spreadsheet as CSV of its values
    (formulas evaluated; with several tabs, each under a '# <tab name>' line), an uploaded text file as is; other
    uploads come back base64-encoded.

    Args:
        file_id: Id of the file.
    """
    return fastpath.content(ctx, file_id)   # what access.require, store.summary and current_revision give


@ops.read
def search(ctx: Ctx, query: str = "", name: str | None = None, owner: str | None = None,
           type: s.Kind | None = None, modified_after: date | None = None, modified_before: date | None = None,
           shared_with_me: bool = False, starred: bool = False, limit: int = 20, offset: int = 0) -> Wire[s.FileList]:
    """Search the files you can open, by words in their name or content (best matches first), with filters.

    Files in the trash are left out. Without a query, matches are listed newest first.

    Args:
        query: Words to find in names and content, e.g. 'pipeline forecast'; a "quoted phrase" must appear as is.
        name: Only files whose name contains this text (case-insensitive).
        owner: Only files owned by this address ('me' for your own).
        type: Only this kind: folder, document, spreadsheet or file (an upload).
        modified_after: Only files last modified on or after this day (YYYY-MM-DD).
        modified_before: Only files last modified before this day (YYYY-MM-DD).
        shared_with_me: Only files others shared with you directly.
        starred: Only files you starred.
        limit: Most files to return (1-200).
        offset: Skip this many matches (for paging).
    """
    _page(limit, offset)
    filters = finder.Filters(name=name, owner=owner, kind=type, after=modified_after, before=modified_before,
                             shared_with_me=shared_with_me, starred=starred)
    return fastlist.search(ctx, query, filters, limit, offset)   # what all_roles, find then _listing give
