"""What several families share: new customers with their contacts, quarters, money and dates as people write
them, mail placed in the acting person's inbox, and comparators for what an agent writes in its own words."""

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


def first(person: Person) -> str:
    return person.name.split()[0]


def distinct_firsts(people: list[Person]) -> list[Person]:
    names = [first(p) for p in people]
    return [p for p in people if names.count(first(p)) == 1]


def mail(d: Draft, by: str, subject: str, body: str, to: list[str] | None = None, cc: list[str] | None = None,
         bind: str | None = None) -> None:
    """A mail to the acting person (and ``to``/``cc``); ``bind`` names the actor's copy for criteria and oracle."""
    d.setup("mail.send", by=by, to=to or [d.actor], cc=cc, subject=subject, body=body)
    if bind:
        d.bind(bind, "mail.message", owner="$actor", subject=subject, sender=by)


def read_only(d: Draft) -> None:
    """A question changes nothing: any write (deleting, relabelling, sending) costs the pass."""
    d.check("read_only", role="penalty", weight=0.5, trajectory={"max_writes": 0})


_FILLER = {"and", "the", "inc", "llc", "ltd", "plc", "group", "sons", "company", "co"}   # no word of a name to tell


def telling_words(name: str) -> list[str]:
    """The telling words of a company's name (not 'and', 'Inc', 'Group'...)."""
    return [w for w in re.findall(r"[A-Za-z]+", name) if len(w) > 2 and w.lower() not in _FILLER]


def naming(name: str) -> dict:
    """A text comparator: names the company ``name``, in full or by a telling word of it ("Long-Clark", "Clark")."""
    chunks = [c.strip(".,;:!?'\"()") for c in name.split()]   # as written: "Long-Clark" is one word
    words = [c for c in chunks if len(c) > 2 and c.lower() not in _FILLER] + telling_words(name)
    return {"any_of": [{"phrase": name}, *({"tokens": [w]} for w in dict.fromkeys(w.lower() for w in words))]}


def own_words(text: str) -> dict:
    """A body comparator: ``text`` on a line of the writer's own, not in the quoted original ('> ' lines)."""
    return {"regex": r"(?si)(?:.*\n)?(?!>)[^\n]*" + re.escape(text) + ".*"}


def date_phrases(day: date) -> list[dict]:
    """The ways a person writes a date in a reply, as phrase comparators."""
    month, short = f"{day:%B}", f"{day:%b}"
    texts = [f"{month} {day.day}", f"{day.day} {month}", f"{short} {day.day}", f"{day.day} {short}", day.isoformat(),
             f"{day.month}/{day.day}/{day.year}", f"{month} {day.day}th", f"{month} {day.day}st",
             f"{month} {day.day}nd", f"{month} {day.day}rd"]
    return [{"phrase": t} for t in dict.fromkeys(texts)]


def money_phrases(amount: float) -> list[dict]:
    whole = float(amount).is_integer()
    texts = [f"{amount:,.0f}" if whole else f"{amount:,.2f}", f"{amount:.0f}" if whole else f"{amount:.2f}",
             f"{amount:,.2f}"]
    return [{"phrase": t} for t in dict.fromkeys(texts)]
