"""The ORM versions of mail calls that now run in plain SQL, kept as the reference the fast paths are compared
with (``test_fastpath.py``, ``test_threadpath.py``): the code as it ran before, unchanged in meaning."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import col, select

from apps.kit import NotFound
from apps.kit.wire import Wire
from apps.mail import models as m
from apps.mail import schemas as s
from apps.mail import store
from apps.mail.search import compile_query

# Queries of every kind: operators, free text (ranked; alone it is driven by the full-text index), OR and
# negation, trash and spam asked for, labels in any case and with a space written as '-', empty phrases, a
# from: with like's wildcard in it.
QUERIES = ["", "renewal", "from:me is:unread", "pipeline forecast", "renewal OR budget", "-renewal in:inbox",
           "in:anywhere", "in:trash", "has:attachment", "subject:(deck board)", "is:starred OR is:important",
           '"quarterly review"', "budget AROUND 5 approval", "label:inbox -from:me", "newer_than:30d",
           "renewal budget", "RENEWAL contract", '"" renewal', 'renewal "!!"', "from:me renewal",
           "in:anywhere renewal", "-renewal", "renewal AROUND 10 budget pipeline", "is:UNREAD in:Inbox",
           "label:follow-up", "label:FOLLOW-UP", "label:Deals -is:read", "to:me cc:me", "bcc:me OR deliveredto:ME",
           "from:DANA", "from:d_na", "filename:PDF", "subject:RENEWAL", "larger:1K", "in:SENT", "has:userlabels"]


def ranking(rank_terms: list[str]) -> tuple[str, list, str]:
    """A join scoring free-text matches (once for the whole query), its parameters and an order prefix."""
    if not rank_terms:
        return "", [], ""
    join = ("left join (select rowid, bm25(mail_message_fts) as score from mail_message_fts "
            "where mail_message_fts match ?) r on r.rowid = m.id ")
    return join, [" OR ".join(rank_terms)], "coalesce(r.score, 0), "


def matching(ctx, query: str):
    q = compile_query(query, ctx.actor, ctx.now, ctx.world.timezone)
    where, params = f"e.owner = ? and {q.where}", [ctx.actor, *q.params]
    if not q.include_hidden:
        where += " and not exists (select 1 from mail_entry_label h where h.entry_id = e.id and h.label in (?, ?))"
        params += ["TRASH", "SPAM"]
    return where, params, q


def get_thread(ctx, session, thread_id: int) -> dict:
    thread = session.get(m.Thread, thread_id)
    if thread is None or thread.owner != ctx.actor:
        raise NotFound(f"no thread {thread_id} in your mailbox", field="thread_id")
    entries = session.exec(
        select(m.Entry).join(m.Message, col(m.Message.id) == col(m.Entry.message_id))
        .where(col(m.Entry.thread_id) == thread_id).order_by(col(m.Message.date), col(m.Entry.id))).all()
    return s.Thread(id=thread.id, subject=thread.subject,
                    messages=[store.detail(session, e) for e in entries]).model_dump(mode="json")


def search_threads(ctx, session, query: str, limit: int, offset: int, include_messages: bool) -> dict:
    where, params, q = matching(ctx, query)
    conn = ctx.db.conn
    base = "from mail_entry e join mail_message m on m.id = e.message_id"
    total = conn.execute(f"select count(distinct e.thread_id) {base} where {where}", params).fetchone()[0]
    rank_join, rank_params, order = ranking(q.rank_terms)
    order = order.replace("coalesce(r.score, 0)", "min(coalesce(r.score, 0))")
    thread_ids = [r[0] for r in conn.execute(
        f"select e.thread_id {base} {rank_join}where {where} group by e.thread_id "
        f"order by {order}max(m.date) desc, e.thread_id desc limit ? offset ?",
        [*rank_params, *params, limit, offset])]
    return s.ThreadSearchResult(total=total, threads=[
        _summary(session, t, q.include_hidden, include_messages) for t in thread_ids]).model_dump(mode="json")


def _thread_entries(session, thread_id: int, include_hidden: bool) -> list[int]:
    rows = session.exec(
        select(col(m.Entry.id)).join(m.Message, col(m.Message.id) == col(m.Entry.message_id))
        .where(col(m.Entry.thread_id) == thread_id).order_by(col(m.Message.date), col(m.Entry.id))).all()
    if include_hidden:
        return list(rows)
    labels = store.labels_of(session, list(rows))
    visible = [i for i in rows if not {"TRASH", "SPAM"} & set(labels[i])]
    return visible or list(rows)


def _summary(session, thread_id: int, include_hidden: bool, with_messages: bool) -> s.ThreadSummary:
    thread = session.get(m.Thread, thread_id)
    messages = store.summaries(session, _thread_entries(session, thread_id, include_hidden))
    latest = messages[-1]
    people = list(dict.fromkeys(msg.sender_name or msg.sender for msg in messages))
    return s.ThreadSummary(
        id=thread_id, subject=(thread.subject if thread else "") or latest.subject, snippet=latest.snippet,
        date=latest.date, message_count=len(messages), participants=people,
        labels=sorted({label for msg in messages for label in msg.labels}),
        unread=any(msg.unread for msg in messages), starred=any(msg.starred for msg in messages),
        has_attachments=any(msg.has_attachments for msg in messages), latest=latest,
        messages=messages if with_messages else None,
    )


def dumped(result: Any) -> Any:
    """A fast path's result, built in its dumped form (``apps.kit.wire``)."""
    assert type(result) is Wire
    return result.data


def same(got: Any, expected: Any) -> bool:
    """Equal, and every object's keys in the same order (the dumped form keeps the model's field order)."""
    return got == expected and json.dumps(got) == json.dumps(expected)
