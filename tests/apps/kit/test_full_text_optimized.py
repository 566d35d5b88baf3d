"""A compiled world's full-text indexes are merged into one segment (``optimize_full_text``), so that an episode's
first write does not merge what seeding left; searches find what they found before."""

from apps.kit.app import optimize_full_text
from apps.kit.database import AppDatabase
from apps.kit.fulltext import fts5_index
from simulator.store.registry import APPS, world_sections
from worlds import load_world


def _index_blocks(db: AppDatabase, index: str) -> list[tuple]:
    return db.conn.execute(f"select id, block from {index}_data order by id").fetchall()


def _notes() -> AppDatabase:
    db = AppDatabase.empty()
    db.execute_script(["create table note (id integer primary key, body text)",
                       *fts5_index("note", {"body": "new.body"})])
    for batch in range(6):   # each transaction flushes a segment of its own
        db.conn.executemany("insert into note (body) values (?)",
                            [(f"renewal note {batch} {i}",) for i in range(50)] + [(f"other {batch}",)])
        db.conn.commit()
    return db


def _found(db: AppDatabase, query: str) -> list[int]:
    return [r for (r,) in db.conn.execute("select rowid from note_fts where note_fts match ? order by rank, rowid",
                                          (query,))]


def test_optimizing_merges_the_segments_and_finds_the_same_rows():
    db = _notes()
    blocks, found = _index_blocks(db, "note_fts"), _found(db, "renewal")
    optimize_full_text(db)
    merged = _index_blocks(db, "note_fts")
    assert len(merged) < len(blocks) and _found(db, "renewal") == found and len(found) == 300
    optimize_full_text(db)
    assert _index_blocks(db, "note_fts") == merged   # one segment already: nothing left to merge


def test_a_built_world_has_its_indexes_merged(store):
    """acme's docs, as seeded, hold their index in several segments (its first write merged them, untouched)."""
    world = load_world(store.world("acme").root, world_sections(APPS))
    db = AppDatabase.from_image(APPS["docs"].build(world).image())
    built = _index_blocks(db, "docs_item_fts")
    optimize_full_text(db)
    assert built and _index_blocks(db, "docs_item_fts") == built
