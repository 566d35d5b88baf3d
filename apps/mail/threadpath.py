"""Plain-SQL conversations: ``get_thread`` and ``search_threads`` (the ORM took one statement per message).

They return exactly what the ORM versions dumped, built in that form (``apps.kit.wire``);
``tests/apps/mail/test_threadpath.py`` keeps those as the reference and compares both for every person of a
world and every query shape. A page of threads costs two statements whatever its size: the matching threads,
ranked, and the page's messages with their summaries and their thread's subject.
"""

from __future__ import annotations

from typing import Any

from apps.kit import Ctx, NotFound
from apps.kit.wire import Wire
from apps.mail import fastpath
from apps.mail import schemas as s

_OWNER = "select owner, subject from mail_thread where id = ?"
_BINS = frozenset(("TRASH", "SPAM"))
# Every message of the page's threads, oldest first, with its summary's columns and its thread's subject.
_MESSAGES = (
    "select " + fastpath.SUMMARY_COLUMNS + ", t.subject"
    " from mail_entry e join mail_message m on m.id = e.message_id left join mail_thread t on t.id = e.thread_id"
    " where e.thread_id in ({marks}) order by m.date, e.id")
# Without the messages in full, a thread's summary needs only this of each (its sender, whether it has files, its
# labels), and the summary of its latest message shown (``_LATEST``, the entries' ids given).
_GATHER = (
    "select e.id, e.thread_id, m.sender, m.sender_name, exists (select 1 from mail_attachment a where a.message_id = m.id),"
    " (select json_group_array(label) from mail_entry_label where entry_id = e.id)"
    " from mail_entry e join mail_message m on m.id = e.message_id where e.thread_id in ({marks}) order by m.date, e.id")
_LATEST = (
    "select " + fastpath.SUMMARY_COLUMNS + ", t.subject"
    " from mail_entry e join mail_message m on m.id = e.message_id left join mail_thread t on t.id = e.thread_id"
    " where e.id in ({marks})")


def thread(ctx: Ctx, thread_id: int) -> Wire[s.Thread]:
    """The actor's conversation ``thread_id``, every message in full, oldest first."""
    conn = ctx.sql
    found = conn.execute(_OWNER, (thread_id,)).fetchone()
    if found is None or found[0] != ctx.actor:
        raise NotFound(f"no thread {thread_id} in your mailbox", field="thread_id")
    rows = conn.execute(fastpath.BY_THREAD, (thread_id,)).fetchall()
    return Wire({"id": thread_id, "subject": found[1], "messages": [fastpath.full(row) for row in rows]})


def search(ctx: Ctx, query: str, limit: int, offset: int, include_messages: bool) -> Wire[s.ThreadSearchResult]:
    """One page of the actor's conversations a query matches, each listed once, ranked by its best match
    (relevance, when the query has free text), then by its newest match; a thread shows its messages outside
    trash and spam (all of them when it has no other, or when the query asked for trash or spam)."""
    sql, params, q = fastpath.matches(ctx, query, threads=True)
    conn = ctx.sql
    ids = [r[0] for r in conn.execute(sql, params)]
    page = ids[offset:offset + limit]
    if not page:
        return Wire({"total": len(ids), "threads": []})
    marks = ",".join("?" * len(page))
    if not include_messages:
        return Wire({"total": len(ids), "threads": _gathered(conn, page, marks, q.include_hidden)})
    found: dict[int, list] = {t: [] for t in page}
    subjects: dict[int, str] = {}
    for row in conn.execute(_MESSAGES.format(marks=marks), page):
        found[row[1]].append(fastpath.summary(row[:12]))
        subjects[row[1]] = row[12] or ""
    threads = []
    for t in page:
        messages = _shown(found[t], q.include_hidden)
        threads.append(_summary(t, subjects.get(t, ""), messages, messages[-1], messages))
    return Wire({"total": len(ids), "threads": threads})


def _gathered(conn, page: list[int], marks: str, include_hidden: bool) -> list[dict[str, Any]]:
    """The page's threads' summaries without their messages: the messages read lightly (``_GATHER``: what
    ``_summary`` takes of each), and in full only the latest shown of each thread (``_LATEST``)."""
    gathered: dict[int, list[dict[str, Any]]] = {t: [] for t in page}
    for entry, thread_id, sender, sender_name, files, labels in conn.execute(_GATHER.format(marks=marks), page):
        tags, unread, starred = fastpath.label_set(labels)
        gathered[thread_id].append({"id": entry, "sender": sender, "sender_name": sender_name, "labels": tags,
                                    "unread": unread, "starred": starred, "has_attachments": bool(files)})
    shown = {t: _shown(messages, include_hidden) for t, messages in gathered.items()}
    latest = {row[1]: row for row in conn.execute(_LATEST.format(marks=marks), [shown[t][-1]["id"] for t in page])}
    return [_summary(t, latest[t][12], shown[t], fastpath.summary(latest[t][:12]), None) for t in page]


def _shown(messages: list[dict[str, Any]], include_hidden: bool) -> list[dict[str, Any]]:
    """The messages a thread shows: those outside trash and spam (all of them when it has no other, or when
    ``include_hidden``)."""
    if include_hidden:
        return messages
    return [msg for msg in messages if _BINS.isdisjoint(msg["labels"])] or messages


def _summary(thread_id: int, subject: str | None, shown: list[dict[str, Any]], latest: dict[str, Any],
             messages: list[dict[str, Any]] | None) -> dict[str, Any]:
    """A ``ThreadSummary``'s dumped form from the messages it shows (each with at least its sender, labels and
    flags) and the summary of the latest of them (``fastpath.summary``); ``messages`` in full, or None."""
    return {
        "id": thread_id, "subject": subject or latest["subject"], "snippet": latest["snippet"],
        "date": latest["date"], "message_count": len(shown),
        "participants": list(dict.fromkeys(msg["sender_name"] or msg["sender"] for msg in shown)),
        "labels": sorted({label for msg in shown for label in msg["labels"]}),
        "unread": any(msg["unread"] for msg in shown), "starred": any(msg["starred"] for msg in shown),
        "has_attachments": any(msg["has_attachments"] for msg in shown), "latest": latest, "messages": messages}
