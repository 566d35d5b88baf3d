"""Docs operations that change content: document text and spreadsheet cells. Every edit is a revision."""

from __future__ import annotations

from apps.docs import access, fastwrite, sheets, store
from apps.docs import models as m
from apps.docs import schemas as s
from apps.docs.formulas import parse_ref, tab_of
from apps.kit import Conflict, Ctx, Invalid, OperationSet
from apps.kit.wire import Wire, wired

ops = OperationSet("docs")
# A document's whole text travels in one argument: allow about 2 MB rather than the kit's 100 kB.
DOCUMENT_TEXT_LIMIT = 2_000_000

_OTHER_OPS = {"document": "write_document or replace_in_document", "spreadsheet": "update_cells or update_range",
              "file": "upload_file to add a new file", "folder": "create_document in it"}


def editable(ctx: Ctx, file_id: int, kind: str) -> tuple[m.Item, str]:
    """The item if the actor may edit it, it is of ``kind`` and it is not in the trash."""
    item, role = access.require(ctx, file_id, "editor", "edit it")
    if item.kind != kind:
        raise Invalid(f"file_id: {item.name!r} is a {item.kind}, not a {kind}; use {_OTHER_OPS[item.kind]}",
                      field="file_id")
    if access.is_trashed(ctx.session, item):
        raise Conflict(f"{item.name!r} is in the trash; restore it first", field="file_id")
    return item, role


def save_text(ctx: Ctx, item: m.Item, role: str, text: str) -> s.FileContent:
    item.body, item.size = text, len(text.encode())
    store.touch(ctx, item)
    revision = store.add_revision(ctx.session, item, ctx.actor, ctx.now, text)
    return s.FileContent(file=store.summary(ctx.session, item, ctx.actor, role), encoding="text", content=text,
                         revision=revision.number)


@ops.write(text_limit=DOCUMENT_TEXT_LIMIT)
def write_document(ctx: Ctx, file_id: int, text: str) -> s.FileContent:
    """Replace the whole text of a document.

    Args:
        file_id: Id of the document.
        text: The new content, in Markdown.
    """
    item, role = editable(ctx, file_id, "document")
    return save_text(ctx, item, role, text)


@ops.write(text_limit=DOCUMENT_TEXT_LIMIT)
def append_to_document(ctx: Ctx, file_id: int, text: str) -> Wire[s.FileContent]:
    """Add text at the end of a document, as a new paragraph.

    Args:
        file_id: Id of the document.
        text: The text to add, in Markdown.
    """
    found = fastwrite.append_to_document(ctx, file_id, text)
    return found if found is not None else wired(_append(ctx, file_id, text))


def _append(ctx: Ctx, file_id: int, text: str) -> s.FileContent:
    """``append_to_document`` through the ORM: where the plain-SQL path declines (to refuse the call)."""
    item, role = editable(ctx, file_id, "document")
    if not text.strip():
        raise Invalid("text: there is nothing to append", field="text")
    body = item.body.rstrip("\n")
    return save_text(ctx, item, role, f"{body}\n\n{text}" if body else text)


@ops.write(text_limit=DOCUMENT_TEXT_LIMIT)
def replace_in_document(ctx: Ctx, file_id: int, find: str, replace_with: str, replace_all: bool = False) -> s.FileContent:
    """Replace a passage of a document. The passage must appear exactly once, unless replace_all is set.

    Args:
        file_id: Id of the document.
        find: The exact passage to replace (include enough words around it to make it unique).
        replace_with: The text to put in its place (empty to delete the passage).
        replace_all: Replace every occurrence instead of requiring exactly one.
    """
    item, role = editable(ctx, file_id, "document")
    if not find:
        raise Invalid("find: give the passage to replace", field="find")
    count = item.body.count(find)
    if count == 0:
        raise Invalid(f"find: the passage {find[:80]!r} does not appear in {item.name!r}; read_file shows "
                      "the exact text", field="find")
    if count > 1 and not replace_all:
        raise Invalid(f"find: the passage appears {count} times in {item.name!r}; include more of the "
                      "surrounding text so that it is unique, or set replace_all", field="find")
    return save_text(ctx, item, role, item.body.replace(find, replace_with))


