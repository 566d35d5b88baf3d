"""Spreadsheet storage: cells in and out of the table, ranges, evaluated grids and their text forms."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from typing import Optional

from sqlmodel import Session, col, delete, select

from apps.docs import models as m
from apps.docs import schemas as s
from apps.docs.formula_functions import DateValue
from apps.docs.formulas import FormulaError, Sheet, parse_ref, range_bounds, ref_name
from apps.kit import Invalid

Grid = dict[tuple[int, int], str]
Clock = Optional[tuple[datetime, str]]  # the episode's now and the world's time zone, for TODAY() and NOW()


FIRST_TAB = "Sheet1"


def tabs(session: Session, item_id: int) -> list[m.Tab]:
    """The spreadsheet's tabs in order; one with no tab rows has its one implied tab, 'Sheet1' (id 0)."""
    found = list(session.exec(select(m.Tab).where(m.Tab.item_id == item_id).order_by(col(m.Tab.position))))
    return found or [m.Tab(item_id=item_id, sheet_id=0, name=FIRST_TAB, position=0)]


def find_tab(session: Session, item_id: int, name: str | None, field: str = "tab") -> m.Tab:
    """The tab named ``name`` (any case; the first tab when None), or ``Invalid`` naming the field."""
    found = tabs(session, item_id)
    if name is None:
        return found[0]
    for tab in found:
        if tab.name.lower() == name.strip().lower():
            return tab
    raise Invalid(f"{field}: there is no tab named {name!r}; the tabs are {', '.join(t.name for t in found)}",
                  field=field)


def load(session: Session, item_id: int, tab: int | None = None) -> Grid:
    """A tab's cells (the first tab's when ``tab`` is None)."""
    sheet_id = tabs(session, item_id)[0].sheet_id if tab is None else tab
    query = select(m.Cell).where(m.Cell.item_id == item_id, m.Cell.tab == sheet_id)
    return {(c.row, c.col): c.input for c in session.exec(query)}


class Book:
    """A spreadsheet's tabs evaluated together, so ``Sheet2!A1`` reads the other tab's current cells. Each tab's
    cells are loaded when first read; ``grids`` gives tabs' cells already at hand (by sheet_id)."""

    def __init__(self, session: Session | None, item_id: int, clock: Clock = None, grids: dict[int, Grid] | None = None,
                 named: list[m.Tab] | None = None):
        self.session, self.item_id, self.clock = session, item_id, clock
        self.tabs = named if named is not None else tabs(session, item_id) if session else []
        self.grids = dict(grids or {})
        self.sheets: dict[int, Sheet] = {}
        self.shared: dict = {"cycle": False, "depth": 0}

    def sheet(self, sheet_id: int) -> Sheet:
        if sheet_id not in self.sheets:
            if sheet_id not in self.grids:
                self.grids[sheet_id] = load(self.session, self.item_id, sheet_id) if self.session else {}
            now, tz = self.clock or (None, "UTC")
            self.sheets[sheet_id] = Sheet(self.grids[sheet_id], now, tz, book=self.by_name, shared=self.shared)
        return self.sheets[sheet_id]

    @classmethod
    def of(cls, named: list[tuple[str, Grid]], clock: Clock = None) -> "Book":
        """Tabs at hand as (name, cells), in order, with no database (a world being seeded)."""
        found = [m.Tab(item_id=0, sheet_id=i, name=name, position=i) for i, (name, _) in enumerate(named)]
        return cls(None, 0, clock, {i: grid for i, (_, grid) in enumerate(named)}, found)

    def by_name(self, name: str) -> Sheet | None:
        found = [t for t in self.tabs if t.name.lower() == name.lower()]
        return self.sheet(found[0].sheet_id) if found else None

    def text(self) -> str:
        """The values as CSV, how agents read a sheet as plain text: with several tabs, each under '# name'."""
        parts = [(t.name, values_csv(self.sheet(t.sheet_id).inputs, self.clock, self.sheet(t.sheet_id)))
                 for t in self.tabs]
        return parts[0][1] if len(parts) == 1 else "\n".join(f"# {name}\n{text}" for name, text in parts)


def save(session: Session, item: m.Item, grid: Grid, clock: Clock = None, tab: int | None = None) -> None:
    """Replace a tab's cells (the first tab's when None) with ``grid``; refresh the searchable text and size,
    which show every tab's values (a formula on another tab may read this one)."""
    sheet_id = tabs(session, item.id)[0].sheet_id if tab is None else tab
    session.exec(delete(m.Cell).where(col(m.Cell.item_id) == item.id, col(m.Cell.tab) == sheet_id))
    for (r, c), text in sorted(grid.items()):
        if text != "":
            session.add(m.Cell(item_id=item.id, tab=sheet_id, row=r, col=c, input=text))
    refresh(session, item, clock, {sheet_id: grid})


def refresh(session: Session, item: m.Item, clock: Clock = None, grids: dict[int, Grid] | None = None) -> None:
    item.body = Book(session, item.id, clock, grids).text()
    item.size = len(item.body.encode())
    session.add(item)


def snapshot(session: Session, item_id: int) -> str:
    """Every tab's cells as a revision's JSON: ``{"A1": input}`` for a spreadsheet of one implied tab (the format
    of every earlier revision), else the first tab's cells plus ``"tabs": [{name, sheet_id, cells}]``."""
    found = tabs(session, item_id)
    first = load(session, item_id, found[0].sheet_id)
    if found[0].position == 0 and found[0].sheet_id == 0 and found[0].name == FIRST_TAB and len(found) == 1:
        return to_json(first)
    data = json.loads(to_json(first))
    data["tabs"] = [{"name": t.name, "sheet_id": t.sheet_id, "cells": json.loads(to_json(load(session, item_id, t.sheet_id)))}
                    for t in found]
    return json.dumps(data, sort_keys=True)


