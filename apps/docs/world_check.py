"""The docs section's checks: every reference in the workspace names a person, a drive, a role or a
passage that exists; each problem names the item's ``file:line``."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING

from apps.docs.models import DRIVE_ROLES, KINDS, SHARE_ROLES

if TYPE_CHECKING:
    from apps.docs.world import Comment, DocsData, Item
    from worlds.model import WorldInfo

ROLES = SHARE_ROLES
# An @mention in a comment: a local part (``@ravi``) or a whole address.
MENTION = re.compile(r"(?<![\w.@])@([A-Za-z0-9._%+-]+(?:@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)?)")


class Checker:
    """Every reference in the workspace names a person, a drive, a role or a passage that exists."""

    def __init__(self, info: WorldInfo, data: DocsData, problems: list[str], places: dict[int, str]):
        self.info, self.data, self.problems, self.places = info, data, problems, places
        self.found: list[tuple[str, str]] = []  # (file:line, address) of every colleague named, for ``addresses``
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
        """Docs are shared among colleagues: an outsider is a problem here too, unlike in mail."""
        if address is not None and address not in self.people:
            self.problems.append(f"{where}: {what} {address} is not a person of the world")
        elif address is not None:
            self.found.append((where.split(": ", 1)[0], address))

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
        self._tabs(where, item)
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

    def _tabs(self, where: str, item: Item) -> None:
        """A spreadsheet's tabs: names given, unique whatever the case (as Sheets requires); only sheets have tabs."""
        if (item.tabs or item.tab is not None) and item.type != "spreadsheet":
            self.problems.append(f"{where}: {item.name!r} is a {item.type}: only a spreadsheet has tabs")
            return
        seen: set[str] = set()
        for name, _ in item.named_tabs() if item.type == "spreadsheet" else []:
            if not name.strip() or len(name) > 100:
                self.problems.append(f"{where}: a tab's name has 1 to 100 characters")
            elif name.strip().lower() in seen:
                self.problems.append(f"{where}: two tabs are named {name!r} (names are unique whatever the case)")
            seen.add(name.strip().lower())
        for tab in item.tabs:
            if tab.rows is None:
                self.problems.append(f"{where}: tab {tab.name!r} has no source or rows")

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
