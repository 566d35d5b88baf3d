"""The plain-SQL ``create_document`` and ``append_to_document`` (``apps.docs.fastwrite``) write what the ORM paths
write (the rows, and the change log's list of them) and give what they give, errors included, in field order."""

import json

from written import written

from apps.docs import editing, organising
from apps.kit import Ctx
from apps.kit.database import stored_time
from apps.kit.invoker import invoke


def _kind(found: str) -> str:
    outcome = json.loads(found)[0]
    return outcome["type"] if "message" in outcome else "ok"


def _prepared(store):
    """acme, with documents starred, shared and in the trash (a document, and a folder holding some)."""
    episode = store.create("acme")
    docs = store.apps["docs"].operations
    conn = episode.db("docs").conn
    documents = [i for (i,) in conn.execute("select id from docs_item where kind = 'document' order by id")]
    folder, owner = conn.execute("select i.id, i.owner from docs_item i where kind = 'folder' and owner is not null"
                                 " and exists(select 1 from docs_item d where d.parent_id = i.id"
                                 " and d.kind = 'document') order by id").fetchone()
    for args, actor in [({"file_id": documents[0]}, None), ({"file_id": documents[1]}, None)]:
        assert invoke(episode, docs["star"], args, "python", actor=actor).error is None
    mine = invoke(episode, docs["create_document"], {"name": "Mine", "text": "words\n"}, "python").result["id"]
    shared = invoke(episode, docs["create_document"], {"name": "Shared", "text": ""}, "python").result["id"]
    gone = invoke(episode, docs["create_document"], {"name": "Gone", "text": "x"}, "python").result["id"]
    other = next(p.email for p in episode.world.info.people if p.email != episode.actor)
    for call, args in [("share", {"file_id": shared, "email": other, "role": "editor"}), ("star", {"file_id": mine}),
                       ("trash", {"file_id": gone})]:
        assert invoke(episode, docs[call], args, "python").error is None
    assert invoke(episode, docs["trash"], {"file_id": folder}, "python", actor=owner).error is None
    return episode


def test_append_to_document_writes_and_gives_what_the_orm_path_does_for_every_item_and_person(store):
    episode = _prepared(store)
    db, info = episode.db("docs"), episode.world.info
    ids = [i for (i,) in db.conn.execute("select id from docs_item order by id")]
    people = [episode.actor, *[p.email for p in info.people if p.email != episode.actor][:5]]
    kinds: dict[str, int] = {}
    for person in people:
        for file_id in [*ids, max(ids) + 1]:
            for text in ("Next step: send the revised proposal.", " \n") if file_id in ids[-5:] else ("More.",):
                ctx = Ctx(db, person, episode.clock.now(), info, episode.id)
                expected = written(editing._append, ctx, file_id, text)
                assert written(editing.append_to_document, ctx, file_id, text) == expected
                kinds[_kind(expected)] = kinds.get(_kind(expected), 0) + 1
    assert {"ok", "forbidden", "invalid", "conflict", "not_found"} <= set(kinds)
    assert kinds["ok"] > 20


def test_create_document_writes_and_gives_what_the_orm_path_does(store):
    episode = _prepared(store)
    db, info = episode.db("docs"), episode.world.info
    conn = db.conn
    folder = conn.execute("select id from docs_item where kind = 'folder' and trashed_at is null").fetchone()[0]
    drive = conn.execute("select drive_id from docs_drive_member order by drive_id").fetchone()[0]
    after = conn.execute("select max(id) + 1 from docs_item").fetchone()[0]   # the next item's id
    now = stored_time(episode.clock.now())   # an activity at the very time: not written again
    for sql in ("insert into docs_star (item_id, person) values (?, ?)",
                "insert into docs_permission (item_id, person, role) values (?, ?, 'viewer')",
                "insert into docs_activity (item_id, person, at) values (?, ?, ?)"):
        conn.execute(sql, (after, episode.actor, *([now] if "activity" in sql else [])))
    conn.commit()   # rows left by nothing an operation does: read as the ORM path reads them all the same
    kinds: dict[str, int] = {}
    for person in [p.email for p in info.people][:6]:
        for name, text in [("Renewal notes", "Notes from the renewal thread."), ("  Padded  ", ""),
                           ("Ünïcode ✓", "two\n\nparagraphs\n"), ("  ", "x"), ("a/b", "x"), ("x" * 256, "x")]:
            for folder_id, drive_id in [(None, None), (folder, None), (None, drive), (10**6, None)]:
                ctx = Ctx(db, person, episode.clock.now(), info, episode.id)
                args = (name, text, folder_id, drive_id)
                expected = written(organising._new_document, ctx, *args)
                assert written(organising.create_document, ctx, *args) == expected
                kinds[_kind(expected)] = kinds.get(_kind(expected), 0) + 1
    assert {"ok", "invalid", "not_found", "forbidden"} <= set(kinds)


def test_a_fast_write_commits_with_its_call_and_is_logged(store):
    episode = store.create("acme")
    docs = store.apps["docs"].operations
    created = invoke(episode, docs["create_document"], {"name": "Notes", "text": "One."}, "python").result
    appended = invoke(episode, docs["append_to_document"], {"file_id": created["id"], "text": "Two."}, "python")
    assert appended.result["content"] == "One.\n\nTwo." and appended.result["revision"] == 2
    read = invoke(episode, docs["read_file"], {"file_id": created["id"]}, "python").result
    assert read["content"] == "One.\n\nTwo." and read["file"] == appended.result["file"]
    found = invoke(episode, docs["search"], {"query": "Two"}, "python").result   # the full-text index follows
    assert created["id"] in [f["id"] for f in found["files"]]
    revisions = invoke(episode, docs["list_revisions"], {"file_id": created["id"]}, "python").result
    assert [r["number"] for r in revisions] == [2, 1]