def spreadsheet(ctx: Ctx, item: m.Item, role: str, bounds=None, tab: m.Tab | None = None) -> s.Spreadsheet:
    """A tab's values (the first tab's when None), formulas read through the spreadsheet's other tabs."""
    book = sheets.Book(ctx.session, item.id, (ctx.now, ctx.world.timezone))
    tab = tab or book.tabs[0]
    sheet = book.sheet(tab.sheet_id)
    bounds = bounds or sheets.used_range(sheet.inputs)
    rows, cells = sheets.evaluate(sheet.inputs, bounds, sheet=sheet)
    return s.Spreadsheet(file=store.summary(ctx.session, item, ctx.actor, role), tab=tab.name,
                         tabs=[t.name for t in book.tabs], range=sheets.range_name(*bounds), rows=rows, cells=cells,
                         revision=store.current_revision(ctx.session, item.id) or 0)


def _tab_and_range(ctx: Ctx, item: m.Item, tab: str | None, range: str | None) -> tuple[m.Tab, str | None]:
    """The tab named by ``tab`` or by the range's own prefix (``'Q1 Plan'!B2:B9``, as Sheets writes ranges)."""
    named = tab_of(range) if range else None
    if named and tab is not None and named[0].lower() != tab.strip().lower():
        raise Invalid(f"range: {range!r} names tab {named[0]!r} but tab is {tab!r}", field="range")
    found = sheets.find_tab(ctx.session, item.id, named[0], "range") if named else sheets.find_tab(ctx.session, item.id, tab)
    return found, named[1] if named else range


@ops.read
def get_spreadsheet(ctx: Ctx, file_id: int, range: str | None = None, tab: str | None = None) -> s.Spreadsheet:
    """Read a spreadsheet's cells: values with formulas evaluated, and what each cell holds.

    Args:
        file_id: Id of the spreadsheet.
        range: Only this range, like 'A1:D20', 'B3', a whole column 'B:B' or row '2:2', or on a named tab
            'Q1 Plan'!B2:B9; the whole used area when left empty.
        tab: The tab's name, e.g. 'Q1 Plan'; the first tab when left empty.
    """
    item, role = access.require(ctx, file_id, "viewer", "read it")
    if item.kind != "spreadsheet":
        raise Invalid(f"file_id: {item.name!r} is a {item.kind}, not a spreadsheet; use read_file", field="file_id")
    found, range = _tab_and_range(ctx, item, tab, range)
    grid = sheets.load(ctx.session, item.id, found.sheet_id) if range and sheets.is_open(range) else {}
    bounds = sheets.parse_range(range, ends=sheets.used_range(grid)[2:]) if range else None
    if bounds and (bounds[2] - bounds[0] + 1) * (bounds[3] - bounds[1] + 1) > 20_000:
        raise Invalid("range: at most 20,000 cells at a time", field="range")
    return spreadsheet(ctx, item, role, bounds, found)


def _save_grid(ctx: Ctx, item: m.Item, role: str, grid: sheets.Grid, tab: m.Tab) -> s.Spreadsheet:
    sheets.save(ctx.session, item, grid, (ctx.now, ctx.world.timezone), tab.sheet_id)
    store.touch(ctx, item)
    store.add_revision(ctx.session, item, ctx.actor, ctx.now, sheets.snapshot(ctx.session, item.id))
    return spreadsheet(ctx, item, role, tab=tab)


