"""Docs: a Google Drive / Docs clone. My Drive and shared drives, documents, spreadsheets and uploads,
sharing roles, comments, revision history and full-text search."""

from pathlib import Path

from apps.docs import (
    comments,
    editing,
    models,
    operations,
    organising,
    revisions,
    sharing,
    tabs,
)
from apps.docs.seed import seed
from apps.docs.world import DocsSection
from apps.kit import App, OperationSet

APP = App(
    name="docs",
    title="Docs",
    operations=(OperationSet("docs").include(operations.ops).include(organising.ops).include(editing.ops)
                .include(revisions.ops).include(sharing.ops).include(comments.ops)
                .include(tabs.ops)),
    tables=models.TABLES,
    ddl=models.DDL,
    seed=seed,
    source_dir=Path(__file__).parent,
    world=DocsSection(),
)
