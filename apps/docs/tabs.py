"""Spreadsheet tabs as operations: add, rename, delete and move a tab, as in Google Sheets.

A spreadsheet starts with one tab, 'Sheet1' (``sheets.tabs``). Names are unique whatever the case. Renaming
a tab rewrites the formulas that name it, on every tab (Sheets follows the rename); deleting one leaves the
formulas that read it showing #REF!. The last tab cannot be deleted. Every change is a revision.
"""

from __future__ import annotations

import re

from sqlmodel import col, delete, select

from apps.docs import models as m
from apps.docs import schemas as s
from apps.docs import sheets, store
from apps.docs.editing import editable, spreadsheet
from apps.kit import Conflict, Ctx, Invalid, OperationSet

ops = OperationSet("docs")
MAX_TABS = 200
_NAMED = re.compile(r"('(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_]*)!")
_STRING = re.compile(r'("(?:[^"]|"")*")')
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _materialised(ctx: Ctx, item: m.Item) -> list[m.Tab]:
    """The tabs as rows, writing the implied 'Sheet1' of a spreadsheet that never had its tabs changed."""
    found = sheets.tabs(ctx.session, item.id)
    if found[0] not in ctx.session:
        ctx.session.add(found[0])
    return found


def _checked_name(ctx: Ctx, item: m.Item, name: str, field: str, keep: m.Tab | None = None) -> str:
    name = name.strip()
    if not name or len(name) > 100:
        raise Invalid(f"{field}: a tab's name has 1 to 100 characters", field=field)
    for tab in sheets.tabs(ctx.session, item.id):
        if tab.name.lower() == name.lower() and tab is not keep:
            raise Conflict(f"{field}: {item.name!r} already has a tab named {tab.name!r}", field=field)
    return name


def _place(tabs: list[m.Tab], tab: m.Tab, index: int | None, field: str = "index") -> None:
    """Put ``tab`` at ``index`` (0 is first; None or past the end: last) and renumber the others."""
    if index is not None and index < 0:
        raise Invalid(f"{field}: a tab's index counts from 0 (the first tab)", field=field)
    rest = [t for t in tabs if t is not tab]
    rest.insert(len(rest) if index is None else min(index, len(rest)), tab)
    for i, each in enumerate(rest):
        each.position = i


def _saved(ctx: Ctx, item: m.Item, role: str, tab: m.Tab) -> s.Spreadsheet:
    ctx.session.flush()
    sheets.refresh(ctx.session, item, (ctx.now, ctx.world.timezone))
    store.touch(ctx, item)
    store.add_revision(ctx.session, item, ctx.actor, ctx.now, sheets.snapshot(ctx.session, item.id))
    return spreadsheet(ctx, item, role, tab=tab)


def quoted(name: str) -> str:
    """A tab's name as a formula writes it: bare when it is one word, else in single quotes."""
    return name if _BARE.fullmatch(name) else "'" + name.replace("'", "''") + "'"


def renamed_in(formula: str, old: str, new: str) -> str:
    """``formula`` with references to tab ``old`` naming ``new`` (text in double quotes is left alone)."""
    def swap(match: re.Match) -> str:
        name = match.group(1)
        name = name[1:-1].replace("''", "'") if name.startswith("'") else name
        return quoted(new) + "!" if name.lower() == old.lower() else match.group(0)
    return "".join(part if i % 2 else _NAMED.sub(swap, part) for i, part in enumerate(_STRING.split(formula)))


@ops.write
def add_tab(ctx: Ctx, file_id: int, name: str, index: int | None = None) -> s.Spreadsheet:
    """Add an empty tab to a spreadsheet.

    Args:
        file_id: Id of the spreadsheet.
        name: The new tab's name, unique in the spreadsheet, e.g. 'Q1 Plan'.
        index: Where it goes among the tabs, 0 for first; last when left empty.
    """
    item, role = editable(ctx, file_id, "spreadsheet")
    tabs = _materialised(ctx, item)
    if len(tabs) >= MAX_TABS:
        raise Conflict(f"file_id: {item.name!r} has {MAX_TABS} tabs, the most a spreadsheet holds here", field="file_id")
    name = _checked_name(ctx, item, name, "name")
    tab = m.Tab(item_id=item.id, sheet_id=max(t.sheet_id for t in tabs) + 1, name=name, position=len(tabs))
    ctx.session.add(tab)
    _place([*tabs, tab], tab, index)
    return _saved(ctx, item, role, tab)


@ops.write
def rename_tab(ctx: Ctx, file_id: int, tab: str, new_name: str) -> s.Spreadsheet:
    """Rename a tab; formulas that read it (on any tab) are rewritten to the new name.

    Args:
        file_id: Id of the spreadsheet.
        tab: The tab's current name.
        new_name: Its new name, unique in the spreadsheet.
    """
    item, role = editable(ctx, file_id, "spreadsheet")
    tabs = _materialised(ctx, item)
    found = sheets.find_tab(ctx.session, item.id, tab)
    found = next(t for t in tabs if t.sheet_id == found.sheet_id)
    new_name, old = _checked_name(ctx, item, new_name, "new_name", keep=found), found.name
    for cell in ctx.session.exec(select(m.Cell).where(m.Cell.item_id == item.id, col(m.Cell.input).startswith("="))):
        text = renamed_in(cell.input, old, new_name)
        if text != cell.input:
            cell.input = text
            ctx.session.add(cell)
    found.name = new_name
    ctx.session.add(found)
    return _saved(ctx, item, role, found)


@ops.write
def delete_tab(ctx: Ctx, file_id: int, tab: str) -> s.Spreadsheet:
    """Delete a tab and its cells. Formulas elsewhere that read it show #REF!. A spreadsheet keeps one tab at least.

    Args:
        file_id: Id of the spreadsheet.
        tab: The name of the tab to delete.
    """
    item, role = editable(ctx, file_id, "spreadsheet")
    tabs = _materialised(ctx, item)
    found = next(t for t in tabs if t.sheet_id == sheets.find_tab(ctx.session, item.id, tab).sheet_id)
    if len(tabs) == 1:
        raise Conflict(f"tab: {found.name!r} is the only tab of {item.name!r}; a spreadsheet needs one", field="tab")
    ctx.session.exec(delete(m.Cell).where(col(m.Cell.item_id) == item.id, col(m.Cell.tab) == found.sheet_id))
    ctx.session.delete(found)
    rest = [t for t in tabs if t is not found]
    _place(rest, rest[0], 0)
    return _saved(ctx, item, role, rest[0])


@ops.write
def move_tab(ctx: Ctx, file_id: int, tab: str, index: int) -> s.Spreadsheet:
    """Move a tab to another place among the tabs.

    Args:
        file_id: Id of the spreadsheet.
        tab: The tab's name.
        index: Its new place, 0 for first (past the end: last).
    """
    item, role = editable(ctx, file_id, "spreadsheet")
    tabs = _materialised(ctx, item)
    found = next(t for t in tabs if t.sheet_id == sheets.find_tab(ctx.session, item.id, tab).sheet_id)
    _place(tabs, found, index)
    return _saved(ctx, item, role, found)