@ops.write
def update_cells(ctx: Ctx, file_id: int, cells: dict[str, s.CellInput], tab: str | None = None) -> s.Spreadsheet:
    """Set cells of a spreadsheet to values or formulas; an empty value clears a cell.

    Args:
        file_id: Id of the spreadsheet.
        cells: Cell reference to new content, e.g. {"B4": 1200, "B5": "=SUM(B2:B4)", "C1": "Notes"}; a formula
            may read another tab, e.g. "='Q1 Plan'!B9".
        tab: The tab's name, e.g. 'Q1 Plan'; the first tab when left empty.
    """
    item, role = editable(ctx, file_id, "spreadsheet")
    if not cells:
        raise Invalid("cells: give at least one cell to set", field="cells")
    found = sheets.find_tab(ctx.session, item.id, tab)
    grid = sheets.load(ctx.session, item.id, found.sheet_id)
    for ref, value in cells.items():
        place = parse_ref(ref)
        if place is None:
            raise Invalid(f"cells: {ref!r} is not a cell reference like B4", field="cells")
        grid[place] = sheets.input_text(value)
    return _save_grid(ctx, item, role, {k: v for k, v in grid.items() if v != ""}, found)


@ops.write
def update_range(ctx: Ctx, file_id: int, range: str, values: list[list[s.CellInput]],
                 tab: str | None = None) -> s.Spreadsheet:
    """Write a block of rows into a spreadsheet: from a top-left cell ('B2'), or exactly filling a range ('B2:D4').

    Args:
        file_id: Id of the spreadsheet.
        range: The top-left cell, or the whole range the values must fill exactly (a whole column 'B:B' or
            row '2:2' is filled from its start as far as the values go).
        values: Rows of values or formulas; an empty value clears its cell.
        tab: The tab's name, e.g. 'Q1 Plan' (or name it in the range: 'Q1 Plan'!B2); the first tab when left empty.
    """
    item, role = editable(ctx, file_id, "spreadsheet")
    if not values or not any(values):
        raise Invalid("values: give at least one row of values", field="values")
    width = max(len(row) for row in values)
    found, within = _tab_and_range(ctx, item, tab, range)
    range = within or range
    r1, c1, r2, c2 = sheets.parse_range(range)
    if sheets.is_open(range):   # an open end reaches as far as the values do
        r1, c1, r2, c2 = sheets.parse_range(range, ends=(r1 + len(values) - 1, c1 + width - 1))
    if ":" in range and (len(values) != r2 - r1 + 1 or width != c2 - c1 + 1):
        raise Invalid(f"values: {len(values)} row(s) of {width} do not fill {range} "
                      f"({r2 - r1 + 1} row(s) of {c2 - c1 + 1})", field="values")
    if parse_ref(sheets.ref_name(r1 + len(values) - 1, 1)) is None or parse_ref(sheets.ref_name(1, c1 + width - 1)) is None:
        raise Invalid("values: the block runs off the sheet", field="values")
    grid = sheets.load(ctx.session, item.id, found.sheet_id)
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            grid[(r1 + i, c1 + j)] = sheets.input_text(value)
    return _save_grid(ctx, item, role, {k: v for k, v in grid.items() if v != ""}, found)


@ops.write
def append_rows(ctx: Ctx, file_id: int, rows: list[list[s.CellInput]], tab: str | None = None) -> s.Spreadsheet:
    """Add rows below the last non-empty row of a spreadsheet, starting in column A.

    Args:
        file_id: Id of the spreadsheet.
        rows: Rows of values or formulas.
        tab: The tab's name, e.g. 'Q1 Plan'; the first tab when left empty.
    """
    item, role = editable(ctx, file_id, "spreadsheet")
    if not rows or not any(rows):
        raise Invalid("rows: give at least one row", field="rows")
    found = sheets.find_tab(ctx.session, item.id, tab)
    grid = sheets.load(ctx.session, item.id, found.sheet_id)
    top = (max(r for r, _ in grid) + 1) if grid else 1
    grid.update(sheets.from_rows([[sheets.input_text(v) for v in row] for row in rows], top=top))
    return _save_grid(ctx, item, role, grid, found)
