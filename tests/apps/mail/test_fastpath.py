"""The plain-SQL paths give what the ORM paths give, on every message of a world and for every owner."""

from datetime import datetime, timezone

import pytest
from sqlmodel import select

from apps.kit import Ctx, NotFound
from apps.kit.invoker import invoke
from apps.mail import fastpath
from apps.mail import models as m
from apps.mail import schemas as s
from apps.mail import store as mail_store

OUTSIDER = "nobody@small.test"


def _ctx(db, actor):
    return Ctx(db, actor, datetime(2026, 3, 16, tzinfo=timezone.utc), None, "e1")


def test_get_message_matches_the_orm_path_for_every_entry(store, world_dir):
    db = store.create(str(world_dir)).db("mail")
    with db.session() as session:
        entries = session.exec(select(m.Entry)).all()
        expected = {e.id: (e.owner, mail_store.detail(session, e).model_dump(mode="json")) for e in entries}
    assert len(expected) >= 6 and any(d["attachments"] for _, d in expected.values())
    for entry_id, (owner, dumped) in expected.items():
        assert s.Message.model_validate(dumped).model_dump(mode="json") == dumped
        assert fastpath.message(_ctx(db, owner), entry_id).model_dump(mode="json") == dumped
        with pytest.raises(NotFound):
            fastpath.message(_ctx(db, OUTSIDER), entry_id)


def test_relabel_writes_what_the_orm_reads_and_refuses_others_messages(store, world_dir):
    episode = store.create(str(world_dir))
    mail = store.apps["mail"].operations
    ids = [r["id"] for r in invoke(episode, mail["search"], {"query": "in:anywhere"}, "python").result["messages"]]
    starred = invoke(episode, mail["star"], {"message_ids": ids + ids[:1]}, "python")
    assert starred.result == {"updated": ids} and starred.state_changed
    again = invoke(episode, mail["star"], {"message_ids": ids}, "python")
    assert again.error is None and not again.state_changed
    with episode.db("mail").session() as session:
        assert all("STARRED" in mail_store.labels_of(session, [i])[i] for i in ids)
    invoke(episode, mail["archive"], {"message_ids": ids[:1]}, "python")
    assert "INBOX" not in invoke(episode, mail["get_message"], {"message_id": ids[0]}, "python").result["labels"]
    theirs = invoke(episode, mail["star"], {"message_ids": [ids[0], 10_000]}, "python")
    assert theirs.error["field"] == "message_ids" and "10000" in theirs.error["message"]
    assert not theirs.state_changed
