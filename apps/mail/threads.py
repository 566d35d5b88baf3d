"""Conversations as Gmail shows them: search by thread, and actions on a whole thread at once.

A thread matches a query when any of its messages does; it is listed once, by its newest message.
"""

from __future__ import annotations

from sqlmodel import col, select

from apps.kit import Ctx, Invalid, NotFound, OperationSet
from apps.kit.wire import Wire
from apps.mail import fastpath, operations, store, threadpath
from apps.mail import models as m
from apps.mail import schemas as s

ops = OperationSet("mail")


@ops.read
def search_threads(ctx: Ctx, query: str = "", limit: int = 20, offset: int = 0,
                   include_messages: bool = False) -> Wire[s.ThreadSearchResult]:
    """Search your mailbox like search, but list conversations: one row per thread, newest first.

    Each row gives the newest message, the number of messages and the participants; ask for
    include_messages to get every message of each thread too. Same operators as search.

    Args:
        query: Gmail search query, e.g. 'subject:(deck board) from:(ravi OR lauren)'.
        limit: Most threads to return (1-100).
        offset: Skip this many threads (for paging).
        include_messages: Also list each thread's messages, oldest first.
    """
    operations.check_page(limit, offset)
    return threadpath.search(ctx, query, limit, offset, include_messages)


def _thread_entries(ctx: Ctx, thread_id: int, include_hidden: bool) -> list[int]:
    rows = ctx.session.exec(
        select(col(m.Entry.id)).join(m.Message, col(m.Message.id) == col(m.Entry.message_id))
        .where(col(m.Entry.thread_id) == thread_id).order_by(col(m.Message.date), col(m.Entry.id))).all()
    if include_hidden:
        return list(rows)
    labels = store.labels_of(ctx.session, list(rows))
    visible = [i for i in rows if not {"TRASH", "SPAM"} & set(labels[i])]
    return visible or list(rows)


def _entries(ctx: Ctx, thread_ids: list[int], keep=lambda labels: True) -> list[int]:
    """Every message of the actor's threads ``thread_ids`` whose labels pass ``keep``."""
    if not thread_ids:
        raise Invalid("thread_ids: give at least one thread id", field="thread_ids")
    found = []
    for thread_id in dict.fromkeys(thread_ids):
        thread = ctx.session.get(m.Thread, thread_id)
        if thread is None or thread.owner != ctx.actor:
            raise NotFound(f"no thread {thread_id} in your mailbox", field="thread_ids")
        ids = _thread_entries(ctx, thread_id, include_hidden=True)
        labels = store.labels_of(ctx.session, ids)
        found += [i for i in ids if keep(set(labels[i]))]
    return found


def _outside_bins(labels: set[str]) -> bool:
    return not {"TRASH", "SPAM"} & labels


def _relabel(ctx: Ctx, thread_ids: list[int], add=(), remove=()) -> s.Updated:
    """Relabel the messages of conversations (those outside trash and spam) the way single messages are."""
    ids = _entries(ctx, thread_ids, _outside_bins)
    return s.Updated(updated=fastpath.relabel(ctx, ids, add, remove) if ids else [])


@ops.write
def mark_thread_read(ctx: Ctx, thread_ids: list[int]) -> s.Updated:
    """Mark every message of conversations as read.

    Args:
        thread_ids: Ids of threads in your mailbox.
    """
    return _relabel(ctx, thread_ids, remove=["UNREAD"])


@ops.write
def mark_thread_unread(ctx: Ctx, thread_ids: list[int]) -> s.Updated:
    """Mark conversations as unread (every message in them).

    Args:
        thread_ids: Ids of threads in your mailbox.
    """
    return _relabel(ctx, thread_ids, add=["UNREAD"])


@ops.write
def archive_thread(ctx: Ctx, thread_ids: list[int]) -> s.Updated:
    """Archive whole conversations: every message leaves the inbox and stays in All Mail.

    Args:
        thread_ids: Ids of threads in your mailbox.
    """
    return _relabel(ctx, thread_ids, remove=["INBOX"])


@ops.write
def add_thread_label(ctx: Ctx, thread_ids: list[int], label: str) -> s.Updated:
    """Put a label on every message of conversations (a user label, or INBOX, STARRED, IMPORTANT, UNREAD).

    Args:
        thread_ids: Ids of threads in your mailbox.
        label: Name of the label.
    """
    return _relabel(ctx, thread_ids, add=[operations.label_name(ctx, label)])


@ops.write
def remove_thread_label(ctx: Ctx, thread_ids: list[int], label: str) -> s.Updated:
    """Take a label off every message of conversations.

    Args:
        thread_ids: Ids of threads in your mailbox.
        label: Name of the label.
    """
    return _relabel(ctx, thread_ids, remove=[operations.label_name(ctx, label)])


@ops.write
def trash_thread(ctx: Ctx, thread_ids: list[int]) -> s.Updated:
    """Move whole conversations to the trash; restore_thread brings them back.

    Args:
        thread_ids: Ids of threads in your mailbox.
    """
    ids = _entries(ctx, thread_ids, lambda labels: "TRASH" not in labels)
    return operations.trash(ctx, ids) if ids else s.Updated(updated=[])


@ops.write
def restore_thread(ctx: Ctx, thread_ids: list[int]) -> s.Updated:
    """Take every trashed message of conversations out of the trash, back to where it was.

    Args:
        thread_ids: Ids of threads in your mailbox.
    """
    ids = _entries(ctx, thread_ids, lambda labels: "TRASH" in labels)
    return operations.restore(ctx, ids) if ids else s.Updated(updated=[])
