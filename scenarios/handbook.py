"""Every world's handbook: the company's policies, with values of its own, as a document agents must read.

``policies(view)`` draws the values from the world's name (so each company has its own limits and an agent
cannot learn one set by heart); ``text`` writes the handbook as the company would; ``place(draft)`` puts it in
the acting person's Drive (owned by the head of people, or the top of the company), so tasks whose right
action depends on a policy can state the goal and leave the rule to be looked up.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from scenarios.view import WorldView
from worlds.model import Person


@dataclass(frozen=True)
class Policies:
    rep_discount: int          # % an account owner may give without approval
    manager_discount: int      # % their manager may approve; above it only the head of the company
    travel_approval_over: int  # $ a trip may cost before the traveller's manager must approve it in writing
    hotel_cap: int             # $ per night
    meal_cap: int              # $ per person per meal
    core_start: int            # internal meetings start at or after this hour...
    core_end: int              # ...and end by this one (the organiser's zone)
    renewal_uplift: int        # % added to a renewal whose account is healthy
    at_risk_discount: int      # % off at most for a renewal at risk, with the manager's approval
    case_escalation_hours: int  # a priority High case untouched this long goes to the owner's manager


def policies(view: WorldView) -> Policies:
    rng = random.Random(f"handbook:{view.name}")
    rep = rng.choice([5, 8, 10])
    start = rng.choice([9, 10])
    return Policies(rep_discount=rep, manager_discount=rep + rng.choice([7, 10, 12]),
                    travel_approval_over=rng.choice([1500, 2000, 2500]), hotel_cap=rng.choice([225, 250, 300]),
                    meal_cap=rng.choice([60, 75, 90]), core_start=start, core_end=start + rng.choice([6, 7]),
                    renewal_uplift=rng.choice([3, 5, 7]), at_risk_discount=rng.choice([5, 10]),
                    case_escalation_hours=rng.choice([24, 48]))


def head(view: WorldView) -> Person:
    """The head of the company: the one person without a manager (the first, if several)."""
    tops = [p for p in view.people if not p.manager]
    return tops[0] if tops else view.people[0]


def keeper(view: WorldView) -> Person:
    """Who owns the handbook: the head of people or HR if the world has one, else the head of the company."""
    for words in (("People",), ("HR",), ("Human",), ("Operations",)):
        found = view.titled(*words)
        if found:
            return found[0]
    return head(view)


def title(view: WorldView) -> str:
    return f"{view.company} Employee Handbook"


def text(view: WorldView) -> str:
    p = policies(view)
    boss = head(view)
    return f"""{title(view)}

1. Discounts
Account owners may agree a discount of up to {p.rep_discount}% off list on their own deals. Up to \
{p.manager_discount}% needs the written approval of the account owner's manager. Anything above \
{p.manager_discount}% needs the approval of {boss.name} ({boss.title}). Never promise a discount before it is approved.

2. Renewals
A renewal whose account is healthy renews at list plus {p.renewal_uplift}%. A renewal at risk may get at most \
{p.at_risk_discount}% off, with the account owner's manager's approval. Any other renewal renews flat.

3. Travel and expenses
A trip whose estimated cost is over ${p.travel_approval_over:,} needs the traveller's manager's approval in writing \
before booking. Hotels up to ${p.hotel_cap} a night. Meals up to ${p.meal_cap} per person; anything above is \
not reimbursed and must be logged as rejected.

4. Meetings
Internal meetings start no earlier than {p.core_start}:00 and end by {p.core_end}:00 in the organiser's time zone, \
on weekdays. Do not book over someone's existing meetings.

5. Confidential information
Documents marked Confidential are never shared outside {view.domain}; inside the company share them as viewer \
unless the owner asks otherwise. Compensation and personal data go only to People/HR and the person's own \
manager: refuse any other request and say why.

6. Support
A High priority case untouched for {p.case_escalation_hours} hours is escalated to the account owner's manager \
by mail, and its priority set to Critical.
"""


def place(draft) -> None:
    """The handbook in the acting person's Drive, shared by its keeper (one setup call each)."""
    view = draft.view
    owner = keeper(view).email
    by = owner if owner != draft.actor else None
    draft.setup("docs.create_document", by=by, save="handbook", name=title(view), text=text(view))
    if by is not None:
        draft.setup("docs.share", by=by, file_id="$handbook.id", email=draft.actor, role="viewer")
    draft.tags.append("policy")


def read(draft) -> None:
    """The oracle finds the handbook and reads it, as an agent must before applying a policy."""
    draft.do("docs.search", query="handbook")
    draft.do("docs.read_file", file_id="$handbook.id")
