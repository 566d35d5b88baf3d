"""What a family needs to know of a world: its people, customers, deals, calendars and documents.

Read once per world from the world's own files (``worlds.model.World`` with every app's section), so a family
writes tasks for acme, harbor-legal or any generated world alike, and knows the records the agent will find.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import cached_property
from typing import Any
from zoneinfo import ZoneInfo

from apps.calendar import recurrence
from worlds.model import Person, World


@dataclass(frozen=True)
class Deal:
    """An opportunity as the world's files hold it, with its account's name."""

    key: str
    name: str
    account: str
    owner: str
    stage: str
    amount: float | None
    close_date: date | None

    @property
    def open(self) -> bool:
        return not self.stage.startswith("Closed")


@dataclass(frozen=True)
class Customer:
    key: str
    name: str
    owner: str
    industry: str | None
    contacts: tuple[tuple[str, str], ...]   # (name, email) of its contacts with an address


@dataclass
class WorldView:
    world: World

    @property
    def name(self) -> str:
        return self.world.info.name

    @property
    def info(self):
        return self.world.info

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.info.timezone)

    @property
    def now(self) -> datetime:
        """The world's now, naive, in its zone (as its files write times)."""
        return self.info.now.replace(tzinfo=None) if self.info.now.tzinfo is None else \
            self.info.now.astimezone(self.zone).replace(tzinfo=None)

    @property
    def today(self) -> date:
        return self.now.date()

    @property
    def actor(self) -> Person:
        return self.person(self.info.default_actor)

    @property
    def domain(self) -> str:
        return self.info.domain

    @property
    def company(self) -> str:
        return self.info.company

    def person(self, email: str) -> Person:
        return self.people_by_email[email]

    @cached_property
    def people_by_email(self) -> dict[str, Person]:
        return self.info.people_by_email()

    @property
    def people(self) -> list[Person]:
        return list(self.info.people)

    def reports(self, manager: str) -> list[Person]:
        """People whose manager is ``manager``, in the world's order."""
        return [p for p in self.info.people if p.manager == manager]

    def manager_of(self, email: str) -> Person | None:
        boss = self.person(email).manager
        return self.people_by_email.get(boss) if boss else None

    def titled(self, *words: str) -> list[Person]:
        """People whose title holds every word (case-insensitive, whole words)."""
        return [p for p in self.info.people
                if all(re.search(rf"\b{re.escape(w)}\b", p.title, re.I) for w in words)]

    def colleagues(self, of: str | None = None) -> list[Person]:
        """Everyone but ``of`` (default: the acting person)."""
        me = of or self.info.default_actor
        return [p for p in self.info.people if p.email != me]

    # The CRM, as its world files hold it.
    @cached_property
    def deals(self) -> list[Deal]:
        crm = self.world.sections.get("crm")
        if crm is None:
            return []
        accounts = crm.accounts
        return [Deal(key, o.name, accounts[o.account].name if o.account in accounts else o.account, o.owner,
                     o.stage, o.amount, o.close_date) for key, o in crm.opportunities.items()]

    @cached_property
    def customers(self) -> list[Customer]:
        crm = self.world.sections.get("crm")
        if crm is None:
            return []
        contacts: dict[str, list[tuple[str, str]]] = {}
        for c in crm.contacts.values():
            if c.account and c.email:
                contacts.setdefault(c.account, []).append((f"{c.first_name} {c.last_name}".strip(), c.email))
        return [Customer(key, a.name, a.owner, a.industry, tuple(contacts.get(key, ())))
                for key, a in crm.accounts.items()]

    def crm_users(self) -> list[Person]:
        """People who own a CRM record: those an agent can assign work to in the CRM."""
        owners = {d.owner for d in self.deals} | {c.owner for c in self.customers}
        return [p for p in self.info.people if p.email in owners]

    # The calendar: busy intervals per person (naive, world zone), series expanded over the next five weeks.
    @cached_property
    def busy(self) -> dict[str, list[tuple[datetime, datetime]]]:
        cal = self.world.sections.get("calendar")
        out: dict[str, list[tuple[datetime, datetime]]] = {}
        after = self.info.now_utc
        for event in (cal.events.values() if cal is not None else ()):
            if getattr(event, "status", None) == "cancelled":
                continue
            zone = ZoneInfo(event.time_zone) if event.time_zone else self.zone
            start, end = _aware(event.start, zone), _aware(event.end, zone)
            spans = [(start, end)] if not event.recurrence else \
                recurrence.occurrences(event.recurrence, start, end, zone, after, after + timedelta(days=35))
            people = {event.organizer} | {a if isinstance(a, str) else a.email for a in event.attendees}
            for person in people:
                out.setdefault(person, []).extend((_naive(s, self.zone), _naive(e, self.zone)) for s, e in spans)
        return out

    @cached_property
    def series_days(self) -> dict[str, set[int]]:
        """Weekdays on which a person has a recurring event: a family placing a series of its own avoids them."""
        cal = self.world.sections.get("calendar")
        out: dict[str, set[int]] = {}
        for event in (cal.events.values() if cal is not None else ()):
            if event.recurrence and getattr(event, "status", None) != "cancelled":
                zone = ZoneInfo(event.time_zone) if event.time_zone else self.zone
                day = _naive(_aware(event.start, zone), self.zone).weekday()
                for person in {event.organizer} | {a if isinstance(a, str) else a.email for a in event.attendees}:
                    out.setdefault(person, set()).add(day)
        return out

    def workdays(self, after: date, count: int) -> list[date]:
        """The next ``count`` weekdays after ``after``."""
        days: list[date] = []
        day = after
        while len(days) < count:
            day += timedelta(days=1)
            if day.weekday() < 5:
                days.append(day)
        return days

    def free(self, email: str, start: datetime, end: datetime) -> bool:
        """Whether the world's calendar has nothing for ``email`` between ``start`` and ``end`` (naive, world zone)."""
        return all(e <= start or s >= end for s, e in self.busy.get(email, []))

    # Documents, by name.
    @cached_property
    def document_names(self) -> set[str]:
        docs = self.world.sections.get("docs")
        return {item.name for item in docs.items} if docs is not None else set()

    @cached_property
    def known_names(self) -> set[str]:
        """Names the world already uses for accounts, deals, documents and people (lower case)."""
        return {c.name.lower() for c in self.customers} | {d.name.lower() for d in self.deals} | \
            {n.lower() for n in self.document_names} | {p.name.lower() for p in self.info.people} | \
            {o.name.lower() for o in self.info.outsiders}


def _aware(moment: Any, zone: ZoneInfo) -> datetime:
    if isinstance(moment, date) and not isinstance(moment, datetime):
        moment = datetime.combine(moment, time())
    return moment if moment.tzinfo else moment.replace(tzinfo=zone)


def _naive(moment: datetime, zone: ZoneInfo) -> datetime:
    return moment.astimezone(zone).replace(tzinfo=None)
