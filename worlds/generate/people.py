"""The company and its people: a chief executive, team heads reporting to them, members to the heads."""

from __future__ import annotations

import random
import re
from datetime import datetime

from faker import Faker

from worlds.generate.kinds import SOFTWARE, Kind, role_of
from worlds.generate.sizes import Size
from worlds.model import Person, WorldInfo

# Each role's share of headcount; the teams that own CRM records (Sales, Support) are larger. A kind names the
# teams and their titles (worlds.generate.kinds).
SHARES = {"Sales": 0.3, "Support": 0.2, "Engineering": 0.2, "Marketing": 0.1, "Finance": 0.1, "Operations": 0.1}
NOW = datetime(2026, 3, 16, 9, 0)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def unique_email(first: str, last: str, domain: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z]", "", first.lower()) + "." + re.sub(r"[^a-z]", "", last.lower())
    email, n = f"{base}@{domain}", 1
    while email in taken:
        n += 1
        email = f"{base}{n}@{domain}"
    taken.add(email)
    return email


def make_info(fake: Faker, rng: random.Random, size: Size, name: str, taken: set[str],
              kind: Kind = SOFTWARE) -> WorldInfo:
    company = fake.company() if kind is SOFTWARE else f"{fake.last_name()} {rng.choice(kind.suffixes)}"
    domain = f"{slug(company.split(',')[0])}.example"
    people = [_person(fake, domain, taken, kind.chief, "Executive", None)]
    for role, share in SHARES.items():
        team, head_title, titles = kind.teams[role]
        head = _person(fake, domain, taken, head_title, team, people[0].email)
        people.append(head)
        for _ in range(max(1, round((size.people - 1) * share) - 1)):
            people.append(_person(fake, domain, taken, rng.choice(titles), team, head.email))
    sales = next(p for p in people if role_of(p.team) == "Sales" and p.manager != people[0].email)
    about = fake.bs() if kind is SOFTWARE else kind.summary
    return WorldInfo(name=name, company=company, domain=domain, now=NOW, timezone=kind.timezone,
                     default_actor=sales.email, description=f"A generated world: {company}, {about}.",
                     people=people, sector="" if kind is SOFTWARE else kind.name)


def _person(fake: Faker, domain: str, taken: set[str], title: str, team: str, manager: str | None) -> Person:
    first, last = fake.first_name(), fake.last_name()
    return Person(name=f"{first} {last}", email=unique_email(first, last, domain, taken), title=title,
                  team=team, manager=manager)
