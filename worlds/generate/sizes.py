"""How big each generated world is. CRM records scale with accounts (about nine records per account)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Size:
    people: int
    accounts: int
    messages: int
    documents: int


SIZES: dict[str, Size] = {
    "s": Size(people=12, accounts=18, messages=200, documents=40),
    "m": Size(people=40, accounts=120, messages=3_000, documents=400),
    "l": Size(people=80, accounts=450, messages=20_000, documents=2_000),
    "xl": Size(people=120, accounts=1_120, messages=100_000, documents=5_000),
}
