"""Fill a fresh CRM database from a world's ``crm`` section, keeping each record's key.

Each record's columns are the entity's ``world`` fields with the same name (``apps.crm.models``), plus
what a world record says another way: keys of other records become ids, ``created``/``closed``/``due``
become ``created_at``/``closed_at``/``due_date``, ``related: <object>/<key>`` becomes the pair
``related_object``/``related_id``. Ids are given here (every table starts empty, so they are what SQLite
would give), so references resolve without reading anything back; each table is then one bulk insert
(SQLAlchemy Core ``executemany``), all in the session's one transaction.
Every opportunity's history starts with its creation, then the world's recorded changes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import insert
from sqlmodel import Session, SQLModel

from apps.crm import models as m
from apps.crm.picklists import STAGE_PROBABILITY
from apps.crm.records import CrmData
from apps.kit.entity import fields_for
from worlds.model import World, WorldInfo

_KINDS: dict[str, tuple[str, type[m.Record]]] = {
    "account": ("accounts", m.Account), "contact": ("contacts", m.Contact), "lead": ("leads", m.Lead),
    "opportunity": ("opportunities", m.Opportunity), "case": ("cases", m.Case)}
_ORDER: list[tuple[str, type[m.Record]]] = [*_KINDS.values(), ("tasks", m.Task), ("events", m.Event),
                                            ("notes", m.Note)]


def _defaults(table: type[SQLModel]) -> dict[str, Any]:
    """Every column with its declared default (``None`` where there is none), so all rows have every key."""
    return {name: (None if info.is_required() else info.default) for name, info in table.model_fields.items()}


class _Seeder:
    def __init__(self, info: WorldInfo, crm: CrmData):
        self.info, self.crm = info, crm
        self.ids = {kind: {key: n for n, key in enumerate(getattr(crm, plural), 1)}
                    for kind, (plural, _) in _KINDS.items()}

    def time(self, moment: datetime | None) -> datetime:
        return self.info.utc(moment) or self.info.now_utc

    def ref(self, kind: str, key: str | None) -> int | None:
        return self.ids[kind][key] if key is not None else None

    def related(self, related: str | None) -> dict[str, Any]:
        if related is None:
            return dict(related_object=None, related_id=None)
        kind, _, key = related.partition("/")
        return dict(related_object=_KINDS[kind][1].__name__, related_id=self.ids[kind][key])

    def rows(self, plural: str, table: type[m.Record]) -> list[dict[str, Any]]:
        defaults, same = _defaults(table), fields_for(table, "world")
        found = []
        for n, (key, record) in enumerate(getattr(self.crm, plural).items(), 1):
            row = {**defaults, **{name: getattr(record, name) for name in same}}
            at = self.time(getattr(record, "created", None))
            row.update(id=n, key=key, created_by=record.owner, created_at=at, updated_at=at)
            row.update(getattr(self, plural)(record, row))
            found.append(row)
        return found

    def accounts(self, a: Any, row: dict) -> dict[str, Any]:
        return dict(parent_id=self.ref("account", a.parent), **m.billing_columns(a.billing))

    def contacts(self, c: Any, row: dict) -> dict[str, Any]:
        owner = c.owner or self.crm.accounts[c.account].owner
        return dict(owner=owner, created_by=owner, account_id=self.ref("account", c.account),
                    reports_to_id=self.ref("contact", c.reports_to))

    def leads(self, r: Any, row: dict) -> dict[str, Any]:
        return {}

    def opportunities(self, o: Any, row: dict) -> dict[str, Any]:
        probability = STAGE_PROBABILITY[o.stage] if o.probability is None else o.probability
        updated = max([self.time(h.at) for h in o.history], default=row["updated_at"])
        return dict(account_id=self.ref("account", o.account), probability=probability, updated_at=updated)

    def cases(self, c: Any, row: dict) -> dict[str, Any]:
        contact = self.crm.contacts.get(c.contact) if c.contact else None
        account = c.account or (contact.account if contact else None)
        return dict(account_id=self.ref("account", account), contact_id=self.ref("contact", c.contact),
                    closed_at=self.time(c.closed) if c.closed else None)

    def tasks(self, t: Any, row: dict) -> dict[str, Any]:
        return dict(**self.related(t.related), due_date=t.due,
                    completed_at=row["created_at"] if t.status == "Completed" else None)

    def events(self, e: Any, row: dict) -> dict[str, Any]:
        return dict(**self.related(e.related), start=self.time(e.start), end=self.time(e.end))

    def notes(self, n: Any, row: dict) -> dict[str, Any]:
        return self.related(n.related)

    def history(self) -> list[dict[str, Any]]:
        found = []
        for n, o in enumerate(self.crm.opportunities.values(), 1):
            found.append(dict(opportunity_id=n, field="created", old_value=None, new_value=None, changed_by=o.owner,
                              changed_at=self.time(o.created)))
            found += [dict(opportunity_id=n, field=h.field, old_value=_text(h.old), new_value=_text(h.new),
                           changed_by=h.by, changed_at=self.time(h.at)) for h in o.history]
        return found


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _table(model: type[SQLModel]) -> Any:
    return getattr(model, "__table__")


def seed(session: Session, world: World) -> None:
    crm: BaseModel | None = world.sections.get("crm")
    seeder = _Seeder(world.info, crm if isinstance(crm, CrmData) else CrmData())
    for plural, table in _ORDER:
        rows = seeder.rows(plural, table)
        if rows:
            session.execute(insert(_table(table)), rows)
    history = seeder.history()
    if history:
        session.execute(insert(_table(m.OpportunityHistory)), history)
