"""Fresh episodes read the world's pristine database until they write; a write never reaches another episode."""

from apps.kit.invoker import invoke


def _call(store, episode, op, args):
    step = invoke(episode, store.apps["mail"].operations[op], args, "python")
    assert step.error is None, step.error
    return step


def _starred(store, episode) -> bool:
    return "STARRED" in _call(store, episode, "get_message", {"message_id": 1}).result["labels"]


def test_readers_share_the_pristine_database_and_a_writer_gets_its_own(store, world_dir):
    first, second = store.create(str(world_dir)), store.create(str(world_dir))
    host = first.hosts["mail"]
    was_starred = _starred(store, first)
    assert _starred(store, second) == was_starred
    pristine = host.shared(first.id)
    assert pristine is host.shared(second.id) and pristine.pristine
    untouched = first.digest()

    assert _call(store, first, "unstar" if was_starred else "star", {"message_ids": [1]}).state_changed
    own = host.shared(first.id)
    assert own is not pristine and not own.pristine and host.shared(second.id) is pristine
    assert _starred(store, first) != was_starred and _starred(store, second) == was_starred
    assert first.digest() != untouched == second.digest() == store.create(str(world_dir)).digest()

    child = store.fork(second.id)             # a fork of a reader reads the pristine database too
    assert host.shared(child.id) is pristine
    store.delete(second.id)
    store.delete(child.id)
    third = store.create(str(world_dir))      # closing readers never closes the world's copy
    assert _starred(store, third) == was_starred and host.shared(third.id) is pristine


def test_an_episode_read_through_db_gets_its_own_copy_and_restore_its_own_state(store, world_dir):
    episode, other = store.create(str(world_dir)), store.create(str(world_dir))
    _starred(store, episode)
    _starred(store, other)
    db = episode.db("mail")                   # what tests and graders read or write directly
    assert not db.pristine and db is episode.db("mail")
    db.conn.execute("delete from mail_entry_label where entry_id = 1")
    db.conn.commit()
    assert _call(store, other, "get_message", {"message_id": 1}).result["labels"]
    assert not _call(store, episode, "get_message", {"message_id": 1}).result["labels"]
    snapshot = other.snapshot()
    episode.restore(snapshot)
    assert episode.digest() == other.digest() and not episode.hosts["mail"].shared(episode.id).pristine
