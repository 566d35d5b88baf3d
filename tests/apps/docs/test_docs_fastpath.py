"""The plain-SQL ``get_file`` gives what the ORM path gives, errors included, for every item and person."""

import pytest

from apps.docs import access, fastpath
from apps.docs import search as finder
from apps.kit import Ctx, OpError
from apps.kit.invoker import invoke


def _orm(ctx, file_id):
    item, role = access.require(ctx, file_id, "viewer", "see it")
    return finder.detail(ctx, item, role)


def _outcome(fn, ctx, file_id):
    try:
        return fn(ctx, file_id).model_dump(mode="json")
    except OpError as exc:
        return exc.to_dict()
    finally:
        ctx.finish(commit=False)


@pytest.mark.parametrize("world", ["acme", "small"])
def test_get_file_matches_the_orm_path_for_every_item_and_person(store, world_dir, world):
    episode = store.create("acme" if world == "acme" else str(world_dir))
    db, info = episode.db("docs"), episode.world.info
    ids = [i for (i,) in db.conn.execute("select id from docs_item order by id")]
    assert ids
    kinds: dict[str, int] = {}
    for person in [p.email for p in info.people][:8]:
        for file_id in [*ids, max(ids) + 1]:
            expected = _outcome(_orm, Ctx(db, person, episode.clock.now(), info, episode.id), file_id)
            assert _outcome(fastpath.file_detail, Ctx(db, person, episode.clock.now(), info, episode.id),
                            file_id) == expected
            kind = "ok" if "id" in expected else expected["type"]
            kinds[kind] = kinds.get(kind, 0) + 1
    assert kinds.get("ok") and kinds.get("not_found") and kinds.get("forbidden")


def test_get_file_after_sharing_trashing_and_starring(store, world_dir):
    episode = store.create(str(world_dir))
    docs = store.apps["docs"].operations
    info = episode.world.info
    mine = [f["id"] for f in invoke(episode, docs["list_view"], {"view": "my_drive"}, "python").result["files"]]
    other = next(p.email for p in info.people if p.email != episode.actor)
    for file_id in mine[:3]:
        assert invoke(episode, docs["share"], {"file_id": file_id, "email": other, "role": "commenter"},
                      "python").error is None
        assert invoke(episode, docs["star"], {"file_id": file_id}, "python").error is None
    assert invoke(episode, docs["trash"], {"file_id": mine[0]}, "python").error is None
    db = episode.db("docs")
    for person in (episode.actor, other):
        for file_id in mine:
            ctx = Ctx(db, person, episode.clock.now(), info, episode.id)
            assert _outcome(fastpath.file_detail, ctx, file_id) == _outcome(_orm, ctx, file_id)
