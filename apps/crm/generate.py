"""CRM records: accounts with contacts, leads, opportunities, cases, tasks, events and notes.

Sales people own accounts, leads and opportunities; support people own cases. Every contact is also
declared an outsider of the world, so the same people write the mail about their accounts.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from apps.crm.models import Address
from apps.crm.picklists import (
    ACCOUNT_TYPES,
    CASE_ORIGINS,
    CASE_PRIORITIES,
    LEAD_SOURCES,
    LEAD_STATUSES,
    OPEN_STAGES,
    OPPORTUNITY_TYPES,
    STAGE_PROBABILITY,
)
from apps.crm.records import (
    AccountRecord,
    CaseRecord,
    ContactRecord,
    CrmData,
    EventRecord,
    HistoryEntry,
    LeadRecord,
    NoteRecord,
    OpportunityRecord,
    TaskRecord,
)
from worlds.generate.kinds import kind_of, role_of
from worlds.generate.people import slug, unique_email
from worlds.generate.text import paragraph
from worlds.model import Outsider, WorldInfo

if TYPE_CHECKING:
    from faker import Faker



class CrmBuilder:
    def __init__(self, fake: Faker, rng: random.Random, info: WorldInfo, taken: set[str]):
        self.fake, self.rng, self.info, self.taken = fake, rng, info, taken
        self.kind = kind_of(info.sector)   # its customers' industries, what it sells, what cases are about
        self.sales = [p.email for p in info.people if role_of(p.team) == "Sales"]
        self.support = [p.email for p in info.people if role_of(p.team) == "Support"]
        self.data = CrmData()
        self.outsiders: list[Outsider] = []
        self.names: set[str] = set()
        self.contacts_of: dict[str, list[str]] = {}  # account key -> its contacts' keys, in order
        self.now = info.now

    def when(self, days_back: int) -> datetime:
        return (self.now - timedelta(days=self.rng.randint(1, days_back), minutes=self.rng.randint(0, 600))
                ).replace(second=0, microsecond=0)

    def key(self, base: str, taken: dict) -> str:
        key, n = slug(base)[:40].strip("-"), 1
        while key in taken:
            n += 1
            key = f"{slug(base)[:40].strip('-')}-{n}"
        return key

    def build(self, accounts: int) -> CrmData:
        for _ in range(accounts):
            self.account()
        account_keys = list(self.data.accounts)
        for _ in range(accounts):
            self.lead()
        for _ in range(accounts * 3 // 2):
            self.opportunity(self.rng.choice(account_keys))
        for _ in range(accounts * 7 // 10):
            self.case(self.rng.choice(account_keys))
        for _ in range(accounts * 8 // 10):
            self.note()
        for _ in range(accounts * 6 // 10):
            self.task()
        for _ in range(accounts * 4 // 10):
            self.event()
        return self.data

    def account(self) -> None:
        name = self.fake.company()
        key = self.key(name, self.data.accounts)
        domain = f"{slug(name.split(',')[0])}.example"
        self.data.accounts[key] = AccountRecord(
            name=name, owner=self.rng.choice(self.sales), industry=self.rng.choice(self.kind.industries),
            type=self.rng.choice(ACCOUNT_TYPES[:4]), website=f"https://www.{domain}", phone=self.fake.phone_number(),
            billing=Address(street=self.fake.street_address(), city=self.fake.city(), state=self.fake.state_abbr(),
                            postal_code=self.fake.postcode(), country="United States"),
            annual_revenue=float(self.rng.randrange(1, 500) * 1_000_000), employees=self.rng.randrange(20, 20_000),
            description=self.fake.catch_phrase(), created=self.when(700))
        for _ in range(3):
            self.contact(key, domain, name)

    def contact(self, account: str, domain: str, company: str) -> None:
        first, last = self.fake.first_name(), self.fake.last_name()
        email = unique_email(first, last, domain, self.taken)
        key = self.key(f"{first}-{last}", self.data.contacts)
        title = self.fake.job()
        self.data.contacts[key] = ContactRecord(account=account, first_name=first, last_name=last, title=title,
                                                email=email, phone=self.fake.phone_number(), created=self.when(600))
        self.contacts_of.setdefault(account, []).append(key)
        self.outsiders.append(Outsider(name=f"{first} {last}", email=email, organisation=company, title=title))

    def lead(self) -> None:
        first, last, company = self.fake.first_name(), self.fake.last_name(), self.fake.company()
        self.data.leads[self.key(f"{first}-{last}", self.data.leads)] = LeadRecord(
            first_name=first, last_name=last, company=company, owner=self.rng.choice(self.sales),
            title=self.fake.job(), email=unique_email(first, last, f"{slug(company.split(',')[0])}.example", self.taken),
            status=self.rng.choice(LEAD_STATUSES), source=self.rng.choice(LEAD_SOURCES),
            industry=self.rng.choice(self.kind.industries), created=self.when(200))

    def opportunity(self, account: str) -> None:
        acc = self.data.accounts[account]
        product = self.rng.choice(self.kind.products)
        name = f"{acc.name.split(',')[0]} {product}"
        base, phase = name, 1
        while name in self.names:  # one name per deal, so that mail and sheets naming it name one record
            phase += 1
            name = f"{base} - phase {phase}"
        self.names.add(name)
        closed = self.rng.random() < 0.35
        stage = self.rng.choice(["Closed Won", "Closed Won", "Closed Lost"]) if closed else self.rng.choice(OPEN_STAGES)
        created = self.when(300)
        close = (created + timedelta(days=self.rng.randint(20, 200))).date()
        if closed and close > self.now.date():
            close = self.now.date() - timedelta(days=self.rng.randint(1, 20))
        amount = float(self.rng.randrange(5, 400) * 1_000)
        self.data.opportunities[self.key(name, self.data.opportunities)] = OpportunityRecord(
            account=account, name=name, owner=acc.owner, stage=stage, amount=amount, close_date=close,
            probability=STAGE_PROBABILITY[stage], next_step=None if closed else self.fake.sentence(nb_words=6),
            type=self.rng.choice(OPPORTUNITY_TYPES), lead_source=self.rng.choice(LEAD_SOURCES),
            loss_reason="Chose a competitor on price" if stage == "Closed Lost" else None, created=created,
            history=self.history(created, stage, acc.owner))

    def history(self, created: datetime, stage: str, owner: str) -> list[HistoryEntry]:
        if stage == "Prospecting":
            return []
        at = min(created + timedelta(days=self.rng.randint(1, 30)), self.now - timedelta(hours=1))
        return [HistoryEntry(field="stage", old="Prospecting", new=stage, by=owner, at=at)]

    def case(self, account: str) -> None:
        contacts = self.contacts_of.get(account, [])
        status = self.rng.choice(["New", "Working", "Escalated", "Closed", "Closed"])
        created = self.when(120)
        subject = self.rng.choice(self.kind.cases)
        self.data.cases[self.key(f"{account}-{subject}", self.data.cases)] = CaseRecord(
            subject=subject, owner=self.rng.choice(self.support), account=account, contact=self.rng.choice(contacts),
            description=paragraph(self.fake, 2), status=status,
            priority=self.rng.choice(CASE_PRIORITIES), origin=self.rng.choice(CASE_ORIGINS), created=created,
            closed=min(created + timedelta(days=self.rng.randint(1, 9)), self.now) if status == "Closed" else None)

    def related(self) -> tuple[str, str]:
        """A random opportunity (or account) to hang an activity on, and its owner."""
        if self.rng.random() < 0.7:
            key = self.rng.choice(list(self.data.opportunities))
            return f"opportunity/{key}", self.data.opportunities[key].owner
        key = self.rng.choice(list(self.data.accounts))
        return f"account/{key}", self.data.accounts[key].owner

    def note(self) -> None:
        related, owner = self.related()
        self.data.notes[f"note-{len(self.data.notes) + 1}"] = NoteRecord(
            related=related, owner=owner, title=self.fake.sentence(nb_words=5).rstrip("."),
            body=paragraph(self.fake, 3), created=self.when(90))

    def task(self) -> None:
        related, owner = self.related()
        self.data.tasks[f"task-{len(self.data.tasks) + 1}"] = TaskRecord(
            subject=self.rng.choice(["Send revised quote", "Schedule demo", "Follow up on contract",
                                     "Confirm decision maker", "Share security questionnaire"]),
            owner=owner, related=related, status=self.rng.choice(["Not Started", "In Progress", "Completed"]),
            due=self.now.date() + timedelta(days=self.rng.randint(-10, 30)), created=self.when(30))

    def event(self) -> None:
        related, owner = self.related()
        start = (self.now + timedelta(days=self.rng.randint(-30, 20))).replace(hour=self.rng.randint(9, 16), minute=0)
        self.data.events[f"event-{len(self.data.events) + 1}"] = EventRecord(
            subject=self.rng.choice(["Discovery call", "Pricing review", "Quarterly business review", "Demo"]),
            owner=owner, start=start, end=start + timedelta(minutes=self.rng.choice([30, 45, 60])),
            related=related, location=self.rng.choice(["Zoom", "Customer office", "Phone"]))

