"""Fill a fresh docs database from a world's workspace: drives, folders, files, history, discussion."""

from __future__ import annotations

from sqlmodel import Session

from apps.docs import models as m
from apps.docs import sheets, store
from apps.docs.comments import resolve_mentions
from worlds.model import World


class _Seeder:
    def __init__(self, session: Session, world):
        self.session, self.world = session, world
        self.drives: dict[str, m.Drive] = {}
        self.folders: dict[tuple, int] = {}
        self.people = world.info.people_by_email()
        # Kept here rather than read back: a query and a flush per revision and activity made big worlds slow.
        self.activities: dict[tuple[int, str], m.Activity] = {}
        self.revisions: dict[int, int] = {}

    def run(self) -> None:
        for source in self.world.docs.drives:
            self._drive(source)
        items = self.world.docs.items
        for source in sorted((i for i in items if i.type == "folder"), key=lambda i: i.folder.count("/") + bool(i.folder)):
            self._item(source)
        for source in items:
            if source.type != "folder":
                self._item(source)

    def _drive(self, source) -> None:
        created = source.created or self.world.info.now_utc
        drive = m.Drive(name=source.name, created_at=created)
        self.session.add(drive)
        self.session.flush()
        self.drives[source.name] = drive
        for person, role in source.members.items():
            self.session.add(m.DriveMember(drive_id=drive.id, person=person, role=role))

    def _creator(self, source) -> str:
        if source.created_by or source.owner:
            return source.created_by or source.owner
        members = self.world.docs.drives[[d.name for d in self.world.docs.drives].index(source.drive)].members
        return next((p for p, r in members.items() if r == "manager"), next(iter(members)))

    def _folder(self, source, path: str) -> int | None:
        """The id of the folder at ``path`` in the item's drive, made on the way if not declared."""
        if not path:
            return None
        key = (source.owner, source.drive, path)
        if key not in self.folders:
            parent_path, _, name = path.rpartition("/")
            parent_id = self._folder(source, parent_path)
            folder = self._row(source, "folder", name, parent_id)
            self.folders[key] = folder.id
        return self.folders[key]

    def _row(self, source, kind: str, name: str, parent_id: int | None) -> m.Item:
        creator = self._creator(source)
        drive = self.drives[source.drive].id if source.drive else None
        item = m.Item(kind=kind, name=name, owner=source.owner, drive_id=drive, parent_id=parent_id,
                      mime_type=source.mime_type if kind == "file" else m.MIME_OF_KIND[kind],
                      created_at=source.created, created_by=creator, modified_at=source.created, modified_by=creator)
        self.session.add(item)
        self.session.flush()
        self._activity(item.id, creator, source.created)
        return item

    def _item(self, source) -> None:
        path = source.folder.strip("/")
        kind = source.type
        if kind == "folder":
            full = "/".join(filter(None, [path, source.name]))
            item = self.session.get(m.Item, self._folder(source, full))
        else:
            item = self._row(source, kind, source.name, self._folder(source, path))
        item.modified_at, item.modified_by = source.modified, source.modified_by or self._creator(source)
        item.general_access = source.anyone
        self._content(item, source)
        self._activity(item.id, item.modified_by, item.modified_at)
        for person, role in source.shared.items():
            self.session.add(m.Permission(item_id=item.id, person=person, role=role))
        for person in source.starred_by:
            self.session.add(m.Star(item_id=item.id, person=person))
        for comment in source.comments:
            self._comment(item, comment)
        self.session.add(item)

    def _content(self, item: m.Item, source) -> None:
        if item.kind == "file":
            item.content = source.content or b""
            item.size = len(item.content)
            item.body = store.searchable_text(item.content, item.mime_type)
            return
        if item.kind == "folder":
            return
        for earlier in source.revisions:
            self._revision(item, earlier.by, earlier.at, earlier.text, earlier.rows)
        self._revision(item, item.modified_by, item.modified_at, source.text or "", source.rows or [])
        if item.kind == "spreadsheet":
            sheets.save(self.session, item, sheets.from_rows(source.rows or []),
                        (self.world.info.now_utc, self.world.info.timezone))
        else:
            item.body, item.size = source.text or "", len((source.text or "").encode())

    def _revision(self, item: m.Item, by: str, at, text, rows) -> None:
        content = (text or "") if item.kind == "document" else sheets.to_json(sheets.from_rows(rows or []))
        number = self.revisions[item.id] = self.revisions.get(item.id, 0) + 1
        self.session.add(m.Revision(item_id=item.id, number=number, author=by, created_at=at, content=content))
        self._activity(item.id, by, at)

    def _comment(self, item: m.Item, source) -> None:
        root = self._note(item, None, source.by, source.at, source.text, source.quote)
        if source.resolved_by:
            root.resolved, root.resolved_by = True, source.resolved_by
            root.resolved_at = source.resolved_at or (source.replies[-1].at if source.replies else source.at)
        for reply in source.replies:
            self._note(item, root.id, reply.by, reply.at, reply.text, None)

    def _note(self, item: m.Item, parent_id, by: str, at, text: str, quote) -> m.Comment:
        comment = m.Comment(item_id=item.id, parent_id=parent_id, author=by, body=text, quote=quote, created_at=at)
        self.session.add(comment)
        self.session.flush()
        found, _ = resolve_mentions(text, self.people)
        for person in found:
            self.session.add(m.Mention(comment_id=comment.id, person=person))
        self._activity(item.id, by, at)
        return comment

    def _activity(self, item_id: int, person: str, at) -> None:
        found = self.activities.get((item_id, person))
        if found is None:
            self.activities[(item_id, person)] = found = m.Activity(item_id=item_id, person=person, at=at)
            self.session.add(found)
        elif store.utc(at) > store.utc(found.at):
            found.at = at


def seed(session: Session, world: World) -> None:
    _Seeder(session, world).run()
