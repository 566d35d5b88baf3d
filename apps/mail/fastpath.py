"""Plain-SQL versions of the hottest mail calls (reading a message, searching, labelling messages).

They return exactly what the ORM paths in ``store`` return, built in their dumped form (``apps.kit.wire``:
no pydantic model is made or serialised; ``tests/apps/mail/test_fastpath.py`` compares both, field by field
and in order, on every message of a world); they exist because the ORM costs ~100 µs a statement.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic_core import from_json

from apps.kit import Ctx, Invalid, NotFound
from apps.kit.wire import Wire, time
from apps.mail import schemas as s
from apps.mail.models import split_addresses
from apps.mail.operators import Compiled
from apps.mail.rendering import body_text
from apps.mail.search import compile_query

# Completed by a condition on e. The labels and the attachments (id, filename, mime_type, size; by id, the
# index's order) come as JSON arrays in the same row: one statement for a message, whatever it carries.
MESSAGE = (
    "select e.id, e.owner, e.thread_id, m.rfc_id, m.sender, m.sender_name, m.to_addrs, m.cc_addrs,"
    " m.bcc_addrs, m.subject, m.body_text, m.body_html, m.date, m.in_reply_to,"
    " (select json_group_array(label) from mail_entry_label where entry_id = e.id),"
    " (select json_group_array(json_array(a.id, a.filename, a.mime_type, a.size)) from mail_attachment a"
    " where a.message_id = m.id)"
    " from mail_entry e join mail_message m on m.id = e.message_id where ")
_BY_ID, BY_THREAD = MESSAGE + "e.id = ?", MESSAGE + "e.thread_id = ? order by m.date, e.id"
# Trash and spam, left out of a search unless it asks for them: one list for the query, not a lookup per entry.
_VISIBLE = " and e.id not in (select entry_id from mail_entry_label where label in ('TRASH', 'SPAM'))"
_JOIN = "mail_entry e join mail_message m on m.id = e.message_id"
# Free text only: the index finds the messages, their entries are found by message and owner (an index
# covers both), and only the actor's are scored (bm25 is read per row kept).
_TEXT = ("mail_message_fts cross join mail_entry e on e.message_id = mail_message_fts.rowid cross join mail_message m"
         " on m.id = e.message_id", "mail_message_fts match ? and e.owner = ?", "bm25(mail_message_fts)")
# Free text among other terms: every message the text terms score, once; one no term scores counts 0.
_RANKED = (_JOIN + " left join (select rowid, bm25(mail_message_fts) as score from mail_message_fts where"
           " mail_message_fts match ?) r on r.rowid = m.id", "e.owner = ? and {where}", "coalesce(r.score, 0)")
_PLAIN = (_JOIN, "e.owner = ? and {where}", None)
# A summary's columns (``summary``), for entries e of messages m.
SUMMARY_COLUMNS = (
    "e.id, e.thread_id, m.sender, m.sender_name, m.to_addrs, m.cc_addrs, m.subject, m.body_text,"
    " m.body_html, m.date, exists (select 1 from mail_attachment a where a.message_id = m.id),"
    " (select json_group_array(label) from mail_entry_label where entry_id = e.id)")
_SUMMARY = "select " + SUMMARY_COLUMNS + " from " + _JOIN + " where e.id in ({marks})"


def snippet(body: str) -> str:
    """``" ".join(body.split())[:140]``. A page of results mostly shows bodies shown before (a search run
    again, its next page, a thread): those of at most 2 KB are remembered (1,024 of them, 2 MB at most)."""
    return _remembered(body) if len(body) <= 2048 else _snippet(body)


def _snippet(body: str) -> str:
    """``snippet`` without splitting all of a long body: the words of a prefix, joined, are a prefix of the
    words of the whole, so a prefix whose words fill 140 characters will do."""
    if len(body) > 200:   # most bodies' first 200 characters hold 140 of their words' characters
        head = " ".join(body[:200].split())
        if len(head) >= 140:
            return head[:140]
        if len(body) > 1024:
            head = " ".join(body[:1024].split())
            if len(head) >= 140:
                return head[:140]
    return " ".join(body.split())[:140]


_remembered = lru_cache(maxsize=1024)(_snippet)


def message(ctx: Ctx, entry_id: int) -> Wire[s.Message]:
    """The acting user's message ``entry_id`` in full (as ``store.detail(store.entry_of(...))`` dumps it)."""
    row = ctx.sql.execute(_BY_ID, (entry_id,)).fetchone()
    if row is None or row[1] != ctx.actor:
        raise NotFound(f"no message {entry_id} in your mailbox", field="message_id")
    return Wire(full(row))


def full(row: tuple) -> dict[str, Any]:
    """A ``Message``'s dumped form from a row of ``MESSAGE``'s columns."""
    (eid, owner, thread_id, rfc_id, sender, sender_name, to, cc, bcc, subject, body, html, date,
     in_reply_to, labels, files) = row
    tags, unread, starred = label_set(labels)
    files = [] if files == "[]" else [{"id": i, "filename": f, "mime_type": t, "size": n}
                                       for i, f, t, n in from_json(files)]
    if html:
        body = body_text(body, html)
    return {"id": eid, "thread_id": thread_id, "sender": sender, "sender_name": sender_name,
            "to": split_addresses(to), "cc": split_addresses(cc), "subject": subject, "snippet": snippet(body),
            "date": time(date), "labels": list(tags), "unread": unread, "starred": starred,
            "has_attachments": bool(files), "bcc": split_addresses(bcc) if owner == sender else [], "body": body,
            "body_html": html, "message_id": rfc_id, "in_reply_to": in_reply_to, "attachments": files}


