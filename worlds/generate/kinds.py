"""Kinds of company the generator writes: a software vendor, a law firm, a logistics firm.

A kind gives the company its name, zone, teams with their titles, the industries of its customers, what it
sells and what its customers' cases are about. Teams play the same roles in every kind (the role names below:
``Sales`` own deals, ``Support`` own cases...), under the names the kind gives them; ``role_of`` reads a team's
role back, so stories and app generators work on every kind.
"""

from __future__ import annotations

from dataclasses import dataclass

ROLES = ("Sales", "Support", "Engineering", "Marketing", "Finance", "Operations")


@dataclass(frozen=True)
class Kind:
    name: str
    suffixes: tuple[str, ...]
    timezone: str
    chief: str
    teams: dict[str, tuple[str, str, tuple[str, ...]]]   # role -> (team name, head's title, members' titles)
    industries: tuple[str, ...]
    products: tuple[str, ...]
    cases: tuple[str, ...]
    summary: str


SOFTWARE = Kind(
    "software", ("Inc.", "Software", "Labs", "Technologies"), "America/New_York", "Chief Executive Officer",
    {"Sales": ("Sales", "VP Sales", ("Account Executive", "Senior Account Executive", "Sales Development Rep")),
     "Support": ("Support", "Head of Support", ("Support Engineer", "Customer Success Manager")),
     "Engineering": ("Engineering", "VP Engineering", ("Software Engineer", "Senior Software Engineer",
                                                       "Engineering Manager")),
     "Marketing": ("Marketing", "Head of Marketing", ("Product Marketing Manager", "Marketing Specialist")),
     "Finance": ("Finance", "Controller", ("Financial Analyst", "Billing Specialist")),
     "Operations": ("Operations", "Head of Operations", ("Operations Manager", "Office Manager"))},
    ("Logistics", "Healthcare", "Retail", "Manufacturing", "Financial Services", "Education", "Energy", "Media",
     "Hospitality", "Software"),
    ("Platform licence", "Analytics add-on", "Premium support", "Data migration", "Seat expansion"),
    ("Login failures after SSO change", "Export to CSV times out", "Invoice shows wrong tax rate",
     "Dashboard loads slowly", "API rate limit errors", "Webhook deliveries missing",
     "User cannot reset password", "Duplicate records after import"),
    "a B2B software vendor")

LAW = Kind(
    "legal", ("LLP", "& Partners", "Law Group"), "America/Chicago", "Managing Partner",
    {"Sales": ("Business Development", "Head of Business Development", ("Partner", "Senior Associate", "Associate")),
     "Support": ("Client Services", "Director of Client Services", ("Client Services Manager", "Paralegal")),
     "Engineering": ("Legal Operations", "Head of Legal Operations", ("Legal Technologist", "Knowledge Lawyer")),
     "Marketing": ("Marketing", "Head of Marketing", ("Marketing Manager", "Events Coordinator")),
     "Finance": ("Finance", "Chief Financial Officer", ("Billing Specialist", "Financial Analyst")),
     "Operations": ("Operations", "Director of Operations", ("Office Manager", "Records Manager"))},
    ("Financial Services", "Real Estate", "Healthcare", "Manufacturing", "Technology", "Energy", "Retail"),
    ("M&A advisory", "Litigation retainer", "Regulatory review", "Employment counsel", "IP portfolio management"),
    ("Invoice disputes time entries", "Engagement letter needs revision", "Conflict check pending",
     "Document production deadline at risk", "Billing rate question", "Matter budget exceeded"),
    "a commercial law firm")

LOGISTICS = Kind(
    "logistics", ("Freight", "Logistics", "Shipping Co.", "Transport"), "Europe/London", "Chief Executive Officer",
    {"Sales": ("Commercial", "Commercial Director", ("Key Account Manager", "Account Manager", "Sales Executive")),
     "Support": ("Customer Operations", "Head of Customer Operations", ("Shipment Coordinator", "Claims Handler")),
     "Engineering": ("Fleet & Systems", "Head of Fleet & Systems", ("Fleet Planner", "Systems Analyst")),
     "Marketing": ("Marketing", "Head of Marketing", ("Marketing Manager", "Tender Specialist")),
     "Finance": ("Finance", "Finance Director", ("Credit Controller", "Financial Analyst")),
     "Operations": ("Warehousing", "Head of Warehousing", ("Warehouse Manager", "Shift Supervisor"))},
    ("Retail", "Manufacturing", "Food & Beverage", "Automotive", "Pharmaceuticals", "E-commerce", "Chemicals"),
    ("Road freight contract", "Warehousing space", "Cross-border customs handling", "Cold-chain lane",
     "Last-mile delivery"),
    ("Pallets delayed at the port", "Proof of delivery missing", "Damaged goods claim", "Customs paperwork rejected",
     "Invoice shows wrong surcharge", "Temperature excursion on a reefer load"),
    "a freight and logistics company")

KINDS: dict[str, Kind] = {k.name: k for k in (SOFTWARE, LAW, LOGISTICS)}
_ROLE_OF = {team: role for kind in KINDS.values() for role, (team, _, _) in kind.teams.items()}


def role_of(team: str) -> str | None:
    """The role a team plays (``Sales`` for "Business Development"), whatever the kind; None for another team."""
    return _ROLE_OF.get(team)


def titles_of(team: str) -> tuple[str, ...]:
    """The members' titles of a team of any kind."""
    for kind in KINDS.values():
        for name, _, titles in kind.teams.values():
            if name == team:
                return titles
    return ("Specialist",)


def kind_of(sector: str) -> Kind:
    """The kind a world's ``sector`` names (software when it names none)."""
    return KINDS.get(sector, SOFTWARE)
