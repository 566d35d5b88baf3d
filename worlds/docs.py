"""The world's docs workspace: its file format, its model, and its checks.

Layout of ``docs/`` in a world folder::

    *.yaml          shared_drives and items (one file, or one per person or drive: they are merged)
    <any path>      the content an item's ``source`` names: Markdown for documents, CSV for
                    spreadsheets (a cell starting with '=' is a formula), any file for uploads

An item::

    - name: Globex renewal plan
      owner: dana@acme.test          # or  drive: Sales  (a shared drive's files have no owner)
      folder: Deals/Globex           # folders on the way are created as needed; '' is the root
      type: document                 # folder | document | spreadsheet | file (else from source)
      source: files/globex-renewal.md    # or text: (a document) / rows: (a spreadsheet) inline
      created: 2026-02-02T10:00:00   # times without a zone are in the world's zone
      modified: 2026-03-10T16:20:00  # and modified_by; default created / created_by / owner
      shared: {ravi@acme.test: editor}   # editor | commenter | viewer
      anyone: viewer                 # anyone in the organisation
      starred_by: [dana@acme.test]
      revisions: [{by: ravi@acme.test, at: 2026-02-03T09:00:00, source: files/globex-renewal.v1.md}]
      comments: [{by, at, text, quote, resolved_by, resolved_at, replies: [{by, at, text}]}]

``revisions`` are the earlier versions, oldest first; the current content is the last revision.
"""

from __future__ import annotations

import csv
import io
import mimetypes
import re
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from worlds.lines import read_yaml

ROLES = ("editor", "commenter", "viewer")
DRIVE_ROLES = ("manager", "editor", "commenter", "viewer")
KINDS = ("folder", "document", "spreadsheet", "file")
# An @mention in a comment: a local part (``@ravi``) or a whole address.
MENTION = re.compile(r"(?<![\w.@])@([A-Za-z0-9._%+-]+(?:@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)?)")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Reply(_Strict):
    by: str
    at: datetime
    text: str


class Comment(_Strict):
    by: str
    at: datetime
    text: str
    quote: str | None = None
    resolved_by: str | None = None
    resolved_at: datetime | None = None
    replies: list[Reply] = Field(default_factory=list)


class Revision(_Strict):
    by: str
    at: datetime
    source: str | None = None
    text: str | None = None
    rows: list[list[str]] | None = None


class SharedDrive(_Strict):
    name: str
    members: dict[str, str]
    created: datetime | None = None
    file: str = ""


class Item(_Strict):
    name: str
    type: str | None = None
    owner: str | None = None
    drive: str | None = None
    folder: str = ""
    source: str | None = None
    text: str | None = None
    rows: list[list[str]] | None = None
    content: bytes | None = None
    mime_type: str | None = None
    created: datetime
    created_by: str | None = None
    modified: datetime | None = None
    modified_by: str | None = None
    shared: dict[str, str] = Field(default_factory=dict)
    anyone: str | None = None
    starred_by: list[str] = Field(default_factory=list)
    comments: list[Comment] = Field(default_factory=list)
    revisions: list[Revision] = Field(default_factory=list)
    file: str = ""


class DocsData(_Strict):
    drives: list[SharedDrive] = Field(default_factory=list)
    items: list[Item] = Field(default_factory=list)


def load(root: Path, info, problems: list[str]) -> DocsData:
    """Read ``docs/`` of a world folder; append every problem found to ``problems``."""
    folder = root / "docs"
    data = DocsData()
    if not folder.is_dir():
        return data
    places: dict[int, str] = {}
    for path in sorted(folder.glob("*.yaml")):
        _read_file(folder, path, info, data, problems, places)
    _Checker(info, data, problems, places).check()
    return data


def _read_file(folder: Path, path: Path, info, data: DocsData, problems: list[str], places: dict[int, str]) -> None:
    """Add the file's drives and items to ``data``; ``places`` gets each one's ``file:line``."""
    where = f"docs/{path.name}"
    raw, lines = read_yaml(path, where, problems)
    if raw is None:
        return
    if not isinstance(raw, dict) or set(raw) - {"shared_drives", "items"}:
        problems.append(f"{where}: expected a mapping with shared_drives and items only")
        return
    for i, entry in enumerate(raw.get("shared_drives") or []):
        place = lines.at(where, ("shared_drives", i))
        drive = _parse(SharedDrive, entry, where, f"{place}: shared_drives[{i}]", problems)
        if drive is not None:
            drive.created = info.utc(drive.created)
            data.drives.append(drive)
            places[id(drive)] = place
    for i, entry in enumerate(raw.get("items") or []):
        place = lines.at(where, ("items", i))
        item = _parse(Item, entry, where, f"{place}: items[{i}]", problems)
        if item is not None:
            data.items.append(_with_content(folder, _zoned(item, info), problems, place))
            places[id(item)] = place


