"""The company and its people: a chief executive, team heads reporting to them, members to the heads."""

from __future__ import annotations

import random
import re
from datetime import datetime

from faker import Faker

from worlds.generate.sizes import Size
from worlds.model import Person, WorldInfo

# Team and the share of headcount it gets; Sales and Support own the CRM records, so they are larger.
TEAMS = {"Sales": 0.3, "Support": 0.2, "Engineering": 0.2, "Marketing": 0.1, "Finance": 0.1, "Operations": 0.1}
TITLES = {
    "Sales": ("VP Sales", ["Account Executive", "Senior Account Executive", "Sales Development Rep"]),
    "Support": ("Head of Support", ["Support Engineer", "Customer Success Manager"]),
    "Engineering": ("VP Engineering", ["Software Engineer", "Senior Software Engineer", "Engineering Manager"]),
    "Marketing": ("Head of Marketing", ["Product Marketing Manager", "Marketing Specialist"]),
    "Finance": ("Controller", ["Financial Analyst", "Billing Specialist"]),
    "Operations": ("Head of Operations", ["Operations Manager", "Office Manager"]),
}
NOW = datetime(2026, 3, 16, 9, 0)
TIMEZONE = "America/New_York"


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


def make_info(fake: Faker, rng: random.Random, size: Size, name: str, taken: set[str]) -> WorldInfo:
    company = fake.company()
    domain = f"{slug(company.split(',')[0])}.example"
    people = [_person(fake, domain, taken, "Chief Executive Officer", "Executive", None)]
    for team, share in TEAMS.items():
        head_title, titles = TITLES[team]
        head = _person(fake, domain, taken, head_title, team, people[0].email)
        people.append(head)
        for _ in range(max(1, round((size.people - 1) * share) - 1)):
            people.append(_person(fake, domain, taken, rng.choice(titles), team, head.email))
    sales = next(p for p in people if p.team == "Sales" and p.manager != people[0].email)
    return WorldInfo(name=name, company=company, domain=domain, now=NOW, timezone=TIMEZONE,
                     default_actor=sales.email, description=f"A generated world: {company}, {fake.bs()}.",
                     people=people)


def _person(fake: Faker, domain: str, taken: set[str], title: str, team: str, manager: str | None) -> Person:
    first, last = fake.first_name(), fake.last_name()
    return Person(name=f"{first} {last}", email=unique_email(first, last, domain, taken), title=title,
                  team=team, manager=manager)