def tabs_json(named: list[tuple[str, Grid]]) -> str:
    """Tabs as (name, cells), their sheet_ids counting from 0, in a ``snapshot``'s JSON."""
    data = json.loads(to_json(named[0][1]))
    data["tabs"] = [{"name": name, "sheet_id": i, "cells": json.loads(to_json(grid))} for i, (name, grid) in enumerate(named)]
    return json.dumps(data, sort_keys=True)


def restore(session: Session, item: m.Item, text: str, clock: Clock = None) -> None:
    """Make the spreadsheet's tabs and cells those of a ``snapshot``: Sheets restores a version's tabs too."""
    session.exec(delete(m.Cell).where(col(m.Cell.item_id) == item.id))
    session.exec(delete(m.Tab).where(col(m.Tab.item_id) == item.id))
    data = json.loads(text)
    for i, tab in enumerate(data.get("tabs") or [{"name": FIRST_TAB, "sheet_id": 0, "cells": data}]):
        if "tabs" in data:
            session.add(m.Tab(item_id=item.id, sheet_id=tab["sheet_id"], name=tab["name"], position=i))
        for (r, c), value in from_json(json.dumps(tab["cells"])).items():
            session.add(m.Cell(item_id=item.id, tab=tab["sheet_id"], row=r, col=c, input=value))
    session.flush()
    refresh(session, item, clock)


def tab_grids(text: str) -> list[tuple[str, Grid]]:
    """A revision's tabs as (name, cells)."""
    data = json.loads(text)
    return [(t["name"], from_json(json.dumps(t["cells"]))) for t in data.get("tabs") or [{"name": FIRST_TAB, "cells": data}]]


def input_text(value: s.CellInput) -> str:
    """What a cell holds for a value given by a caller: numbers without a needless '.0'."""
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def parse_range(text: str, field: str = "range", ends: tuple[int, int] = (1, 1)) -> tuple[int, int, int, int]:
    """'B2:D5' (or one cell 'B2') to (row1, col1, row2, col2). A whole column ('B:B', 'B2:B') or row ('2:2')
    ends at ``ends`` (the last row and column to reach, e.g. the used range's), and never before it starts."""
    place = parse_ref(text) if ":" not in text else None
    bounds = (*place, *place) if place else range_bounds(text)
    if bounds is None:
        raise Invalid(f"{field}: {text!r} is not a range like A1:C10, B:B or 2:2, or a cell like B2", field=field)
    r1, c1, r2, c2 = bounds
    return r1, c1, max(r1, ends[0]) if r2 is None else r2, max(c1, ends[1]) if c2 is None else c2


def is_open(text: str) -> bool:
    """Whether a range leaves an end open (a whole column or row)."""
    bounds = range_bounds(text) if ":" in text else None
    return bounds is not None and None in bounds


def used_range(grid: Grid) -> tuple[int, int, int, int]:
    if not grid:
        return 1, 1, 1, 1
    return 1, 1, max(r for r, _ in grid), max(c for _, c in grid)


def range_name(r1: int, c1: int, r2: int, c2: int) -> str:
    return f"{ref_name(r1, c1)}:{ref_name(r2, c2)}"


def shown(value) -> s.CellValue:
    """A value as the sheet shows it: whole numbers without '.0', errors as their code."""
    if isinstance(value, FormulaError):
        return value.code
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, DateValue):
        return value.day().isoformat()
    if isinstance(value, float):
        value = round(value, 10)  # hide binary noise such as 0.050000000000000044, as spreadsheets do
        return int(value) if value.is_integer() and abs(value) < 1e15 else value
    return value


def evaluate(grid: Grid, bounds: tuple[int, int, int, int], clock: Clock = None,
             sheet: Sheet | None = None) -> tuple[list[list[s.CellValue]], list[s.CellInfo]]:
    """The values of ``bounds``: of ``sheet`` (a tab of a ``Book``, reading other tabs) or of ``grid`` alone."""
    sheet = sheet or Sheet(grid, *(clock or ()))
    r1, c1, r2, c2 = bounds
    rows, cells = [], []
    for r in range(r1, r2 + 1):
        row = []
        for c in range(c1, c2 + 1):
            value = sheet.value(r, c)
            row.append(shown(value))
            if grid.get((r, c), "") != "":
                error = value.detail if isinstance(value, FormulaError) else None
                cells.append(s.CellInfo(ref=ref_name(r, c), input=grid[(r, c)], value=shown(value), error=error))
        rows.append(row)
    return rows, cells


def values_csv(grid: Grid, clock: Clock = None, sheet: Sheet | None = None) -> str:
    """The sheet as CSV of the values shown: how agents read a sheet as plain text."""
    if not grid:
        return ""
    rows, _ = evaluate(grid, used_range(grid), clock, sheet)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([["" if v is None else v for v in row] for row in rows])
    return out.getvalue()


def inputs_csv(grid: Grid) -> str:
    if not grid:
        return ""
    _, _, r2, c2 = used_range(grid)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(
        [[grid.get((r, c), "") for c in range(1, c2 + 1)] for r in range(1, r2 + 1)])
    return out.getvalue()


def from_rows(rows: list[list[str]], top: int = 1, left: int = 1) -> Grid:
    return {(top + i, left + j): text for i, row in enumerate(rows) for j, text in enumerate(row) if text != ""}


def to_json(grid: Grid) -> str:
    return json.dumps({ref_name(r, c): text for (r, c), text in sorted(grid.items())}, sort_keys=True)


def from_json(text: str) -> Grid:
    return {place: value for ref, value in json.loads(text).items() if (place := parse_ref(ref)) is not None}
