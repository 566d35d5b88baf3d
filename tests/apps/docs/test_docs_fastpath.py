"""The plain-SQL ``get_file`` and ``read_file`` give what the ORM paths give, errors included, in field order,
for every item and person."""

import json

import pytest

from apps.docs import access, fastpath
from apps.docs import schemas as s
from apps.docs import search as finder
from apps.docs import store as docs_store
from apps.kit import Ctx, Invalid, OpError
from apps.kit.content import encode
from apps.kit.invoker import invoke
from apps.kit.wire import Wire


def _orm(ctx, file_id):
    item, role = access.require(ctx, file_id, "viewer", "see it")
    return finder.detail(ctx, item, role)


def _orm_read(ctx, file_id):
    """``read_file`` as the ORM path read it."""
    item, role = access.require(ctx, file_id, "viewer", "read it")
    if item.kind == "folder":
        raise Invalid(f"file_id: {item.name!r} is a folder; use list_folder", field="file_id")
    encoding, content = encode(item.content) if item.kind == "file" else ("text", item.body)
    return s.FileContent(file=docs_store.summary(ctx.session, item, ctx.actor, role), encoding=encoding,
                         content=content, revision=docs_store.current_revision(ctx.session, item.id))


def _outcome(fn, ctx, file_id):
    """The dumped result (a plain-SQL path's ``Wire`` as it is) or the error, as JSON text: key order counts."""
    try:
        result = fn(ctx, file_id)
        return json.dumps(result.data if isinstance(result, Wire) else result.model_dump(mode="json"))
    except OpError as exc:
        return json.dumps(exc.to_dict())
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
            for fast, orm in ((fastpath.file_detail, _orm), (fastpath.content, _orm_read)):
                expected = _outcome(orm, Ctx(db, person, episode.clock.now(), info, episode.id), file_id)
                assert _outcome(fast, Ctx(db, person, episode.clock.now(), info, episode.id), file_id) == expected
                found = json.loads(expected)
                kind = found["encoding"] if "encoding" in found else "ok" if "id" in found else found["type"]
                kinds[kind] = kinds.get(kind, 0) + 1
    assert kinds.get("ok") and kinds.get("not_found") and kinds.get("forbidden") and kinds.get("invalid")
    assert kinds.get("text")


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
    uploads = [invoke(episode, docs["upload_file"], args, "python").result["id"] for args in (
        {"name": "logo.png", "content_base64": "iVBORw0KGgoAAAANSUhEUgAA/w=="},   # not UTF-8: base64
        {"name": "notes.txt", "text": "plain words"}, {"name": "empty.bin", "content_base64": ""})]
    db = episode.db("docs")
    encodings = set()
    for person in (episode.actor, other):
        for file_id in [*mine, *uploads]:
            ctx = Ctx(db, person, episode.clock.now(), info, episode.id)
            assert _outcome(fastpath.file_detail, ctx, file_id) == _outcome(_orm, ctx, file_id)
            expected = _outcome(_orm_read, ctx, file_id)
            assert _outcome(fastpath.content, ctx, file_id) == expected
            encodings.add(json.loads(expected).get("encoding"))
    assert {"text", "base64"} <= encodings


def test_the_walked_chain_is_the_recursive_statements_even_for_a_loop_or_a_missing_parent(store):
    episode = store.create("acme")
    db, info = episode.db("docs"), episode.world.info
    ctx = Ctx(db, info.people[0].email, episode.clock.now(), info, episode.id)
    ids = [i for (i,) in db.conn.execute("select id from docs_item order by id")]
    depths = set()
    for item_id in ids:
        walked = fastpath.chain(ctx, item_id, "file_id")
        assert walked == db.conn.execute(fastpath._CHAIN, (item_id,)).fetchall()
        depths.add(len(walked))
    assert {1, 2, 3} <= depths
    folder, child = db.conn.execute("select parent_id, id from docs_item where parent_id is not null").fetchone()
    db.conn.execute("update docs_item set parent_id = ? where id = ?", (child, folder))   # a loop of two folders
    looped = fastpath.chain(ctx, child, "file_id")
    assert len(looped) == fastpath._DEEPEST + 1 and looped == db.conn.execute(fastpath._CHAIN, (child,)).fetchall()
    db.conn.execute("update docs_item set parent_id = ? where id = ?", (max(ids) + 7, folder))   # a parent gone
    assert fastpath.chain(ctx, child, "file_id") == db.conn.execute(fastpath._CHAIN, (child,)).fetchall()
    with pytest.raises(OpError, match="no file or folder"):
        fastpath.chain(ctx, max(ids) + 1, "file_id")
    db.conn.rollback()
