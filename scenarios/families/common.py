"""What several families share: new customers with their contacts, quarters, money as people write it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from scenarios.draft import Draft
from scenarios.family import Skip
from worlds.model import Person


@dataclass(frozen=True)
class NewCustomer:
    name: str
    domain: str
    contact: str        # full name
    email: str
    ref: str            # "$acct": the saved account (its id at "$acct.id")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def new_customer(draft: Draft, owner: str, save: str = "acct", industry: str | None = None) -> NewCustomer:
    """A customer the world does not know yet: an account owned by ``owner`` and one contact with an address."""
    name = draft.fresh(lambda: draft.fake.company().replace(",", ""))
    domain = f"{slug(name)[:24]}.com"
    first, last = draft.fake.first_name(), draft.fake.last_name()
    email = f"{first.lower()}.{slug(last)}@{domain}"
    draft.setup("crm.create_account", by=owner, save=save, name=name, industry=industry or "Technology",
                type="Customer", owner=owner)
    draft.setup("crm.create_contact", by=owner, account_id=f"${save}.id", first_name=first, last_name=last,
                email=email, title=draft.rng.choice(["VP Operations", "Head of Finance", "CTO", "Procurement Lead"]))
    return NewCustomer(name, domain, f"{first} {last}", email, f"${save}")


def owners_with_manager(draft: Draft) -> list[Person]:
    """People who own CRM records and have a manager (someone to escalate to)."""
    found = [p for p in draft.view.crm_users() if p.manager and p.manager in draft.view.people_by_email]
    if not found:
        raise Skip("no CRM record owner with a manager in this world")
    return found


def quarter_end(day: date) -> date:
    first_next = date(day.year + (day.month > 9), (((day.month - 1) // 3 + 1) % 4) * 3 + 1, 1)
    return first_next - timedelta(days=1)


def quarter_name(day: date) -> str:
    return f"Q{(day.month - 1) // 3 + 1} {day.year}"


def money(amount: float) -> str:
    return f"${amount:,.0f}" if float(amount).is_integer() else f"${amount:,.2f}"


def round_to(amount: float, step: int = 500) -> int:
    return int(round(amount / step) * step)


def crm_owners(view) -> set[str]:
    """Everyone who owns any CRM record of the world (accounts, contacts, leads, deals, cases, activities): a
    person outside this set has no book the family does not know of."""
    crm = view.world.sections.get("crm")
    if crm is None:
        return set()
    owners: set[str] = set()
    for table in (crm.accounts, crm.contacts, crm.leads, crm.opportunities, crm.cases, crm.tasks, crm.events,
                  crm.notes):
        owners |= {getattr(r, "owner", None) or "" for r in (table.values() if isinstance(table, dict) else table)}
    return owners - {""}
