"""``AppDatabase.digest``: equal content, equal digest; kept between writes, computed again after any."""

from apps.kit.database import AppDatabase


def _database() -> AppDatabase:
    db = AppDatabase.empty()
    db.execute_script(["create table item (id integer primary key, name text)",
                       "create table log (item integer)",
                       "create trigger logged after update on item begin insert into log values (new.id); end"])
    db.conn.executemany("insert into item (name) values (?)", [("a",), ("b",)])
    db.conn.commit()
    return db


def test_the_digest_follows_every_write_and_not_row_order():
    db, other = _database(), AppDatabase.empty()
    other.execute_script(["create table item (id integer primary key, name text)", "create table log (item integer)"])
    other.conn.executemany("insert into item (id, name) values (?, ?)", [(2, "b"), (1, "a")])
    other.conn.commit()
    assert db.digest() == other.digest()
    first = db.digest()
    db.conn.execute("update item set name = 'c' where id = 1")
    db.conn.commit()
    changed = db.digest()
    assert changed != first   # the row and the trigger's log row
    db.conn.execute("update item set name = 'a' where id = 1")
    db.conn.execute("delete from log")
    db.conn.commit()
    assert db.digest() == first


def test_a_rolled_back_write_leaves_the_digest_it_had():
    db = _database()
    first = db.digest()
    db.conn.execute("delete from item")
    assert db.digest() != first   # the connection sees its own uncommitted change
    db.conn.rollback()
    assert db.digest() == first


def test_a_clone_has_the_digest_and_its_own_cache():
    db = _database()
    copy = db.clone()
    assert copy.digest() == db.digest()
    copy.conn.execute("insert into item (name) values ('z')")
    copy.conn.commit()
    assert copy.digest() != db.digest()


def test_databases_compile_a_statement_once_between_them_and_each_writes_only_its_own():
    """Every database's engine shares the dialect and the compiled-statement cache (``engine_over``): the second
    database runs the first one's statement without compiling it again, on its own connection."""
    from sqlalchemy import Column, Integer, MetaData, String, Table, insert, select

    table = Table("item", MetaData(), Column("id", Integer, primary_key=True), Column("name", String))
    first, second = _database(), _database()
    ran = []
    for db, name in ((first, "x"), (second, "y")):
        with db.engine.begin() as conn:
            conn.execute(insert(table).values(name=name))
            result = conn.execute(select(table.c.name).where(table.c.name.regexp_match("^[xy]$")))
            ran.append((result.scalars().all(), result.context.cache_hit.name))
    assert first.engine.dialect is second.engine.dialect
    assert ran[0][0] == ["x"] and ran[1][0] == ["y"]   # each connection saw only its own row
    assert ran[1][1] == "CACHE_HIT"   # compiled once, for the first database; REGEXP set up on both connections
