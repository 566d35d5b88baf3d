"""Fill a fresh docs database from a world's workspace (``apps.docs.world``): drives, folders, files,
history, discussion.

Rows are made as the entities declare them (``row`` fills each field's declared default and refuses
a field the entity does not have), numbered here in the order the world lists them, and written with
one ``executemany`` per table inside the build's one transaction: no flush or query per row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Table
from sqlmodel import Session, SQLModel

from apps.docs import models as m
from apps.docs import sheets, store
from apps.docs.comments import resolve_mentions
from apps.docs.world import Comment, DocsData, Item, SharedDrive
from worlds.model import World

Row = dict[str, Any]


def row(entity: type[SQLModel], **values: Any) -> Row:
    """A row of ``entity`` with every declared field: the given values, else the field's default."""
    fields = entity.model_fields
    if unknown := set(values) - set(fields):
        raise TypeError(f"{entity.__name__} has no field {sorted(unknown)[0]!r}")
    found: Row = {}
    for name, info in fields.items():
        if name in values:
            found[name] = values[name]
        elif info.is_required():
            raise TypeError(f"{entity.__name__}.{name} is required")
        else:
            found[name] = info.get_default(call_default_factory=True)
    return found


class _Seeder:
    def __init__(self, world: World):
        self.info = world.info
        self.data: DocsData = world.sections.get("docs") or DocsData()
        self.people = world.info.people_by_email()
        self.rows: dict[type[SQLModel], list[Row]] = {entity: [] for entity in m.TABLES}
        self.drives: dict[str, int] = {}
        self.members = {d.name: d.members for d in self.data.drives}
        self.folders: dict[tuple, Row] = {}
        self.activities: dict[tuple[int, str], Row] = {}
        self.revisions: dict[int, int] = {}

    def add(self, entity: type[SQLModel], **values: Any) -> Row:
        """A new row of ``entity``; one with an autoincrement ``id`` gets the next number."""
        rows = self.rows[entity]
        if "id" in entity.model_fields and entity.model_fields["id"].default is None:
            values["id"] = len(rows) + 1
        rows.append(found := row(entity, **values))
        return found

    def run(self) -> dict[type[SQLModel], list[Row]]:
        for drive in self.data.drives:
            self._drive(drive)
        items = self.data.items
        for source in sorted((i for i in items if i.type == "folder"), key=lambda i: i.folder.count("/") + bool(i.folder)):
            self._item(source)
        for source in items:
            if source.type != "folder":
                self._item(source)
        return self.rows

    def _drive(self, source: SharedDrive) -> None:
        drive = self.add(m.Drive, name=source.name, created_at=source.created or self.info.now_utc)
        self.drives[source.name] = drive["id"]
        for person, role in source.members.items():
            self.add(m.DriveMember, drive_id=drive["id"], person=person, role=role)

    def _creator(self, source: Item) -> str:
        if source.created_by or source.owner:
            return source.created_by or source.owner or ""
        members = self.members[source.drive or ""]
        return next((p for p, r in members.items() if r == "manager"), next(iter(members)))

    def _folder(self, source: Item, path: str) -> Row | None:
        """The folder at ``path`` in the item's drive, made on the way if not declared."""
        if not path:
            return None
        key = (source.owner, source.drive, path)
        if key not in self.folders:
            parent_path, _, name = path.rpartition("/")
            parent = self._folder(source, parent_path)
            self.folders[key] = self._row(source, "folder", name, parent)
        return self.folders[key]

    def _row(self, source: Item, kind: str, name: str, parent: Row | None) -> Row:
        creator = self._creator(source)
        item = self.add(m.Item, kind=kind, name=name, owner=source.owner,
                        drive_id=self.drives[source.drive] if source.drive else None,
                        parent_id=parent["id"] if parent else None,
                        mime_type=source.mime_type if kind == "file" else m.MIME_OF_KIND[kind],
                        created_at=source.created, created_by=creator, modified_at=source.created, modified_by=creator)
        self._activity(item["id"], creator, source.created)
        return item

    def _item(self, source: Item) -> None:
        path = source.folder.strip("/")
        if source.type == "folder":
            item = self._folder(source, "/".join(filter(None, [path, source.name])))
        else:
            item = self._row(source, source.type or "file", source.name, self._folder(source, path))
        assert item is not None  # a folder's own path is never empty
        item["modified_at"], item["modified_by"] = source.modified, source.modified_by or self._creator(source)
        item["general_access"] = source.anyone
        self._content(item, source)
        self._activity(item["id"], item["modified_by"], item["modified_at"])
        for person, role in source.shared.items():
            self.add(m.Permission, item_id=item["id"], person=person, role=role)
        for person in source.starred_by:
            self.add(m.Star, item_id=item["id"], person=person)
        for comment in source.comments:
            self._comment(item["id"], comment)

    def _content(self, item: Row, source: Item) -> None:
        kind = item["kind"]
        if kind == "file":
            item["content"] = content = source.content or b""
            item["size"], item["body"] = len(content), store.searchable_text(content, item["mime_type"])
            return
        if kind == "folder":
            return
        for earlier in source.revisions:
            self._revision(item, earlier.by, earlier.at, earlier.text, earlier.rows)
        if kind == "spreadsheet":
            self._tabs(item, source)
        else:
            self._revision(item, item["modified_by"], item["modified_at"], source.text, source.rows)
            item["body"] = source.text or ""
        item["size"] = len(item["body"].encode())

    def _tabs(self, item: Row, source: Item) -> None:
        """A spreadsheet's tabs and cells (one implied 'Sheet1' unless the world names tabs), its current
        revision every tab's cells, and its text every tab's values."""
        named = [(name, sheets.from_rows(rows)) for name, rows in source.named_tabs()]
        plain = source.tab is None and not source.tabs
        for sheet_id, (name, grid) in enumerate(named):
            if not plain:
                self.add(m.Tab, item_id=item["id"], sheet_id=sheet_id, name=name, position=sheet_id)
            for (r, c), text in sorted(grid.items()):
                self.add(m.Cell, item_id=item["id"], tab=sheet_id, row=r, col=c, input=text)
        content = sheets.to_json(named[0][1]) if plain else sheets.tabs_json(named)
        self._revision(item, item["modified_by"], item["modified_at"], None, None, content)
        item["body"] = sheets.Book.of(named, (self.info.now_utc, self.info.timezone)).text()

    def _revision(self, item: Row, by: str, at: datetime, text: str | None, rows: list[list[str]] | None,
                  content: str | None = None) -> None:
        if content is None:
            content = (text or "") if item["kind"] == "document" else sheets.to_json(sheets.from_rows(rows or []))
        number = self.revisions[item["id"]] = self.revisions.get(item["id"], 0) + 1
        self.add(m.Revision, item_id=item["id"], number=number, author=by, created_at=at, content=content)
        self._activity(item["id"], by, at)

    def _comment(self, item_id: int, source: Comment) -> None:
        root = self._note(item_id, None, source.by, source.at, source.text, source.quote)
        if source.resolved_by:
            root["resolved"], root["resolved_by"] = True, source.resolved_by
            root["resolved_at"] = source.resolved_at or (source.replies[-1].at if source.replies else source.at)
        for reply in source.replies:
            self._note(item_id, root["id"], reply.by, reply.at, reply.text, None)

    def _note(self, item_id: int, parent_id: int | None, by: str, at: datetime, text: str, quote: str | None) -> Row:
        comment = self.add(m.Comment, item_id=item_id, parent_id=parent_id, author=by, body=text, quote=quote,
                           created_at=at)
        found, _ = resolve_mentions(text, self.people)
        for person in found:
            self.add(m.Mention, comment_id=comment["id"], person=person)
        self._activity(item_id, by, at)
        return comment

    def _activity(self, item_id: int, person: str, at: datetime) -> None:
        found = self.activities.get((item_id, person))
        if found is None:
            self.activities[(item_id, person)] = self.add(m.Activity, item_id=item_id, person=person, at=at)
        elif store.utc(at) > store.utc(found["at"]):  # type: ignore[operator]  # both aware
            found["at"] = at


def seed(session: Session, world: World) -> None:
    """Every table's rows in one ``executemany`` each, in the build's transaction."""
    connection = session.connection()
    for entity, rows in _Seeder(world).run().items():
        if rows:
            table: Table = getattr(entity, "__table__")
            connection.execute(table.insert(), rows)
