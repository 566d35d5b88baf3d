"""Sheets that list opportunities (an Opportunity and an Amount column), checked against the CRM.

Each row names an opportunity by CRM key or name and must carry its CRM amount; a ``Total`` row (a
number, or ``=SUM`` over the Amount column) must equal the rows; a sheet named ``Forecast Q<n> <year>``
must list exactly the opportunities the CRM has closing in that quarter, Closed Lost aside, so that
its total is the pipeline's. Formulas other than a plain column ``SUM`` are left to the docs app.
"""

from __future__ import annotations

import re
from datetime import date

FORECAST = re.compile(r"^Forecast Q(?P<q>[1-4]) (?P<year>\d{4})$")
SUM = re.compile(r"^=\s*SUM\(\s*(?P<col>[A-Z]+)(?P<a>\d+)\s*:\s*(?P=col)(?P<b>\d+)\s*\)$", re.IGNORECASE)


def number(cell: str) -> float | None:
    try:
        return round(float(cell.strip().replace("$", "").replace(",", "")), 2)
    except ValueError:
        return None


def letter(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def check_sheet(facts, item) -> list[str]:
    """Problems of one spreadsheet ``item``; records its total in ``facts.sheet_totals_by_name``."""
    header = [cell.strip().lower() for cell in item.rows[0]]
    if "opportunity" not in header or "amount" not in header:
        return []
    name_col, amount_col = header.index("opportunity"), header.index("amount")
    where = (lambda n: f"docs/{item.source}:{n}") if item.source else (lambda n: f"{item.file} ({item.name!r}, row {n})")
    problems, listed, body, total_at = [], [], 0.0, None
    for n, row in enumerate(item.rows[1:], start=2):
        if len(row) <= max(name_col, amount_col):
            continue
        if row[0].strip().lower() == "total":
            total_at = (n, row[amount_col])
            continue
        amount = number(row[amount_col])
        if amount is None:
            continue
        body += amount
        name = row[name_col].strip()
        keys = [name] if name in facts.opps else facts.by_name.get(name, [])
        listed.append((n, name, keys, amount))
        held = [round(facts.opps[k].amount or 0, 2) for k in keys]
        if keys and amount not in held:
            problems.append(f"{where(n)}: {item.name!r} lists {name!r} at ${amount:,.2f}, but "
                            f"{facts.crm_at(keys[0])} has ${held[0]:,.2f}")
    total = round(body, 2)
    if total_at is not None:
        stated = _total(item.rows, total_at[1], amount_col)
        if stated is not None and stated != total:
            problems.append(f"{where(total_at[0])}: {item.name!r} Total is ${stated:,.2f}, but its rows add up to "
                            f"${total:,.2f}")
        total = stated if stated is not None else total
    facts.sheet_totals_by_name.setdefault(item.name, []).append((total, where(total_at[0] if total_at else 1)))
    if match := FORECAST.match(item.name):
        problems += _forecast(facts, item, listed, total, where, int(match["q"]), int(match["year"]))
    return problems


def _total(rows: list[list[str]], cell: str, amount_col: int) -> float | None:
    """The Total cell's value: a number, or a SUM over the Amount column; None for anything else."""
    if (found := SUM.match(cell.strip())) is None:
        return number(cell)
    if found["col"].upper() != letter(amount_col):
        return None
    cells = [rows[r - 1][amount_col] for r in range(int(found["a"]), int(found["b"]) + 1)
             if 0 < r <= len(rows) and len(rows[r - 1]) > amount_col]
    return round(sum(v for c in cells if (v := number(c)) is not None), 2)


def _forecast(facts, item, listed: list, total: float, where, q: int, year: int) -> list[str]:
    first, last = date(year, 3 * q - 2, 1), date(year + (q == 4), 1 if q == 4 else 3 * q + 1, 1)
    pipeline = {k for k, o in facts.opps.items()
                if o.close_date and first <= o.close_date < last and o.stage != "Closed Lost"}
    problems, seen = [], set()
    for n, name, keys, amount in listed:
        left = [k for k in keys if k in pipeline and k not in seen]
        key = next((k for k in left if round(facts.opps[k].amount or 0, 2) == amount), left[0] if left else None)
        if key is None:
            problems.append(f"{where(n)}: {item.name!r} lists {name!r}, which the CRM does not have closing in "
                            f"Q{q} {year} (Closed Lost aside)")
        seen.add(key)
    for key in sorted(pipeline - seen):
        opp = facts.opps[key]
        problems.append(f"{where(1)}: {item.name!r} leaves out {opp.name!r} ({facts.crm_at(key)}), {opp.stage}, "
                        f"${opp.amount or 0:,.2f}, closing {opp.close_date}")
    crm_total = round(sum(facts.opps[k].amount or 0 for k in pipeline), 2)
    if total != crm_total:
        problems.append(f"{where(len(item.rows))}: {item.name!r} totals ${total:,.2f}, but the CRM pipeline "
                        f"closing in Q{q} {year} is ${crm_total:,.2f}")
    return problems