def search(ctx: Ctx, query: str, limit: int, offset: int) -> Wire[s.SearchResult]:
    """One page of the acting user's messages a Gmail query matches (as ``operations.search`` did with the
    ORM): newest first, or by relevance (bm25, best first) when it has free text, then newest first.

    One statement finds and orders the matches (ids only: the count is their number), one more reads
    the page; a query of free text alone is driven by the full-text index."""
    sql, params, _ = matches(ctx, query)
    ids = [r[0] for r in ctx.sql.execute(sql, params)]
    return Wire({"total": len(ids), "messages": summaries(ctx.sql, ids[offset:offset + limit])})


def matches(ctx: Ctx, query: str, threads: bool = False) -> tuple[str, list, Compiled]:
    """The statement listing the actor's entries a query matches (ids), best first: by relevance (lower bm25
    first) when it has free text, then newest first. With ``threads``, their threads' ids instead, each
    once, ranked by its best match, then by its newest match. Its parameters and the compiled query too."""
    q = compile_query(query, ctx.actor, ctx.now, ctx.world.timezone)
    text = q.free_text()
    source: str
    where: str
    score: str | None
    params: list
    if text is not None:
        (source, where, score), params = _TEXT, [text, ctx.actor]
    elif q.rank_terms:
        (source, where, score), params = _RANKED, [" OR ".join(q.rank_terms), ctx.actor, *q.params]
    else:
        (source, where, score), params = _PLAIN, [ctx.actor, *q.params]
    where = where.replace("{where}", q.where) + ("" if q.include_hidden else _VISIBLE)
    if threads:   # grouped after scoring (materialized: bm25 cannot be read inside an aggregate)
        rows = f"select e.thread_id as thread, {score or 0} as score, m.date as date from {source} where {where}"
        grouped = "min(score), max(date) desc" if score else "max(date) desc"
        return (f"with hits as materialized ({rows}) select thread from hits group by thread order by {grouped},"
                " thread desc", params, q)
    order = ([score] if score else []) + ["m.date desc", "e.id desc"]   # dates are stored as sortable text
    return f"select e.id from {source} where {where} order by {', '.join(order)}", params, q


def summaries(conn, entry_ids: list[int]) -> list[dict[str, Any]]:
    """``MessageSummary``s of entries in their dumped form, in the order given."""
    if not entry_ids:
        return []
    rows = {r[0]: r for r in conn.execute(_SUMMARY.format(marks=",".join("?" * len(entry_ids))), entry_ids)}
    return [summary(rows[i]) for i in entry_ids]


def summary(row: tuple) -> dict[str, Any]:
    """A ``MessageSummary``'s dumped form from a row of ``SUMMARY_COLUMNS`` (the date is the stored UTC text)."""
    eid, thread_id, sender, sender_name, to, cc, subject, text, html, date, has_files, labels = row
    tags, unread, starred = label_set(labels)
    return {"id": eid, "thread_id": thread_id, "sender": sender, "sender_name": sender_name,
            "to": split_addresses(to), "cc": split_addresses(cc), "subject": subject,
            "snippet": snippet(body_text(text, html) if html else text), "date": time(date),
            "labels": list(tags), "unread": unread, "starred": starred, "has_attachments": bool(has_files)}


@lru_cache(maxsize=4096)
def label_set(labels: str) -> tuple[tuple[str, ...], bool, bool]:
    """An entry's labels from their JSON array, sorted, and whether they mark it unread and starred: a handful
    of label sets recur across a mailbox, so each is parsed once (the caller copies the tuple to a list)."""
    tags = tuple(sorted(from_json(labels)))
    return tags, "UNREAD" in tags, "STARRED" in tags


def relabel(ctx: Ctx, entry_ids: list[int], add=(), remove=()) -> list[int]:
    """Add and remove labels on the acting user's messages, giving their ids (each once, in the order given);
    the first id not in the mailbox is refused."""
    if not entry_ids:
        raise Invalid("message_ids: give at least one message id", field="message_ids")
    ids = list(dict.fromkeys(entry_ids))
    conn = ctx.sql
    if len(ids) == 1:   # the common case: one statement reads the owner and the labels held, and only a change writes
        found = conn.execute(_HELD, ids).fetchone()
        if found is None or found[0] != ctx.actor:
            raise NotFound(f"no message {ids[0]} in your mailbox", field="message_ids")
        held = set(label_set(found[1])[0])
        for label in remove:
            if label in held:
                conn.execute(_UNLABEL, (ids[0], label))
                held.discard(label)
        for label in dict.fromkeys(add):
            if label not in held:
                conn.execute(_LABEL, (ids[0], label))
        return ids
    owners: dict[int, str] = {}
    _owners(conn, ids, owners)
    for i in ids:
        if owners.get(i) != ctx.actor:
            raise NotFound(f"no message {i} in your mailbox", field="message_ids")
    if remove:
        conn.executemany(_UNLABEL, [(i, label) for i in ids for label in remove])
    if add:
        conn.executemany(_LABEL, [(i, label) for i in ids for label in dict.fromkeys(add)])
    return ids


_HELD = ("select owner, (select json_group_array(label) from mail_entry_label where entry_id = e.id)"
         " from mail_entry e where id = ?")
_UNLABEL = "delete from mail_entry_label where entry_id = ? and label = ?"
_LABEL = "insert or ignore into mail_entry_label (entry_id, label) values (?, ?)"


def _owners(conn, ids: list[int], owners: dict[int, str]) -> None:
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        owners.update(conn.execute(f"select id, owner from mail_entry where id in ({marks})", chunk))
