"""An app as the kit sees it: its name, operations, tables and how to seed them from a world."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from sqlalchemy import Table
from sqlmodel import Session, SQLModel

from apps.kit import changes
from apps.kit.database import AppDatabase
from apps.kit.operation import OperationSet

if TYPE_CHECKING:
    from worlds.model import World
    from worlds.sections import WorldSection

# What the kit adds to every app's database (the change log); part of the compile cache key.
SCHEMA_VERSION = "kit-schema-3: full-text indexes optimized"


@dataclass
class App:
    """Everything the kit needs to serve one app.

    ``tables`` are the app's SQLModel table classes; ``ddl`` adds what SQLModel cannot express
    (full-text indexes and their triggers); ``seed`` fills a fresh database from a loaded world.
    ``world`` is the app's own section of a world (a ``worlds.sections.WorldSection``: read, check,
    write, generate), for apps whose data ``worlds/`` does not hold; the seeder finds its data in
    ``world.sections[name]``.
    """

    name: str
    title: str
    operations: OperationSet
    tables: list[type[SQLModel]]
    seed: Callable[[Session, World], None]
    source_dir: Path
    ddl: list[str] = field(default_factory=list)
    world: WorldSection | None = None
    service: bool = True  # runs as its own app service under compose; False: always in the gateway

    def build(self, world: World) -> AppDatabase:
        """Create the app's pristine database for a world."""
        db = AppDatabase.empty()
        SQLModel.metadata.create_all(db.engine, tables=[_table(t) for t in self.tables])
        db.execute_script(self.ddl)
        with db.session() as session:
            self.seed(session, world)
            session.commit()
        changes.install(db.conn, [_table(t).name for t in self.tables])
        optimize_full_text(db)
        db.conn.execute("vacuum")
        return db

    def code_hash(self) -> str:
        """A digest of the app's source: a change to its models or seeding invalidates compiled worlds."""
        digest = hashlib.sha256(SCHEMA_VERSION.encode())
        for path in sorted(self.source_dir.rglob("*.py")):
            digest.update(path.read_bytes())
        return digest.hexdigest()[:16]


def optimize_full_text(db: AppDatabase) -> None:
    """Merge each full-text index into one segment. Seeding leaves an index in many, and every episode's first
    write into the app merged them again when its insert reached FTS5's automerge threshold (``acme``'s docs:
    35 index blocks down to 23 at each episode's first document: 1.7 M of the 2.4 M instructions it ran beyond
    a later one once its clone was made and its schema read, ~0.3 ms); searches find the same rows, ranked the
    same."""
    indexes = [name for (name,) in db.conn.execute(
        "select name from sqlite_master where type = 'table' and sql like 'create virtual table % using fts5%'")]
    for index in indexes:
        db.conn.execute(f'insert into "{index}" ("{index}") values (\'optimize\')')
    db.conn.commit()


def _table(model: type[SQLModel]) -> Table:
    """A table class's table (SQLModel sets ``__table__`` on table classes; its types do not declare it)."""
    table: Table = getattr(model, "__table__")
    return table
