"""The docs entities, each declared once (``apps.kit.entity``): a tree of items (folders, documents,
spreadsheets, uploads) per owner or shared drive, with sharing, stars, history and discussion.

Google Drive's model: an item lives in one person's My Drive (``owner`` set, ``drive_id`` empty) or
in a shared drive (``drive_id`` set, no owner: the drive's members hold it). ``parent_id`` empty
means the root of that My Drive or shared drive. Sharing a folder shares everything under it, and
trashing a folder trashes everything under it, so both are read by walking up the parents.

Agents never set these fields directly (every operation takes its own arguments: a file id, a role...),
so ``create``/``update`` are off throughout; ``see`` marks what results show as is. The world file
(``apps.docs.world``) names places by path and drive name rather than ids, so its records are its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, get_args

from sqlalchemy import String
from sqlmodel import SQLModel

from apps.kit.entity import attr
from apps.kit.fulltext import fts5_index

Kind = Literal["folder", "document", "spreadsheet", "file"]
Role = Literal["owner", "editor", "commenter", "viewer"]
ShareRole = Literal["editor", "commenter", "viewer"]
DriveRole = Literal["manager", "editor", "commenter", "viewer"]
KINDS: tuple[str, ...] = get_args(Kind)
SHARE_ROLES: tuple[str, ...] = get_args(ShareRole)
DRIVE_ROLES: tuple[str, ...] = get_args(DriveRole)
FOLDER_MIME = "application/vnd.google-apps.folder"
DOCUMENT_MIME = "application/vnd.google-apps.document"
SPREADSHEET_MIME = "application/vnd.google-apps.spreadsheet"
MIME_OF_KIND = {"folder": FOLDER_MIME, "document": DOCUMENT_MIME, "spreadsheet": SPREADSHEET_MIME}


def field(default: Any = ..., *, description: str, see: bool = True, world: bool = True, **kwargs: Any) -> Any:
    """A docs field: ``attr`` with ``create``/``update`` off (see the module docstring)."""
    if default is ...:
        return attr(description=description, create=False, update=False, see=see, world=world, **kwargs)
    return attr(default, description=description, create=False, update=False, see=see, world=world, **kwargs)


def key(description: str, **kwargs: Any) -> Any:
    """An id the database gives (autoincrement): shown, never in the world file. Typed ``int``: it is
    None only between making a row and flushing it, and code reads ids of stored rows."""
    return field(None, primary_key=True, description=description, world=False, **kwargs)


class Drive(SQLModel, table=True):
    """A shared drive of a team."""

    __tablename__ = "docs_drive"
    id: int = key("The shared drive's id")
    name: str = field(description="The drive's name, e.g. a team's")
    created_at: datetime = field(description="When the drive was made", see=False)


class DriveMember(SQLModel, table=True):
    __tablename__ = "docs_drive_member"
    drive_id: int = field(foreign_key="docs_drive.id", primary_key=True, description="The shared drive",
                          see=False, world=False)
    person: str = field(primary_key=True, description="The member's address")
    role: DriveRole = field(description="manager (also manages members), editor, commenter or viewer", sa_type=String)


class Item(SQLModel, table=True):
    """A folder or file. ``body`` is a document's Markdown, or the searchable text of other kinds."""

    __tablename__ = "docs_item"
    id: int = key("The file's id (use it in other operations)")
    kind: Kind = field(index=True, description="folder, document, spreadsheet or file (an upload)", sa_type=String)
    name: str = field(description="The file's name")
    owner: str | None = field(None, index=True, description="The owner's address; empty for files of a shared drive")
    drive_id: int | None = field(None, foreign_key="docs_drive.id", index=True,
                                 description="Id of the shared drive holding it; empty in a My Drive")
    parent_id: int | None = field(None, foreign_key="docs_item.id", index=True,
                                  description="Id of the parent folder; empty at the root of a drive")
    mime_type: str = field(description="The file's MIME type (Google's own for folders, documents and sheets)")
    body: str = field("", description="A document's Markdown, or the searchable text of other kinds", see=False)
    content: bytes | None = field(None, description="An upload's bytes", see=False)
    size: int = field(0, description="Size in bytes")
    general_access: ShareRole | None = field(None, description="Role of anyone in the organisation with the link",
                                             sa_type=String)
    created_at: datetime = field(description="When it was made")
    created_by: str = field(description="Who made it")
    modified_at: datetime = field(index=True, description="When it was last changed")
    modified_by: str = field(description="Who changed it last")
    trashed_at: datetime | None = field(None, description="When it went to the trash", see=False, world=False)
    trashed_by: str | None = field(None, description="Who put it in the trash", see=False, world=False)


