"""Every family of the corpus, explicitly: a new family is a function in ``families/`` and a line here."""

from __future__ import annotations

from scenarios.families import calendar, coworkers, crm, cross, docs, mail, perception, policy, projects, sales, schedule
from scenarios.family import Family

FAMILIES: list[Family] = [
    *crm.FAMILIES,
    *calendar.FAMILIES,
    *cross.FAMILIES,
    *mail.FAMILIES,
    *docs.FAMILIES,
    *policy.FAMILIES,
    *sales.FAMILIES,
    *schedule.FAMILIES,
    *projects.FAMILIES,
    *perception.FAMILIES,
    *coworkers.FAMILIES,
]


def family(family_id: str) -> Family:
    found = next((f for f in FAMILIES if f.id == family_id), None)
    if found is None:
        raise KeyError(f"no scenario family {family_id!r} (known: {', '.join(f.id for f in FAMILIES)})")
    return found
