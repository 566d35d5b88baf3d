"""What docs operations take and return: the public shapes, separate from the tables."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Union

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal["folder", "document", "spreadsheet", "file"]
Role = Literal["owner", "editor", "commenter", "viewer"]
ShareRole = Literal["editor", "commenter", "viewer"]
DriveRole = Literal["manager", "editor", "commenter", "viewer"]
View = Literal["my_drive", "shared_with_me", "recent", "starred", "trash"]
CellInput = Union[int, float, str, None]
CellValue = Union[int, float, str, None]


class Public(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FileSummary(Public):
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


class FileList(Public):
    total: int = Field(description="How many files match, beyond this page too")
    files: list[FileSummary]


class PermissionInfo(Public):
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


class FileContent(Public):
    file: FileSummary
    encoding: Literal["text", "base64"]
    content: str = Field(description="A document's Markdown, a sheet as CSV of values, or an upload's bytes")
    revision: int | None = Field(description="The current revision number (documents and spreadsheets)")


class DriveMemberInfo(Public):
    person: str
    name: str
    role: DriveRole


class DriveInfo(Public):
    id: int
    name: str
    your_role: DriveRole
    members: list[DriveMemberInfo]


class CellInfo(Public):
    ref: str = Field(description="A1-style reference")
    input: str = Field(description="What was typed: a value, or a formula starting with '='")
    value: CellValue = Field(description="The value shown: a number, text, or an error like #DIV/0!")
    error: str | None = Field(None, description="Why the cell shows an error")


class Spreadsheet(Public):
    file: FileSummary
    range: str = Field(description="The range returned, e.g. A1:D12")
    rows: list[list[CellValue]] = Field(description="Values row by row, formulas evaluated")
    cells: list[CellInfo] = Field(description="Every non-empty cell of the range, with its input")
    revision: int


class RevisionInfo(Public):
    id: int
    number: int = Field(description="1 for the first version, counting up")
    author: str
    created_at: datetime
    current: bool


class RevisionContent(RevisionInfo):
    file_id: int
    content: str = Field(description="A document's Markdown, or a sheet as CSV of what was typed")


class Reply(Public):
    id: int
    author: str
    text: str
    created_at: datetime
    mentions: list[str]


class Comment(Public):
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


class Removed(Public):
    removed: str