class Permission(SQLModel, table=True):
    """A person's role on an item (the owner's role is ``Item.owner``, not a row here)."""

    __tablename__ = "docs_permission"
    item_id: int = field(foreign_key="docs_item.id", primary_key=True, description="The item shared", see=False,
                         world=False)
    person: str = field(primary_key=True, index=True, description="An address, or 'anyone' for everyone in the "
                        "organisation")
    role: ShareRole = field(description="editor, commenter or viewer", sa_type=String)


class Star(SQLModel, table=True):
    __tablename__ = "docs_star"
    item_id: int = field(foreign_key="docs_item.id", primary_key=True, description="The item starred", world=False)
    person: str = field(primary_key=True, index=True, description="Who starred it")


class Activity(SQLModel, table=True):
    """When a person last created, edited, commented on or shared an item: the "Recent" view."""

    __tablename__ = "docs_activity"
    item_id: int = field(foreign_key="docs_item.id", primary_key=True, description="The item", world=False)
    person: str = field(primary_key=True, index=True, description="Who touched it")
    at: datetime = field(description="When they last did", world=False)


class Tab(SQLModel, table=True):
    """A tab (sheet) of a spreadsheet. A spreadsheet with no rows here has one tab, 'Sheet1' (id 0): the rows
    are written when its tabs are first added, renamed or moved (``apps.docs.tabs``)."""

    __tablename__ = "docs_tab"
    item_id: int = field(foreign_key="docs_item.id", primary_key=True, description="The spreadsheet", world=False)
    sheet_id: int = field(primary_key=True, description="The tab's id, kept through renames and moves", world=False)
    name: str = field(description="The tab's name, unique in its spreadsheet whatever the case")
    position: int = field(description="Its place among the tabs, from 0", world=False)


class Cell(SQLModel, table=True):
    """One non-empty cell of a spreadsheet's tab, as typed: a value, or a formula starting with '='."""

    __tablename__ = "docs_cell"
    item_id: int = field(foreign_key="docs_item.id", primary_key=True, description="The spreadsheet", world=False)
    tab: int = field(0, primary_key=True, description="The tab's sheet_id (0: the tab it was made with)", world=False)
    row: int = field(primary_key=True, description="1-based row")
    col: int = field(primary_key=True, description="1-based column (A is 1)")
    input: str = field(description="What was typed: a value, or a formula starting with '='")


class Revision(SQLModel, table=True):
    """A saved version: a document's Markdown, or a spreadsheet's cells as JSON ({"A1": input})."""

    __tablename__ = "docs_revision"
    id: int = key("The revision's id")
    item_id: int = field(foreign_key="docs_item.id", index=True, description="The file", see=False, world=False)
    number: int = field(description="1 for the first version, counting up", world=False)
    author: str = field(description="Who saved it")
    created_at: datetime = field(description="When it was saved")
    content: str = field(description="A document's Markdown, or a sheet's cells as JSON", see=False)


class Comment(SQLModel, table=True):
    """A comment anchored to a quoted passage, or a reply to one (``parent_id`` set)."""

    __tablename__ = "docs_comment"
    id: int = key("The comment's id")
    item_id: int = field(foreign_key="docs_item.id", index=True, description="The file commented on", world=False)
    parent_id: int | None = field(None, foreign_key="docs_comment.id", index=True,
                                  description="For a reply: the comment it answers", world=False)
    author: str = field(description="Who wrote it")
    body: str = field(description="The comment's text; @name mentions a colleague")
    quote: str | None = field(None, description="The passage the comment is anchored to")
    created_at: datetime = field(description="When it was written")
    resolved: bool = field(False, description="Whether the discussion is closed")
    resolved_by: str | None = field(None, description="Who resolved it")
    resolved_at: datetime | None = field(None, description="When it was resolved")


class Mention(SQLModel, table=True):
    __tablename__ = "docs_mention"
    comment_id: int = field(foreign_key="docs_comment.id", primary_key=True, description="The comment",
                            see=False, world=False)
    person: str = field(primary_key=True, index=True, description="Who the comment mentions")


TABLES: list[type[SQLModel]] = [Drive, DriveMember, Item, Permission, Star, Activity, Tab, Cell, Revision, Comment,
                                Mention]

# Full-text index over names and bodies.
DDL = fts5_index("docs_item", {"name": "new.name", "body": "new.body"}, watched=["name", "body"])
