"""The docs section of a world (``worlds.sections``): the workspace's file format, its records, reading
with ``file:line`` problems (checks in ``world_check``), writing back, and generating (``generate``).

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
      tab: Forecast                  # a spreadsheet's first tab's name (Sheet1 when left out), its cells the item's
      tabs: [{name: Q1 Plan, source: files/q1-plan.csv}]   # more tabs, in order (or rows: inline); a formula
                                     # reads one as 'Q1 Plan'!B2:B9
      comments: [{by, at, text, quote, resolved_by, resolved_at, replies: [{by, at, text}]}]

``revisions`` are the earlier versions, oldest first; the current content is the last revision.
"""

from __future__ import annotations

import csv
import io
import mimetypes
import random
import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, PrivateAttr, ValidationError

from apps.docs.world_check import Checker
from apps.kit.entity import Strict
from worlds.lines import read_yaml
from worlds.model import WorldInfo
from worlds.writer import dump_yaml

if TYPE_CHECKING:
    from faker import Faker  # only the generator needs it: not loaded in app services


class Reply(Strict):
    by: str
    at: datetime
    text: str


class Comment(Strict):
    by: str
    at: datetime
    text: str
    quote: str | None = None
    resolved_by: str | None = None
    resolved_at: datetime | None = None
    replies: list[Reply] = Field(default_factory=list)


class Revision(Strict):
    by: str
    at: datetime
    source: str | None = None
    text: str | None = None
    rows: list[list[str]] | None = None


class Tab(Strict):
    """A spreadsheet's tab after its first (the first's cells are the item's ``source`` or ``rows``)."""

    name: str
    source: str | None = None
    rows: list[list[str]] | None = None


class SharedDrive(Strict):
    name: str
    members: dict[str, str]
    created: datetime | None = None
    file: str = ""


class Item(Strict):
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
    tab: str | None = None
    tabs: list[Tab] = Field(default_factory=list)
    file: str = ""

    def named_tabs(self) -> list[tuple[str, list[list[str]]]]:
        """A spreadsheet's tabs as (name, rows), the first being the item's own cells."""
        return [(self.tab or "Sheet1", self.rows or []), *((t.name, t.rows or []) for t in self.tabs)]


class DocsData(Strict):
    drives: list[SharedDrive] = Field(default_factory=list)
    items: list[Item] = Field(default_factory=list)
    _addresses: list[tuple[str, str]] = PrivateAttr(default_factory=list)



def load(root: Path, info: WorldInfo, problems: list[str]) -> DocsData:
    """Read ``docs/`` of a world folder; append every problem found to ``problems``."""
    folder = root / "docs"
    data = DocsData()
    if not folder.is_dir():
        return data
    places: dict[int, str] = {}
    for path in sorted(folder.glob("*.yaml")):
        _read_file(folder, path, info, data, problems, places)
    checker = Checker(info, data, problems, places)
    checker.check()
    data._addresses = checker.found
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


def _zoned(item: Item, info: WorldInfo) -> Item:
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
    for tab in item.tabs:
        if tab.source and item.type == "spreadsheet":
            tab.rows = _read_source(folder, item, tab.source, "spreadsheet", problems, place)
    return item


def write(docs: DocsData, out: Path) -> None:
    """Drives and items back to the files they were read from (new drives to ``docs/drives.yaml``, new items
    to one file per drive or owner), content to its sources."""
    folder = out / "docs"
    files: dict[str, dict[str, list[dict]]] = {}
    for drive in docs.drives:
        name = drive.file.removeprefix("docs/") or "drives.yaml"
        files.setdefault(name, {}).setdefault("shared_drives", []).append(
            drive.model_dump(mode="json", exclude_defaults=True))
    for item in docs.items:
        name = item.file.removeprefix("docs/") or re.sub(r"[^a-z0-9]+", "-", (item.drive or item.owner or "").lower()) + ".yaml"
        files.setdefault(name, {}).setdefault("items", []).append(_item_yaml(item, folder))
    for name, content in files.items():
        dump_yaml(content, folder / name)


def _item_yaml(item: Item, folder: Path) -> dict:
    """An item as YAML; content that has a ``source`` goes to that file instead of inline."""
    # An upload's bytes live only in its source file (YAML holds no bytes): never dumped inline.
    data = item.model_dump(mode="json", exclude_defaults=True, exclude={"file", "content"} if item.source else {"file"})
    if item.source:
        _write_content(folder / item.source, item)
        for key in ("text", "rows", "content"):
            data.pop(key, None)
    for revision, raw in zip(item.revisions, data.get("revisions", [])):
        if revision.source:
            _write_content(folder / revision.source, revision)
            raw.pop("text", None)
            raw.pop("rows", None)
    for tab, raw in zip(item.tabs, data.get("tabs", [])):
        if tab.source:
            _write_content(folder / tab.source, tab)
            raw.pop("rows", None)
    return data


def _write_content(path: Path, holder: Item | Revision | Tab) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    content = getattr(holder, "content", None)
    if content is not None:
        path.write_bytes(content)
    elif holder.rows is not None:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(holder.rows)
        path.write_text(buffer.getvalue(), encoding="utf-8")
    else:
        path.write_text(getattr(holder, "text", None) or "", encoding="utf-8")


class DocsSection:
    """The docs app's part of a world folder, ``docs/`` (``worlds.sections.WorldSection``)."""

    folder = "docs"
    # What a generated world depends on (``worlds.sections.sections_key``): the format, its checks, the builder.
    sources = [Path(__file__).with_name(name) for name in ("world.py", "world_check.py", "generate.py")]

    def load(self, root: Path, info: WorldInfo, problems: list[str]) -> DocsData:
        return load(root, info, problems)

    def addresses(self, data: BaseModel) -> list[tuple[str, str]]:
        """Every colleague the workspace names (owners, members, sharers, authors...) with its ``file:line``."""
        assert isinstance(data, DocsData)
        return data._addresses

    def write(self, data: BaseModel, out: Path) -> None:
        assert isinstance(data, DocsData)
        write(data, out)

    def generate(self, rng: random.Random, info: WorldInfo, size: str) -> DocsData:
        """A workspace of the size's documents over ``info``'s people alone: team drives and meeting notes."""
        from faker import Faker

        fake = Faker("en_US")
        fake.seed_instance(rng.randrange(2**32))
        return self.furnish(fake, rng, info, size)

    def furnish(self, fake: Faker, rng: random.Random, info: WorldInfo, size: str, crm: Any = None,
                told: list[Item] | None = None) -> DocsData:
        """The generator's workspace: ``told`` (the stories' documents) first, then the pipeline sheet,
        account plans and case notes over ``crm`` (a CRM section's data, if any) and meeting notes."""
        from apps.docs.generate import DocsBuilder
        from worlds.generate.sizes import SIZES

        return DocsBuilder(fake, rng, info, crm).build(SIZES[size].documents, told or [])
