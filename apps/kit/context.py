"""What an operation receives besides its arguments."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Any, Sequence

from sqlmodel import Session

from apps.kit.peers import Peers

if TYPE_CHECKING:
    from apps.kit.database import AppDatabase
    from worlds.model import WorldInfo


class Ctx:
    """The injected first argument of every operation; never part of any schema.

    ``actor`` is the acting person's address; ``now`` is the episode's virtual time (aware, UTC);
    ``world`` is the world's ``WorldInfo``; ``peers`` takes requests for other apps' operations, run
    after this call commits (``apps.kit.peers``). The episode's database for this app is reachable two ways
    over one SQLite connection, so both see one transaction:

    - ``session``: an SQLModel session, made on first use (most operations);
    - ``sql`` (the connection) / ``row`` / ``rows``: plain SQL with bound parameters, for hot paths where the ORM's
      ~100 µs a statement is most of the call. They flush the session first (when there is one) so
      they see its pending changes; write with them only rows the session has not loaded.
    """

    __slots__ = ("db", "actor", "now", "world", "episode_id", "peers", "_session")

    def __init__(self, db: AppDatabase, actor: str, now: datetime, world: WorldInfo, episode_id: str):
        self.db = db
        self.actor = actor
        self.now = now
        self.world = world
        self.episode_id = episode_id
        self.peers = Peers()
        self._session: Session | None = None

    @property
    def session(self) -> Session:
        if self._session is None:
            self._session = self.db.session()
        return self._session

    @property
    def sql(self) -> sqlite3.Connection:
        """The database's connection for plain SQL (tuples), after flushing the session if there is one."""
        if self._session is not None:
            self._session.flush()
        return self.db.conn

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Every row of a query, readable by column name (``row["subject"]``) or position."""
        cursor = self.sql.cursor()
        cursor.row_factory = sqlite3.Row
        return cursor.execute(sql, params).fetchall()

    def row(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        cursor = self.sql.cursor()
        cursor.row_factory = sqlite3.Row
        return cursor.execute(sql, params).fetchone()

    def finish(self, commit: bool) -> None:
        """End the call's transaction: commit, or roll back everything it did."""
        session, self._session = self._session, None
        if session is not None:
            try:
                session.commit() if commit else session.rollback()
            finally:
                session.close()
        elif commit:
            self.db.conn.commit()
        elif self.db.conn.in_transaction:
            self.db.conn.rollback()
