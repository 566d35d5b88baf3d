"""Docs operations over version history: list revisions, read an old one, restore it.

Every edit of a document or spreadsheet saves a revision (who, when by the virtual clock).
Restoring an old revision saves it again as the newest, so nothing is lost. As in Drive, version
history is open to the file's editors.
"""

from __future__ import annotations

from sqlmodel import col, select

from apps.docs import access, editing, sheets, store
from apps.docs import models as m
from apps.docs import schemas as s
from apps.kit import Ctx, Invalid, NotFound, OperationSet

ops = OperationSet("docs")


def _history(ctx: Ctx, file_id: int, action: str) -> tuple[m.Item, str, list[m.Revision]]:
    item, role = access.require(ctx, file_id, "editor", action)
    if item.kind not in ("document", "spreadsheet"):
        raise Invalid(f"file_id: {item.name!r} is a {item.kind}; only documents and spreadsheets keep revisions",
                      field="file_id")
    found = ctx.session.exec(select(m.Revision).where(m.Revision.item_id == item.id).order_by(col(m.Revision.number)))
    return item, role, list(found)


def _pick(revisions: list[m.Revision], number: int) -> m.Revision:
    for revision in revisions:
        if revision.number == number:
            return revision
    raise NotFound(f"no revision {number}; this file has revisions 1 to {len(revisions)}", field="revision_number")


def _info(revision: m.Revision, latest: int) -> dict:
    return dict(id=revision.id, number=revision.number, author=revision.author,
                created_at=store.utc(revision.created_at), current=revision.number == latest)


@ops.read
def list_revisions(ctx: Ctx, file_id: int) -> list[s.RevisionInfo]:
    """List the revisions of a document or spreadsheet, newest first: who saved each and when.

    Args:
        file_id: Id of the document or spreadsheet.
    """
    _, _, revisions = _history(ctx, file_id, "see its version history")
    latest = revisions[-1].number if revisions else 0
    return [s.RevisionInfo(**_info(r, latest)) for r in reversed(revisions)]


@ops.read
def get_revision(ctx: Ctx, file_id: int, revision_number: int) -> s.RevisionContent:
    """Read an old revision: a document's Markdown, or a spreadsheet's cells as CSV of what was typed.

    Args:
        file_id: Id of the document or spreadsheet.
        revision_number: The revision's number (from list_revisions).
    """
    item, _, revisions = _history(ctx, file_id, "see its version history")
    revision = _pick(revisions, revision_number)
    content = revision.content if item.kind == "document" else _inputs(revision.content)
    return s.RevisionContent(**_info(revision, revisions[-1].number), file_id=item.id, content=content)


@ops.write
def restore_revision(ctx: Ctx, file_id: int, revision_number: int) -> s.FileContent:
    """Bring back an old revision as the current content (saved as a new revision).

    Args:
        file_id: Id of the document or spreadsheet.
        revision_number: The revision to bring back (from list_revisions).
    """
    item, _, revisions = _history(ctx, file_id, "restore a revision")
    item, role = editing.editable(ctx, file_id, item.kind)
    revision = _pick(revisions, revision_number)
    if item.kind == "document":
        return editing.save_text(ctx, item, role, revision.content)
    sheets.restore(ctx.session, item, revision.content, (ctx.now, ctx.world.timezone))
    store.touch(ctx, item)
    saved = store.add_revision(ctx.session, item, ctx.actor, ctx.now, revision.content)
    return s.FileContent(file=store.summary(ctx.session, item, ctx.actor, role), encoding="text",
                         content=item.body, revision=saved.number)


def _inputs(content: str) -> str:
    """A spreadsheet revision as CSV of what was typed: with several tabs, each under '# name'."""
    tabs = sheets.tab_grids(content)
    if len(tabs) == 1:
        return sheets.inputs_csv(tabs[0][1])
    return "\n".join(f"# {name}\n{sheets.inputs_csv(grid)}" for name, grid in tabs)
