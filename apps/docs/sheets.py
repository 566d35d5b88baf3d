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


def load(session: Session, item_id: int) -> Grid:
    return {(c.row, c.col): c.input for c in session.exec(select(m.Cell).where(m.Cell.item_id == item_id))}


def save(session: Session, item: m.Item, grid: Grid, clock: Clock = None) -> None:
    """Replace the sheet's cells with ``grid`` and refresh its searchable text and size."""
    session.exec(delete(m.Cell).where(col(m.Cell.item_id) == item.id))
    for (r, c), text in sorted(grid.items()):
        if text != "":
            session.add(m.Cell(item_id=item.id, row=r, col=c, input=text))
    item.body = values_csv(grid, clock)
    item.size = len(item.body.encode())
    session.add(item)


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


def evaluate(grid: Grid, bounds: tuple[int, int, int, int],
             clock: Clock = None) -> tuple[list[list[s.CellValue]], list[s.CellInfo]]:
    sheet = Sheet(grid, *(clock or ()))
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


def values_csv(grid: Grid, clock: Clock = None) -> str:
    """The sheet as CSV of the values shown: how agents read a sheet as plain text."""
    if not grid:
        return ""
    rows, _ = evaluate(grid, used_range(grid), clock)
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
