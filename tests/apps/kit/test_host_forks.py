"""Forks share their parent's database until one of them writes; each still sees only its own writes."""

from apps.kit.invoker import invoke


def _labels(store, episode, message_id=1):
    return invoke(episode, store.apps["mail"].operations["get_message"], {"message_id": message_id},
                  "python").result["labels"]


def _star(store, episode, op="star"):
    step = invoke(episode, store.apps["mail"].operations[op], {"message_ids": [1]}, "python")
    assert step.error is None, step.error
    return step


def test_forks_copy_on_write_and_never_see_each_others_writes(store, world_dir):
    parent = store.create(str(world_dir))
    _star(store, parent, "unstar")
    host = parent.hosts["mail"]
    first, second = store.fork(parent.id), store.fork(parent.id)
    assert host.shared(first.id) is host.shared(parent.id) is host.shared(second.id)
    assert "STARRED" not in _labels(store, first)

    assert _star(store, first).state_changed
    assert host.shared(first.id) is not host.shared(parent.id)
    assert "STARRED" in _labels(store, first)
    assert "STARRED" not in _labels(store, parent) and "STARRED" not in _labels(store, second)

    grandchild = store.fork(second.id)
    store.delete(second.id)
    assert "STARRED" not in _labels(store, grandchild)
    _star(store, parent)
    assert "STARRED" in _labels(store, parent) and "STARRED" not in _labels(store, grandchild)
    assert first.digest() == parent.digest() != grandchild.digest()
    _star(store, grandchild)
    assert grandchild.digest() == parent.digest()
    assert not host._sharing
