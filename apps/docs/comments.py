"""Docs operations for discussion: comments anchored to a passage, replies, resolve and reopen.

As in Docs, commenters and above may read and write comments; viewers see none. Writing
``@dana@acme.test`` (or ``@dana``, or Docs's ``+dana@acme.test`` / ``+dana``) in a comment mentions
that person of the organisation. Each person mentioned (other than the author) is sent a notification
by mail, through the mail app's ``send`` as the author, in the same episode (``Ctx.then``); one who
cannot open the file is named in the result's ``mentioned_without_access`` so that it can be shared.
"""

from __future__ import annotations

import re

from sqlmodel import col, select

from apps.docs import access, store
from apps.docs import models as m
from apps.docs import schemas as s
from apps.docs.world_check import MENTION
from apps.kit import Conflict, Ctx, Invalid, NotFound, OperationSet

ops = OperationSet("docs")
# Docs's "+" form; a "+word" that is nobody (like "+1") is just text, unlike an "@name" that is nobody.
_PLUS = re.compile(r"(?<![\w.@+])\+([A-Za-z][A-Za-z0-9._%-]*(?:@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)?)")


def resolve_mentions(text: str, people) -> tuple[list[str], list[str]]:
    """(addresses of the people a text @mentions, mentions that are nobody), by address or by the part before '@'."""
    by_local = {address.split("@")[0]: address for address in people}
    found: list[str] = []
    unknown: list[str] = []
    for raw in MENTION.findall(text):
        raw = raw.rstrip(".").lower()
        address = raw if raw in people else by_local.get(raw)
        (found if address else unknown).append(address or raw)
    for raw in _PLUS.findall(text):
        raw = raw.rstrip(".").lower()
        address = raw if raw in people else by_local.get(raw)
        if address:
            found.append(address)
        elif "@" in raw:
            unknown.append(raw)
    return list(dict.fromkeys(found)), unknown


def mentions_in(ctx: Ctx, text: str, field: str = "text") -> list[str]:
    """The people a text mentions; an @name that is nobody of the organisation is refused."""
    found, unknown = resolve_mentions(text, ctx.world.people_by_email())
    if unknown:
        raise Invalid(f"{field}: @{unknown[0]} is not a person of {ctx.world.company}", field=field)
    return found


def _add(ctx: Ctx, item_id: int, text: str, quote: str | None = None, parent_id: int | None = None) -> m.Comment:
    if not text.strip():
        raise Invalid("text: a comment needs some text", field="text")
    comment = m.Comment(item_id=item_id, parent_id=parent_id, author=ctx.actor, body=text, quote=quote,
                        created_at=ctx.now)
    ctx.session.add(comment)
    ctx.session.flush()
    for person in mentions_in(ctx, text):
        ctx.session.add(m.Mention(comment_id=comment.id, person=person))
    return comment


def notify(ctx: Ctx, item: m.Item, comment: m.Comment) -> list[str]:
    """Mail each person the comment mentions; returns those of them who cannot open the file."""
    author = ctx.world.people_by_email().get(ctx.actor)
    name = author.name if author else ctx.actor
    without = []
    for person in _mentions(ctx, comment.id):
        if person == ctx.actor:
            continue
        if access.role_of(ctx.session, item, person) is None:
            without.append(person)
        note = ("" if person not in without else
                f"\n\nYou do not have access to {item.name!r} yet; ask {ctx.actor} to share it with you.")
        quoted = f"\n\n> {comment.quote}" if comment.quote else ""
        ctx.peers.request("mail", "send", to=[person], subject=f"{item.name} - {name} mentioned you in a comment",
                 body=f"{name} mentioned you in a comment in {item.name!r} (file {item.id}):{quoted}\n\n"
                      f"{comment.body}{note}")
    return without


def _mentions(ctx: Ctx, comment_id: int) -> list[str]:
    return sorted(ctx.session.exec(select(m.Mention.person).where(m.Mention.comment_id == comment_id)))


def result(ctx: Ctx, comment: m.Comment) -> s.Comment:
    replies = ctx.session.exec(select(m.Comment).where(m.Comment.parent_id == comment.id).order_by(col(m.Comment.id)))
    return s.Comment(
        id=comment.id, file_id=comment.item_id, author=comment.author, text=comment.body, quote=comment.quote,
        created_at=store.utc(comment.created_at), resolved=comment.resolved, resolved_by=comment.resolved_by,
        resolved_at=store.utc(comment.resolved_at), mentions=_mentions(ctx, comment.id),
        replies=[s.Reply(id=r.id, author=r.author, text=r.body, created_at=store.utc(r.created_at),
                         mentions=_mentions(ctx, r.id)) for r in replies])


