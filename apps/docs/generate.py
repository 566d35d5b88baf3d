"""A generated docs workspace: about the CRM's accounts when there is one (a pipeline sheet that agrees
with it, account plans, case notes), and meeting notes.

Every team has a shared drive; account plans and the pipeline live in the Sales drive, case write-ups
in Support's, meeting notes in people's own drives. Content goes to ``docs/files/`` as Markdown/CSV.
``crm`` is a CRM section's data (``accounts``, ``opportunities``, ``cases``), read by field name only.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from faker import Faker

from apps.docs.world import Comment, DocsData, Item, SharedDrive
from worlds.generate.kinds import role_of
from worlds.generate.text import paragraph
from worlds.model import WorldInfo


def amount_at(opp: Any, when: datetime) -> float:
    """The opportunity's amount at ``when`` (naive, the world's zone): later changes of its history undone."""
    amount = opp.amount or 0
    for entry in sorted(opp.history, key=lambda e: e.at, reverse=True):
        if entry.field == "amount" and entry.at > when:
            amount = entry.old
    return amount


class DocsBuilder:
    def __init__(self, fake: Faker, rng: random.Random, info: WorldInfo, crm: Any = None):
        self.fake, self.rng, self.info, self.crm = fake, rng, info, crm
        self.now = info.now
        # Aware on purpose: the docs seed stores a drive's time as given (naive ones fail there).
        self.drive_created = (info.now - timedelta(days=400)).replace(tzinfo=ZoneInfo(info.timezone))
        self.items: list[Item] = []
        self.teams: dict[str, list[str]] = {}
        for p in info.people:
            self.teams.setdefault(p.team, []).append(p.email)
        # The team playing each role (Sales, Support...) under the name this company gives it (worlds.generate.kinds).
        self.role = {role_of(team) or team: team for team in self.teams}
        self.opps_of: dict[str, list[Any]] = {}  # account key -> its opportunities, in the CRM's order
        for opp in (crm.opportunities.values() if crm is not None else ()):
            self.opps_of.setdefault(opp.account, []).append(opp)

    def build(self, target: int, told: list[Item] | tuple[Item, ...] = ()) -> DocsData:
        """The workspace: ``told`` (the stories' documents) first, then filler up to ``target`` items."""
        drives = [SharedDrive(name=team, members={m: "manager" if i == 0 else "editor" for i, m in enumerate(members)},
                              created=self.drive_created) for team, members in self.teams.items()]
        self.items.extend(told)
        if self.crm is not None and "Sales" in self.role:
            self.pipeline()
        accounts = list(self.crm.accounts.items()) if self.crm is not None and "Sales" in self.role else []
        cases = list(self.crm.cases.items()) if self.crm is not None and "Support" in self.role else []
        while len(self.items) < target:
            roll = self.rng.random()
            if roll < 0.5 and accounts:
                self.account_plan(*accounts[len(self.items) % len(accounts)])
            elif roll < 0.7 and cases:
                self.case_notes(*self.rng.choice(cases))
            else:
                self.meeting_notes()
        return DocsData(drives=drives, items=self.items)

    def add(self, name: str, source: str, content: str | list, by: str, days_back: int | datetime,
            **where: Any) -> Item:
        """An item whose content (Markdown text, or rows of a sheet) the writer puts at ``source``, made
        ``days_back`` days (and some minutes) before now, or at that time."""
        created = days_back if isinstance(days_back, datetime) else self.when(days_back)
        body = {"rows": content} if isinstance(content, list) else {"text": content}
        item = Item(name=name, source=source, created=created, created_by=by, modified=created,
                    modified_by=by, **body, **where)
        self.items.append(item)
        return item

    def when(self, days_back: int) -> datetime:
        return self.now - timedelta(days=days_back, minutes=self.rng.randint(0, 600))

    def pipeline(self) -> None:
        rows = [["opportunity", "account", "owner", "stage", "amount", "close_date"]]
        for key, o in self.crm.opportunities.items():
            rows.append([key, o.account, o.owner, o.stage, f"{o.amount:.0f}", str(o.close_date)])
        head = self.teams[self.role["Sales"]][0]
        self.add("Pipeline (from CRM)", "files/pipeline.csv", rows, head, 1, drive=self.role["Sales"],
                 folder="Pipeline", type="spreadsheet")

    def account_plan(self, key: str, account: Any) -> None:
        opps = self.opps_of.get(key, [])
        lines = [f"# Account plan: {account.name}", "", f"Owner: {account.owner}  ", f"Industry: {account.industry}",
                 "", "## Opportunities", ""]
        when = self.when(self.rng.randint(2, 200))
        lines += [f"- {o.name}: {o.stage}, ${amount_at(o, when):,.0f}, closes {o.close_date}" for o in opps
                  if not o.created or o.created < when] or ["- none open"]
        lines += ["", "## Notes", "", paragraph(self.fake, 4), ""]
        n = len(self.items)
        item = self.add(f"{account.name} account plan", f"files/accounts/{key}-{n}.md", "\n".join(lines),
                        account.owner, when, drive=self.role["Sales"], folder=f"Accounts/{account.name[:40]}")
        if self.rng.random() < 0.2:
            reviewer = self.teams[self.role["Sales"]][0]
            item.comments.append(Comment(by=reviewer, at=item.created + timedelta(hours=2), quote="## Opportunities",
                                         text=f"@{account.owner.split('@')[0]} please confirm the close dates."))

    def case_notes(self, key: str, case: Any) -> None:
        body = (f"# Case write-up: {case.subject}\n\nAccount: {case.account}\nStatus: {case.status}\n"
                f"Priority: {case.priority}\n\n{case.description}\n")
        self.add(f"Case {key[:50]}", f"files/cases/{key}-{len(self.items)}.md", body, case.owner,
                 self.rng.randint(1, 100), drive=self.role["Support"], folder="Case write-ups")

    def meeting_notes(self) -> None:
        person = self.rng.choice(self.info.people)
        body = f"# {self.fake.catch_phrase()}\n\nAttendees: {person.name}\n\n{paragraph(self.fake, 5)}\n"
        self.add(f"Meeting notes {len(self.items)}", f"files/notes/{len(self.items)}.md", body, person.email,
                 self.rng.randint(1, 300), owner=person.email, folder="Meetings",
                 shared=self.share(person.email, person.team))

    def share(self, owner: str, team: str) -> dict[str, str]:
        others = [p for p in self.teams[team] if p != owner]
        return {self.rng.choice(others): "commenter"} if others and self.rng.random() < 0.3 else {}
