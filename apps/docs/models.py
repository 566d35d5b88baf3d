"""Docs tables: a tree of items (folders, documents, spreadsheets, uploads) per owner or shared drive.

Google Drive's model: an item lives in one person's My Drive (``owner`` set, ``drive_id`` empty) or
in a shared drive (``drive_id`` set, no owner: the drive's members hold it). ``parent_id`` empty
means the root of that My Drive or shared drive. Sharing a folder shares everything under it, and
trashing a folder trashes everything under it, so both are read by walking up the parents.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from apps.kit.fulltext import fts5_index

KINDS = ("folder", "document", "spreadsheet", "file")
ROLES = ("viewer", "commenter", "editor", "owner")
DRIVE_ROLES = ("viewer", "commenter", "editor", "manager")
FOLDER_MIME = "application/vnd.google-apps.folder"
DOCUMENT_MIME = "application/vnd.google-apps.document"
SPREADSHEET_MIME = "application/vnd.google-apps.spreadsheet"
MIME_OF_KIND = {"folder": FOLDER_MIME, "document": DOCUMENT_MIME, "spreadsheet": SPREADSHEET_MIME}


class Drive(SQLModel, table=True):
    """A shared drive of a team."""

    __tablename__ = "docs_drive"
    id: int | None = Field(default=None, primary_key=True)
    name: str
    created_at: datetime


class DriveMember(SQLModel, table=True):
    __tablename__ = "docs_drive_member"
    drive_id: int = Field(foreign_key="docs_drive.id", primary_key=True)
    person: str = Field(primary_key=True)
    role: str


class Item(SQLModel, table=True):
    """A folder or file. ``body`` is a document's Markdown, or the searchable text of other kinds."""

    __tablename__ = "docs_item"
    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(index=True)
    name: str
    owner: str | None = Field(default=None, index=True)
    drive_id: int | None = Field(default=None, foreign_key="docs_drive.id", index=True)
    parent_id: int | None = Field(default=None, foreign_key="docs_item.id", index=True)
    mime_type: str
    body: str = ""
    content: bytes | None = None
    size: int = 0
    general_access: str | None = None
    created_at: datetime
    created_by: str
    modified_at: datetime = Field(index=True)
    modified_by: str
    trashed_at: datetime | None = None
    trashed_by: str | None = None


class Permission(SQLModel, table=True):
    """A person's role on an item (the owner's role is ``Item.owner``, not a row here)."""

    __tablename__ = "docs_permission"
    item_id: int = Field(foreign_key="docs_item.id", primary_key=True)
    person: str = Field(primary_key=True, index=True)
    role: str


class Star(SQLModel, table=True):
    __tablename__ = "docs_star"
    item_id: int = Field(foreign_key="docs_item.id", primary_key=True)
    person: str = Field(primary_key=True, index=True)


class Activity(SQLModel, table=True):
    """When a person last created, edited, commented on or shared an item: the "Recent" view."""

    __tablename__ = "docs_activity"
    item_id: int = Field(foreign_key="docs_item.id", primary_key=True)
    person: str = Field(primary_key=True, index=True)
    at: datetime


class Cell(SQLModel, table=True):
    """One non-empty cell of a spreadsheet, as typed: a value, or a formula starting with '='."""

    __tablename__ = "docs_cell"
    item_id: int = Field(foreign_key="docs_item.id", primary_key=True)
    row: int = Field(primary_key=True)
    col: int = Field(primary_key=True)
    input: str


class Revision(SQLModel, table=True):
    """A saved version: a document's Markdown, or a spreadsheet's cells as JSON ({"A1": input})."""

    __tablename__ = "docs_revision"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key="docs_item.id", index=True)
    number: int
    author: str
    created_at: datetime
    content: str


class Comment(SQLModel, table=True):
    """A comment anchored to a quoted passage, or a reply to one (``parent_id`` set)."""

    __tablename__ = "docs_comment"
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key="docs_item.id", index=True)
    parent_id: int | None = Field(default=None, foreign_key="docs_comment.id", index=True)
    author: str
    body: str
    quote: str | None = None
    created_at: datetime
    resolved: bool = False
    resolved_by: str | None = None
    resolved_at: datetime | None = None


class Mention(SQLModel, table=True):
    __tablename__ = "docs_mention"
    comment_id: int = Field(foreign_key="docs_comment.id", primary_key=True)
    person: str = Field(primary_key=True, index=True)


TABLES = [Drive, DriveMember, Item, Permission, Star, Activity, Cell, Revision, Comment, Mention]

# Full-text index over names and bodies.
DDL = fts5_index("docs_item", {"name": "new.name", "body": "new.body"}, watched=["name", "body"])