def _discussable(ctx: Ctx, file_id: int, action: str, field: str = "file_id") -> m.Item:
    item, _ = access.require(ctx, file_id, "commenter", action, field=field)
    if item.kind == "folder":
        raise Invalid(f"{field}: folders have no comments", field=field)
    return item


def _thread(ctx: Ctx, comment_id: int, action: str) -> tuple[m.Comment, m.Item]:
    comment = ctx.session.get(m.Comment, comment_id)
    if comment is None:
        raise NotFound(f"no comment {comment_id}", field="comment_id")
    item = _discussable(ctx, comment.item_id, action, field="comment_id")
    root = ctx.session.get_one(m.Comment, comment.parent_id) if comment.parent_id else comment
    return root, item


@ops.read
def list_comments(ctx: Ctx, file_id: int, include_resolved: bool = True) -> list[s.Comment]:
    """List the comments on a file, oldest first, each with its replies.

    Args:
        file_id: Id of the document, spreadsheet or file.
        include_resolved: Also list comments that were resolved.
    """
    item = _discussable(ctx, file_id, "see its comments")
    query = select(m.Comment).where(m.Comment.item_id == item.id, col(m.Comment.parent_id).is_(None))
    if not include_resolved:
        query = query.where(col(m.Comment.resolved).is_(False))
    return [result(ctx, c) for c in ctx.session.exec(query.order_by(col(m.Comment.id)))]


@ops.write
def add_comment(ctx: Ctx, file_id: int, text: str, quote: str | None = None) -> s.Comment:
    """Comment on a file, optionally anchored to a passage of its text; @mention people to notify them.

    Args:
        file_id: Id of the document, spreadsheet or file.
        text: The comment; '@' and a person's address (or the part before '@') mentions them.
        quote: The exact passage the comment is about; it must appear in the file's text.
    """
    item = _discussable(ctx, file_id, "comment on it")
    if access.is_trashed(ctx.session, item):
        raise Conflict(f"{item.name!r} is in the trash; restore it first", field="file_id")
    if quote is not None and (not quote.strip() or quote not in item.body):
        raise Invalid(f"quote: the passage {quote[:80]!r} does not appear in {item.name!r}", field="quote")
    comment = _add(ctx, item.id, text, quote=quote)
    store.touch(ctx, item, edited=False)
    return result(ctx, comment).model_copy(update={"mentioned_without_access": notify(ctx, item, comment)})


@ops.write
def reply_to_comment(ctx: Ctx, comment_id: int, text: str) -> s.Comment:
    """Reply to a comment (a reply to a reply joins the same discussion). Replying reopens a resolved comment.

    Args:
        comment_id: Id of the comment (or of one of its replies).
        text: The reply; '@' and a person's address mentions them.
    """
    root, item = _thread(ctx, comment_id, "reply to a comment")
    reply = _add(ctx, item.id, text, parent_id=root.id)
    root.resolved, root.resolved_by, root.resolved_at = False, None, None
    ctx.session.add(root)
    store.touch(ctx, item, edited=False)
    return result(ctx, root).model_copy(update={"mentioned_without_access": notify(ctx, item, reply)})


def _set_resolved(ctx: Ctx, comment_id: int, resolved: bool) -> s.Comment:
    root, item = _thread(ctx, comment_id, "resolve or reopen a comment")
    if root.resolved == resolved:
        raise Conflict(f"comment {root.id} is already {'resolved' if resolved else 'open'}", field="comment_id")
    root.resolved = resolved
    root.resolved_by, root.resolved_at = (ctx.actor, ctx.now) if resolved else (None, None)
    ctx.session.add(root)
    store.touch(ctx, item, edited=False)
    return result(ctx, root)


@ops.write
def resolve_comment(ctx: Ctx, comment_id: int) -> s.Comment:
    """Mark a comment's discussion as resolved (it stays readable and can be reopened).

    Args:
        comment_id: Id of the comment.
    """
    return _set_resolved(ctx, comment_id, True)


@ops.write
def reopen_comment(ctx: Ctx, comment_id: int) -> s.Comment:
    """Reopen a resolved comment.

    Args:
        comment_id: Id of the comment.
    """
    return _set_resolved(ctx, comment_id, False)
