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
