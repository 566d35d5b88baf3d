"""Fill a fresh CRM database from a world's ``crm`` data, keeping each record's key.

Records are written in the order their references need (accounts, contacts, leads, opportunities,
cases, then activities); links inside one object (parent account, reports-to) are set in a second pass.
Every opportunity's history starts with its creation, then the world's recorded changes.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from apps.crm import models as m
from worlds.crm_picklists import STAGE_PROBABILITY
from worlds.model import World

_TABLE_OF = {"account": m.Account, "contact": m.Contact, "lead": m.Lead, "opportunity": m.Opportunity,
             "case": m.Case}


class _Seeder:
    def __init__(self, session: Session, world):
        self.session, self.info, self.crm = session, world.info, world.crm
        self.ids: dict[str, dict[str, int]] = {name: {} for name in _TABLE_OF}
        # Ids are given here (each table starts empty, so they are what SQLite would give) and the rows
        # kept, so that nothing is flushed or read back per record: one batched insert per table at the end.
        self.rows: dict[str, dict[str, m.Record]] = {name: {} for name in _TABLE_OF}
        self.last_id: dict[type, int] = {}

    def time(self, moment: datetime | None) -> datetime:
        return self.info.utc(moment) or self.info.now_utc

    def add(self, kind: str | None, key: str, table, owner: str, created: datetime | None = None, **values):
        at = self.time(created)
        row_id = self.last_id[table] = self.last_id.get(table, 0) + 1
        row = table(id=row_id, key=key, owner=owner, created_by=owner, created_at=at, updated_at=at, **values)
        self.session.add(row)
        if kind:
            self.ids[kind][key], self.rows[kind][key] = row_id, row
        return row

    def ref(self, kind: str, key: str | None) -> int | None:
        return self.ids[kind][key] if key is not None else None

    def related(self, related: str | None) -> dict:
        if related is None:
            return dict(related_object=None, related_id=None)
        kind, _, key = related.partition("/")
        return dict(related_object=_TABLE_OF[kind].__name__, related_id=self.ids[kind][key])

    def accounts(self) -> None:
        for key, a in self.crm.accounts.items():
            b = a.billing
            self.add("account", key, m.Account, a.owner, a.created, name=a.name, industry=a.industry, type=a.type,
                     website=a.website, phone=a.phone, billing_street=b.street, billing_city=b.city,
                     billing_state=b.state, billing_postal_code=b.postal_code, billing_country=b.country,
                     annual_revenue=a.annual_revenue, employees=a.employees, description=a.description)
        for key, a in self.crm.accounts.items():
            if a.parent:
                self.rows["account"][key].parent_id = self.ids["account"][a.parent]

    def contacts(self) -> None:
        for key, c in self.crm.contacts.items():
            owner = c.owner or self.crm.accounts[c.account].owner
            self.add("contact", key, m.Contact, owner, c.created, account_id=self.ref("account", c.account),
                     first_name=c.first_name, last_name=c.last_name, title=c.title, email=c.email, phone=c.phone,
                     lead_source=c.lead_source)
        for key, c in self.crm.contacts.items():
            if c.reports_to:
                self.rows["contact"][key].reports_to_id = self.ids["contact"][c.reports_to]

    def leads(self) -> None:
        for key, r in self.crm.leads.items():
            self.add("lead", key, m.Lead, r.owner, r.created, first_name=r.first_name, last_name=r.last_name,
                     company=r.company, title=r.title, email=r.email, phone=r.phone, status=r.status,
                     source=r.source, industry=r.industry, description=r.description)

    def opportunities(self) -> None:
        for key, o in self.crm.opportunities.items():
            probability = STAGE_PROBABILITY[o.stage] if o.probability is None else o.probability
            row = self.add("opportunity", key, m.Opportunity, o.owner, o.created,
                           account_id=self.ref("account", o.account), name=o.name, amount=o.amount,
                           close_date=o.close_date, stage=o.stage, probability=probability, next_step=o.next_step,
                           type=o.type, lead_source=o.lead_source, loss_reason=o.loss_reason,
                           description=o.description)
            self._history(row, o)

    def _history(self, row: m.Opportunity, o) -> None:
        self.session.add(m.OpportunityHistory(opportunity_id=row.id, field="created", changed_by=o.owner,
                                              changed_at=row.created_at))
        for h in o.history:
            self.session.add(m.OpportunityHistory(
                opportunity_id=row.id, field=h.field, old_value=None if h.old is None else str(h.old),
                new_value=None if h.new is None else str(h.new), changed_by=h.by, changed_at=self.time(h.at)))
        if o.history:
            row.updated_at = max(self.time(h.at) for h in o.history)

    def cases(self) -> None:
        for key, c in self.crm.cases.items():
            contact = self.crm.contacts.get(c.contact) if c.contact else None
            account = c.account or (contact.account if contact else None)
            self.add("case", key, m.Case, c.owner, c.created, account_id=self.ref("account", account),
                     contact_id=self.ref("contact", c.contact), subject=c.subject, description=c.description,
                     status=c.status, priority=c.priority, origin=c.origin,
                     closed_at=self.time(c.closed) if c.closed else None)

    def activities(self) -> None:
        for key, t in self.crm.tasks.items():
            created = self.time(t.created)
            self.add(None, key, m.Task, t.owner, t.created, **self.related(t.related), subject=t.subject,
                     status=t.status, priority=t.priority, due_date=t.due, description=t.description,
                     completed_at=created if t.status == "Completed" else None)
        for key, e in self.crm.events.items():
            self.add(None, key, m.Event, e.owner, None, **self.related(e.related), subject=e.subject,
                     start=self.time(e.start), end=self.time(e.end), location=e.location, description=e.description)
        for key, n in self.crm.notes.items():
            self.add(None, key, m.Note, n.owner, n.created, **self.related(n.related), title=n.title, body=n.body)


def seed(session: Session, world: World) -> None:
    seeder = _Seeder(session, world)
    for step in (seeder.accounts, seeder.contacts, seeder.leads, seeder.opportunities, seeder.cases,
                 seeder.activities):
        step()
    session.flush()