def _parse(model, entry, file: str, where: str, problems: list[str]):
    if not isinstance(entry, dict):
        problems.append(f"{where}: expected a mapping")
        return None
    try:
        return model.model_validate({**entry, "file": file})
    except ValidationError as exc:
        problems.extend(f"{where}: {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return None


def _zoned(item: Item, info) -> Item:
    item.created, item.modified = info.utc(item.created), info.utc(item.modified or item.created)
    for c in item.comments:
        c.at, c.resolved_at = info.utc(c.at), info.utc(c.resolved_at)
        for r in c.replies:
            r.at = info.utc(r.at)
    for revision in item.revisions:
        revision.at = info.utc(revision.at)
    return item


def _kind_of(item: Item) -> str:
    if item.type:
        return item.type
    suffix = Path(item.source or "").suffix.lower()
    if item.rows is not None or (suffix == ".csv" and item.mime_type is None):
        return "spreadsheet"
    if item.text is not None or suffix == ".md":
        return "document"
    return "file" if item.source else "folder"


def _read_source(folder: Path, item: Item, source: str, kind: str, problems: list[str], place: str):
    path = folder / source
    if not path.is_file() or folder.resolve() not in path.resolve().parents:
        problems.append(f"{place}: {item.name!r}: source {source} not found under docs/")
        return None
    if kind == "file":
        return path.read_bytes()
    text = path.read_text(encoding="utf-8")
    return [row for row in csv.reader(io.StringIO(text))] if kind == "spreadsheet" else text


def _with_content(folder: Path, item: Item, problems: list[str], place: str) -> Item:
    item.type = _kind_of(item)
    if item.source:
        found = _read_source(folder, item, item.source, item.type, problems, place)
        if item.type == "file":
            item.content = found
        elif item.type == "spreadsheet":
            item.rows = found
        else:
            item.text = found
    if item.type == "file":
        item.mime_type = item.mime_type or mimetypes.guess_type(item.name)[0] or "application/octet-stream"
    for revision in item.revisions:
        if revision.source and item.type in ("document", "spreadsheet"):
            found = _read_source(folder, item, revision.source, item.type, problems, place)
            revision.rows, revision.text = (found, None) if item.type == "spreadsheet" else (None, found)
    return item


class _Checker:
    """Every reference in the workspace names a person, a drive, a role or a passage that exists."""

    def __init__(self, info, data: DocsData, problems: list[str], places: dict[int, str]):
        self.info, self.data, self.problems, self.places = info, data, problems, places
        self.people = set(info.people_by_email())
        self.locals = {p.split("@")[0] for p in self.people}

    def check(self) -> None:
        names = [d.name for d in self.data.drives]
        for drive in self.data.drives:
            where = f"{self.places.get(id(drive), drive.file)}: shared drive {drive.name!r}"
            if names.count(drive.name) > 1:
                self.problems.append(f"{where}: defined more than once")
            for person, role in drive.members.items():
                self._person(where, "member", person)
                if role not in DRIVE_ROLES:
                    self.problems.append(f"{where}: {person}: role {role!r} is not one of {', '.join(DRIVE_ROLES)}")
        folders: dict[tuple, str] = {}
        for item in self.data.items:
            self._item(item, set(names), folders)

    def _person(self, where: str, what: str, address: str | None) -> None:
        if address is not None and address not in self.people:
            self.problems.append(f"{where}: {what} {address} is not a person of the world")

    def _when(self, where: str, what: str, moment: datetime | None) -> None:
        if moment is not None and moment > self.info.now_utc:
            self.problems.append(f"{where}: {what} {moment.isoformat()} is after the world's now")

    def _item(self, item: Item, drives: set[str], folders: dict) -> None:
        where = f"{self.places.get(id(item), item.file)}: {item.name!r}"
        if (item.owner is None) == (item.drive is None):
            self.problems.append(f"{where}: give exactly one of owner and drive")
        if item.drive is not None and item.drive not in drives:
            self.problems.append(f"{where}: drive {item.drive!r} is not a shared drive of docs/")
        if item.type not in KINDS:
            self.problems.append(f"{where}: type {item.type!r} is not one of {', '.join(KINDS)}")
        if item.type == "folder":
            key = (item.owner, item.drive, "/".join(filter(None, [item.folder.strip("/"), item.name])))
            if key in folders:
                self.problems.append(f"{where}: folder also declared in {folders[key]}")
            folders[key] = self.places.get(id(item), item.file)
        for what in ("owner", "created_by", "modified_by"):
            self._person(where, what, getattr(item, what))
        for person, role in item.shared.items():
            self._person(where, "shared with", person)
            if role not in ROLES:
                self.problems.append(f"{where}: role {role!r} for {person} is not one of {', '.join(ROLES)}")
        if item.anyone is not None and item.anyone not in ROLES:
            self.problems.append(f"{where}: anyone: role {item.anyone!r} is not one of {', '.join(ROLES)}")
        for person in item.starred_by:
            self._person(where, "starred_by", person)
        self._when(where, "modified", item.modified)
        if (item.modified or item.created) < item.created:
            self.problems.append(f"{where}: modified before it was created")
        self._history(where, item)
        for comment in item.comments:
            self._comment(where, item, comment)

    def _history(self, where: str, item: Item) -> None:
        last = item.created
        for revision in item.revisions:
            self._person(where, "revision by", revision.by)
            if revision.at < last or revision.at > (item.modified or item.created):
                self.problems.append(f"{where}: revision at {revision.at.isoformat()} is out of order "
                                     "(revisions run oldest first, between created and modified)")
            last = revision.at
            if revision.text is None and revision.rows is None:
                self.problems.append(f"{where}: revision at {revision.at.isoformat()} has no source, text or rows")

    def _comment(self, where: str, item: Item, comment: Comment) -> None:
        for who, text, at in [(comment.by, comment.text, comment.at), *((r.by, r.text, r.at) for r in comment.replies)]:
            self._person(where, "comment by", who)
            self._when(where, "comment at", at)
            for mention in MENTION.findall(text):
                mention = mention.rstrip(".").lower()
                if mention not in self.people and mention not in self.locals:
                    self.problems.append(f"{where}: comment mentions @{mention}, who is not a person of the world")
        self._person(where, "resolved_by", comment.resolved_by)
        body = item.text if item.type == "document" else None
        if comment.quote and body is not None and comment.quote not in body:
            self.problems.append(f"{where}: comment quotes {comment.quote[:60]!r}, which is not in the text")
