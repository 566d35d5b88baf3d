"""What docs operations return. Most are views over several tables (a file's path, your role, who it is
shared with), named for agents rather than columns (``type`` for ``kind``, ``folder_id`` for
``parent_id``); where a result is one entity's fields as they are, it derives from the entity (``models``)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Union

from pydantic import Field

from apps.docs import models as m
from apps.docs.models import DriveRole, Kind, Role, ShareRole
from apps.kit.entity import Strict, derive

__all__ = ["DriveRole", "Kind", "Role", "ShareRole"]  # re-exported: operations type their arguments with them

View = Literal["my_drive", "shared_with_me", "recent", "starred", "trash"]
CellInput = Union[int, float, str, None]
CellValue = Union[int, float, str, None]


class FileSummary(Strict):
    id: int = Field(description="The file's id (use it in other operations)")
    name: str
    type: Kind
    mime_type: str
    path: str = Field(description="Where it lives, e.g. 'My Drive/Deals' or 'Sales (shared drive)/Forecasts'")
    folder_id: int | None = Field(description="Id of the parent folder; empty at the root of a drive")
    drive_id: int | None = Field(description="Id of the shared drive holding it; empty in a My Drive")
    owner: str | None = Field(description="The owner's address; empty for files of a shared drive")
    size: int
    created_at: datetime
    modified_at: datetime
    modified_by: str
    starred: bool
    shared: bool = Field(description="Whether anyone besides the owner (or drive members) has access")
    your_role: Role
    trashed: bool


class FileList(Strict):
    total: int = Field(description="How many files match, beyond this page too")
    files: list[FileSummary]


class PermissionInfo(Strict):
    person: str = Field(description="An address, or 'anyone' for everyone in the organisation")
    name: str
    role: Role
    inherited_from: int | None = Field(None, description="Id of the folder this access comes from, if inherited")


class FileDetail(FileSummary):
    created_by: str
    permissions: list[PermissionInfo]
    general_access: ShareRole | None = Field(description="Role of anyone in the organisation with the link")
    revisions: int
    open_comments: int


class FileContent(Strict):
    file: FileSummary
    encoding: Literal["text", "base64"]
    content: str = Field(description="A document's Markdown, a sheet as CSV of values, or an upload's bytes")
    revision: int | None = Field(description="The current revision number (documents and spreadsheets)")


class DriveMemberInfo(derive(m.DriveMember, "see", "DriveMemberBase")):  # type: ignore[misc]  # a created model
    name: str = Field(description="The member's name")


class DriveInfo(derive(m.Drive, "see", "DriveBase")):  # type: ignore[misc]  # a created model
    id: int = Field(description="The shared drive's id")
    your_role: DriveRole
    members: list[DriveMemberInfo]


class CellInfo(Strict):
    ref: str = Field(description="A1-style reference")
    input: str = Field(description="What was typed: a value, or a formula starting with '='")
    value: CellValue = Field(description="The value shown: a number, text, or an error like #DIV/0!")
    error: str | None = Field(None, description="Why the cell shows an error")


class Spreadsheet(Strict):
    file: FileSummary
    tab: str = Field(description="The tab read, e.g. Sheet1")
    tabs: list[str] = Field(description="Every tab of the spreadsheet, in order")
    range: str = Field(description="The range returned, e.g. A1:D12")
    rows: list[list[CellValue]] = Field(description="Values row by row, formulas evaluated")
    cells: list[CellInfo] = Field(description="Every non-empty cell of the range, with its input")
    revision: int


class RevisionInfo(derive(m.Revision, "see", "RevisionBase")):  # type: ignore[misc]  # a created model
    id: int = Field(description="The revision's id")
    current: bool


class RevisionContent(RevisionInfo):
    file_id: int
    content: str = Field(description="A document's Markdown, or a sheet as CSV of what was typed")


class Reply(Strict):
    id: int
    author: str
    text: str
    created_at: datetime
    mentions: list[str]


class Comment(Strict):
    id: int
    file_id: int
    author: str
    text: str
    quote: str | None = Field(description="The passage the comment is anchored to")
    created_at: datetime
    resolved: bool
    resolved_by: str | None
    resolved_at: datetime | None
    mentions: list[str]
    replies: list[Reply]
    mentioned_without_access: list[str] = Field(
        [], description="People this call mentioned who cannot open the file: share it with them to let them read it")


class Removed(Strict):
    removed: str
