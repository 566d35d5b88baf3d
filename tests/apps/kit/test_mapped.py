"""A pristine database's clones map its image (``apps.kit.mapped``): each is independent, grows as a copy would,
and gives its mapping back when it closes; where no mapping can be made, clones copy the image as before."""

import gc
import sqlite3

import pytest

from apps.kit import mapped
from apps.kit.database import AppDatabase

needs_mapping = pytest.mark.skipif(not mapped.available(), reason="clones map images only on Linux with CPython")


def _pristine() -> AppDatabase:
    db = AppDatabase.empty()
    db.execute_script(["create table item (id integer primary key, name text)",
                       "create index item_name on item (name)"])
    db.conn.executemany("insert into item (name) values (?)", [(f"item {i}",) for i in range(2000)])
    db.conn.commit()
    return AppDatabase.from_image(db.image(), pristine=True)


def _names(db: AppDatabase) -> list[str]:
    return [name for (name,) in db.conn.execute("select name from item where id in (1, 2) order by id")]


@needs_mapping
def test_clones_map_the_image_and_keep_their_writes_to_themselves():
    pristine = _pristine()
    first, second = pristine.clone(), pristine.clone()
    assert isinstance(first.conn, mapped.MappedConnection) and first.digest() == pristine.digest()
    first.conn.execute("update item set name = 'renamed' where id = 1")
    first.conn.executemany("insert into item (name) values (?)", [("x" * 2000,)] * 3000)   # grows past the image
    first.conn.commit()
    assert _names(first) == ["renamed", "item 1"]
    assert _names(second) == _names(pristine) == ["item 0", "item 1"]
    assert second.digest() == pristine.digest() != first.digest()
    assert AppDatabase.from_image(first.image()).digest() == first.digest()   # snapshots copy what it holds


@needs_mapping
def test_closing_a_clone_gives_its_mapping_back_even_mid_transaction():
    pristine = _pristine()
    gc.collect()   # other tests' clones, dropped unclosed, unmap when collected
    before = mapped._mapped
    clone = pristine.clone()
    clone.session().close()   # an engine over it, which closing disposes of
    clone.conn.execute("delete from item")
    assert mapped._mapped == before + 1 and clone.conn.in_transaction
    clone.close()
    assert mapped._mapped == before
    with pytest.raises(sqlite3.ProgrammingError):
        clone.conn.execute("select 1")
    assert pristine.clone().conn.execute("select count(*) from item").fetchone() == (2000,)


@needs_mapping
def test_a_clone_is_full_at_the_cap_as_an_in_memory_copy_is(monkeypatch):
    monkeypatch.setattr(mapped, "CAP", 1 << 20)
    clone = _pristine().clone()
    with pytest.raises(sqlite3.OperationalError, match="full"):
        clone.conn.executemany("insert into item (name) values (?)", [("x" * 2000,)] * 1000)
    clone.conn.rollback()
    assert _names(clone) == ["item 0", "item 1"]   # and it goes on answering
    clone.close()


def test_without_a_mapping_a_clone_is_a_copy(monkeypatch):
    monkeypatch.setattr(mapped, "_BUDGET", mapped._mapped)   # no mapping left to make (or none possible here)
    pristine = _pristine()
    clone = pristine.clone()
    assert type(clone.conn) is sqlite3.Connection and clone.digest() == pristine.digest()
    clone.conn.execute("delete from item")
    clone.conn.commit()
    assert _names(pristine) == ["item 0", "item 1"] and not _names(clone)
    clone.close()


def test_without_a_memory_file_a_clone_is_a_copy(monkeypatch):
    def refused(image: bytes) -> int:
        raise OSError(24, "Too many open files")
    monkeypatch.setattr(mapped, "_written", refused)
    pristine = _pristine()
    clone = pristine.clone()
    assert type(clone.conn) is sqlite3.Connection and clone.digest() == pristine.digest()
    clone.close()
