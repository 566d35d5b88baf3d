"""One app's state for one episode: an SQLite database in memory, cheap to clone, copy and digest."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from datetime import date, datetime, timezone
from typing import Any, Iterable

from sqlalchemy import Engine, create_engine
from sqlalchemy.pool import StaticPool
from sqlalchemy.util import LRUCache
from sqlmodel import Session

from apps.kit.mapped import Image

# Tables whose content derives from others (full-text indexes) stay out of the digest.
DERIVED_SUFFIXES = ("_fts", "_fts_data", "_fts_idx", "_fts_content", "_fts_docsize", "_fts_config")


class AppDatabase:
    """An in-memory SQLite database with an SQLModel session factory over its one connection."""

    def __init__(self, conn: sqlite3.Connection, pristine: bytes | None = None):
        self.conn = conn
        # For a world's own copy, shared by episodes that only read and never written: the image it was
        # loaded from, which clones map (``_mapped``, a memory file made for the first) or else copy directly
        # (no serialising, no second buffer to give back).
        self._pristine = pristine
        self._mapped: Image | None = None
        self._engine: Engine | None = None
        self._digest: tuple[int, str] | None = None   # (total_changes when computed, digest)

    @classmethod
    def empty(cls) -> "AppDatabase":
        return cls(sqlite3.connect(":memory:", check_same_thread=False))

    @classmethod
    def from_image(cls, image: bytes, pristine: bool = False) -> "AppDatabase":
        """Load a database from ``image()`` bytes; the copy is independent of the original. A ``pristine``
        one is a world's own copy, which episodes share to read and clone before they write."""
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.deserialize(image)
        return cls(conn, image if pristine else None)

    @property
    def pristine(self) -> bool:
        return self._pristine is not None

    def image(self) -> bytes:
        return self.conn.serialize()

    def clone(self) -> "AppDatabase":
        """An independent copy. A pristine one's clones share its pages until they write (``apps.kit.mapped``);
        any other's, and where mapping cannot work, are copied whole."""
        if self._pristine is None:
            return AppDatabase.from_image(self.image())
        if self._mapped is None:
            self._mapped = Image(self._pristine)
        conn = self._mapped.connect()
        return AppDatabase(conn) if conn is not None else AppDatabase.from_image(self._pristine)

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            self._engine = engine_over(self.conn)
        return self._engine

    def session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def changes(self) -> int:
        """A counter of rows written so far; it moves exactly when a statement changed state."""
        return self.conn.total_changes

    def execute_script(self, statements: Iterable[str]) -> None:
        for statement in statements:
            self.conn.executescript(statement)
        self.conn.commit()
        self._digest = None   # schema statements do not move total_changes

    def digest(self) -> str:
        """The content digest, computed again only after a write: ``total_changes`` moves with every row
        inserted, updated or deleted on this connection (by triggers too, and also when rolled back)."""
        if self.conn.in_transaction:   # a rollback would not move the counter: no caching of what may vanish
            return digest_connection(self.conn)
        changes = self.conn.total_changes
        if self._digest is None or self._digest[0] != changes:
            self._digest = (changes, digest_connection(self.conn))
        return self._digest[1]

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
        self.conn.close()


# SQLAlchemy caches each statement's compiled SQL per engine, keyed by the engine's dialect: with an engine of
# its own per database, every episode's database compiled every statement it ran again (a third of a write
# mix's server time in the load bench, three compilations a call). So every database's engine shares one
# dialect and one cache (``engine_over``); the compiled SQL depends on the dialect only, never the connection.
_shared: tuple[Engine, LRUCache] | None = None
_shared_lock = threading.Lock()
CACHED_STATEMENTS = 5000   # every app's statements, many times over (SQLAlchemy's default is 500 per engine)


def _template() -> tuple[Engine, LRUCache]:
    """The engine whose dialect (initialized on its first connection) and pool events every database's reuses."""
    global _shared
    with _shared_lock:
        if _shared is None:
            base = sqlite3.connect(":memory:", check_same_thread=False)
            engine = create_engine("sqlite://", creator=lambda: base, poolclass=StaticPool, query_cache_size=0)
            with engine.connect():   # initializes the dialect (a first-connect event, once)
                pass
            _shared = engine, LRUCache(CACHED_STATEMENTS)
        return _shared


def engine_over(conn: sqlite3.Connection) -> Engine:
    """An engine over ``conn`` alone that shares the template's dialect, its per-connection setup (the pool's
    connect events, e.g. SQLite's REGEXP) and the compiled statement cache."""
    template, cache = _template()
    def creator() -> Any:   # a DB-API connection (SQLAlchemy's type names its own protocol)
        return conn
    pool = StaticPool(creator, _dispatch=template.pool.dispatch, dialect=template.dialect)
    return Engine(pool, template.dialect, template.url, query_cache_size=0,
                  execution_options={"compiled_cache": cache})


def digest_connection(conn: sqlite3.Connection) -> str:
    """SHA-256 over every row of every table, independent of row and table order."""
    tables = [r[0] for r in conn.execute(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")]
    total = hashlib.sha256()
    for table in tables:
        if table.endswith(DERIVED_SUFFIXES) or table == "kit_changes":
            continue
        rows = sorted(repr(row).encode() for row in conn.execute(f'select * from "{table}"'))
        total.update(table.encode() + b"\0" + hashlib.sha256(b"\n".join(rows)).digest())
    return total.hexdigest()


def stored_time(moment: datetime) -> str:
    """A time as the ORM stores it in SQLite (UTC, without its zone), for plain SQL that writes one."""
    return (moment.astimezone(timezone.utc) if moment.tzinfo else moment).strftime("%Y-%m-%d %H:%M:%S.%f")


def utc_time(text: str | None) -> datetime | None:
    """A time column read with plain SQL, as the ORM gives it: aware, in UTC (stored without its zone)."""
    return None if text is None else datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def day(text: str | None) -> date | None:
    """A date column read with plain SQL."""
    return None if text is None else date.fromisoformat(text)
