"""get_thread and search_threads in plain SQL give what the ORM gave: for every person of acme and every
query shape, every page, with and without the threads' messages, trash and spam in a thread or not."""

import pytest
from mail_reference import QUERIES, dumped, get_thread, same, search_threads
from sqlmodel import select

from apps.kit import Ctx, Invalid, NotFound
from apps.kit.invoker import invoke
from apps.mail import models as m
from apps.mail import threadpath

BAD = ["foo:bar", "(renewal", "in:nowhere"]


def _ctxs(store, episode):
    db, info = episode.db("mail"), store.world("acme").info
    return db, [Ctx(db, person.email, episode.clock.now(), info, episode.id) for person in info.people]


def _same_pages(ctx, session, query: str) -> int:
    whole = search_threads(ctx, session, query, 100, 0, True)
    for limit, offset, with_messages in ((20, 0, False), (5, 3, True), (100, 0, True), (3, 1, False)):
        threads = whole["threads"][offset:offset + limit]
        if not with_messages:
            threads = [{**t, "messages": None} for t in threads]
        got = dumped(threadpath.search(ctx, query, limit, offset, with_messages))
        assert same(got, {"total": whole["total"], "threads": threads}), (ctx.actor, query, limit, offset)
    for limit, offset in ((20, 95), (10, whole["total"])):   # past the first hundred, past the end
        assert same(dumped(threadpath.search(ctx, query, limit, offset, False)),
                    search_threads(ctx, session, query, limit, offset, False))
    return whole["total"]


@pytest.mark.parametrize("query", QUERIES)
def test_search_threads_matches_the_reference_for_every_person(store, query):
    db, ctxs = _ctxs(store, store.create("acme"))
    with db.session() as session:
        seen = sum(_same_pages(ctx, session, query) for ctx in ctxs)
    assert seen or query not in ("", "renewal", "pipeline forecast", "in:anywhere", "has:attachment")


def test_a_thread_in_the_bin_matches_the_reference(store):
    """A thread wholly in the trash shows every message when searched; one partly there leaves those out."""
    episode = store.create("acme")
    mail = store.apps["mail"].operations
    first = invoke(episode, mail["search_threads"], {"query": "renewal", "limit": 3}, "python").result["threads"]
    assert len(first) == 3 and first[1]["message_count"] > 1
    assert invoke(episode, mail["trash_thread"], {"thread_ids": [first[0]["id"]]}, "python").error is None
    assert invoke(episode, mail["trash"], {"message_ids": [first[1]["latest"]["id"]]}, "python").error is None
    db, ctxs = _ctxs(store, episode)
    ctx = next(c for c in ctxs if c.actor == episode.actor)
    with db.session() as session:
        for query in ("renewal", "in:anywhere renewal", "in:trash", "", "in:trash OR renewal"):
            assert _same_pages(ctx, session, query) or query == "renewal"


@pytest.mark.parametrize("query", BAD)
def test_a_bad_query_is_refused_as_before(store, query):
    db, ctxs = _ctxs(store, store.create("acme"))
    with db.session() as session, pytest.raises(Invalid) as expected:
        search_threads(ctxs[0], session, query, 20, 0, False)
    with pytest.raises(Invalid) as got:
        threadpath.search(ctxs[0], query, 20, 0, False)
    assert got.value.to_dict() == expected.value.to_dict()


def test_get_thread_matches_the_reference_for_every_thread_and_person(store):
    db, ctxs = _ctxs(store, store.create("acme"))
    with db.session() as session:
        threads = session.exec(select(m.Thread)).all()
        assert len(threads) > 50
        for thread in threads:
            for ctx in ctxs:
                if ctx.actor != thread.owner:
                    with pytest.raises(NotFound) as got:
                        threadpath.thread(ctx, thread.id)
                    assert got.value.to_dict()["field"] == "thread_id"
                    continue
                expected = get_thread(ctx, session, thread.id)
                assert same(dumped(threadpath.thread(ctx, thread.id)), expected)
        with pytest.raises(NotFound):
            threadpath.thread(ctxs[0], 10_000_000)
