"""Gmail filters: criteria (from, to, subject, has the words, doesn't have, has attachment) and what to do with
the mail they pick (label, archive, mark read, star, mark important, forward, delete), as Gmail has them.

A filter acts on mail as it arrives in its owner's mailbox (``arrived``, called by ``delivery.deliver``; mail the
owner sends themselves arrives too, as in Gmail, their one SENT and INBOX entry) and,
when asked on creation, on the mail already there (Gmail's "also apply filter to matching conversations";
as in Gmail, that never forwards). Its criteria are one Gmail search (``query``), run over the arriving
messages only, so a filter picks exactly what searching for it finds. Forwarding goes to a person of the
company only (Gmail forwards only to addresses the owner has confirmed): the forwarded copy is the same message,
delivered to that person's inbox; filters do not act on mail a filter forwarded, so two filters cannot loop.
A world's files can hold filters too (``mail/mailboxes.yaml``, per person; ``apps/mail/world.py``).
Not yet: "never send to spam" and categories.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from apps.kit import Ctx, Invalid, NotFound, OperationSet
from apps.mail import models as m
from apps.mail import schemas as s
from apps.mail import store
from apps.mail.search import compile_query

ops = OperationSet("mail")
_CRITERIA = ("sender", "to", "subject", "has_words", "doesnt_have", "has_attachment")
_ACTIONS = ("label", "archive", "mark_read", "star", "important", "forward_to", "delete")


def query(f: m.Filter) -> str:
    """The Gmail search a filter's criteria make, as Gmail writes it in the search box."""
    parts = [f"from:({f.sender})" if f.sender else "", f"to:({f.to})" if f.to else "",
             f"subject:({f.subject})" if f.subject else "", f"({f.has_words})" if f.has_words else "",
             f"-{{{f.doesnt_have}}}" if f.doesnt_have else "", "has:attachment" if f.has_attachment else ""]
    return " ".join(p for p in parts if p)


def filter_problems(info, owner: str, box, found) -> list[str]:
    """What is wrong with a world's filter (``records.MailFilter``) of ``owner``'s mailbox ``box``, as
    ``create_filter`` would refuse it: no criterion or action, a label they lack, forwarding outside the
    company or to themselves, a search Gmail cannot read."""
    values = found.model_dump()
    problems = []
    if not any(values[k] for k in _CRITERIA):
        problems.append(f"give at least one criterion ({', '.join(_CRITERIA)})")
    if not any(values[k] for k in _ACTIONS):
        problems.append(f"give at least one action ({', '.join(_ACTIONS)})")
    if values["label"] and values["label"].lower() not in {name.lower() for name in box.labels}:
        problems.append(f"label {values['label']!r} is not in their labels")
    forward = (values["forward_to"] or "").strip().lower()
    if forward and (forward not in {p.email for p in info.people} or forward == owner):
        problems.append(f"forward_to {forward} is not a colleague of theirs (filters forward within the company)")
    try:
        compile_query(query(m.Filter(owner=owner, **values)), owner, info.now_utc, info.timezone)
    except Invalid as exc:
        problems.append(f"its criteria do not read as a Gmail search: {exc}")
    return problems


def matching(ctx: Ctx, owner: str, f: m.Filter, entry_ids: list[int] | None) -> list[int]:
    """The owner's entries (among ``entry_ids``, or all) the filter's search finds, oldest first."""
    q = compile_query(query(f), owner, ctx.now, ctx.world.timezone)
    among = "" if entry_ids is None else f" and e.id in ({', '.join('?' for _ in entry_ids)})"
    hidden = "" if entry_ids is not None or q.include_hidden else (
        " and e.id not in (select entry_id from mail_entry_label where label in ('TRASH', 'SPAM', 'DRAFT'))")
    sql = (f"select e.id from mail_entry e join mail_message m on m.id = e.message_id "
           f"where e.owner = ? and {q.where}{among}{hidden} order by m.date, e.id")
    return [row[0] for row in ctx.sql.execute(sql, [owner, *q.params, *(entry_ids or [])])]


def act(ctx: Ctx, f: m.Filter, entry_ids: list[int], forward: bool) -> None:
    if not entry_ids:
        return
    add = [name for name, on in (("STARRED", f.star), ("IMPORTANT", f.important), ("TRASH", f.delete)) if on]
    add += [f.label] if f.label else []
    remove = [name for name, on in (("INBOX", f.archive or f.delete), ("UNREAD", f.mark_read)) if on]
    for entry_id in entry_ids:   # the owner's entries (``matching``): labelled in the owner's mailbox
        if remove:
            store.remove_labels(ctx.session, entry_id, remove)
        store.add_labels(ctx.session, entry_id, add)
    if forward and f.forward_to:
        for entry in ctx.session.exec(select(m.Entry).where(col(m.Entry.id).in_(entry_ids))):
            _forward(ctx, entry, f.forward_to)


def _forward(ctx: Ctx, entry: m.Entry, to: str) -> None:
    """The message itself, delivered to ``to``'s inbox (unless they already hold it); their filters do not run."""
    held = ctx.session.exec(select(m.Entry).where(m.Entry.owner == to, m.Entry.message_id == entry.message_id))
    if held.first() is None:
        store.file_message(ctx, to, store.message_of(ctx.session, entry), ["INBOX", "UNREAD"])


def arrived(ctx: Ctx, entries: list[tuple[str, int]]) -> None:
    """Run each owner's filters, in the order they were made, on the entries just delivered to them
    (``(owner, entry id)`` pairs); one statement finds whether any owner has one, one more reads them all."""
    owners: dict[str, list[int]] = {}
    for owner, entry_id in entries:
        owners.setdefault(owner, []).append(entry_id)
    marks = ", ".join("?" * len(owners))
    if not owners or not ctx.sql.execute(f"select 1 from mail_filter where owner in ({marks}) limit 1",
                                         list(owners)).fetchone():
        return   # most mailboxes have no filter: a plain look first
    made: dict[str, list[m.Filter]] = {}
    for f in ctx.session.exec(select(m.Filter).where(col(m.Filter.owner).in_(owners)).order_by(col(m.Filter.id))):
        made.setdefault(f.owner, []).append(f)
    for owner, ids in owners.items():
        for f in made.get(owner, []):
            act(ctx, f, matching(ctx, owner, f, ids), forward=True)


def _shown(f: m.Filter, applied: int = 0) -> s.FilterInfo:
    return s.FilterInfo(**f.model_dump(exclude={"owner"}), query=query(f), applied_to=applied)


@ops.write
def create_filter(ctx: Ctx, fields: s.FilterFields, apply_to_existing: bool = False) -> s.FilterInfo:
    """Create a filter: mail arriving from now on that matches every criterion given gets every action given.

    Args:
        apply_to_existing: Also apply it to matching mail already in your mailbox (outside trash and spam);
            existing mail is never forwarded.
    """
    values: dict[str, Any] = {k: (v.strip() or None) if isinstance(v, str) else v for k, v in fields.model_dump().items()}
    if not any(values[k] for k in _CRITERIA):
        raise Invalid("sender: give at least one criterion (sender, to, subject, has_words, doesnt_have, "
                      "has_attachment)", field="sender")
    if not any(values[k] for k in _ACTIONS):
        raise Invalid("label: give at least one action (label, archive, mark_read, star, important, forward_to, "
                      "delete)", field="label")
    if values["label"]:
        values["label"] = _user_label(ctx, values["label"])
    if values["forward_to"]:
        values["forward_to"] = _colleague(ctx, values["forward_to"])
    f = m.Filter(owner=ctx.actor, **values)
    compile_query(query(f), ctx.actor, ctx.now, ctx.world.timezone)   # a criterion Gmail cannot read is refused now
    ctx.session.add(f)
    ctx.session.flush()
    applied = matching(ctx, ctx.actor, f, None) if apply_to_existing else []
    act(ctx, f, applied, forward=False)
    return _shown(f, len(applied))


def _user_label(ctx: Ctx, name: str) -> str:
    found = store.user_label(ctx, name)
    if found is None:
        raise NotFound(f"you have no label named {name!r}; create it with create_label first", field="label")
    return found.name


def _colleague(ctx: Ctx, address: str) -> str:
    address = address.strip().lower()
    if address not in ctx.world.people_by_email():
        raise Invalid(f"forward_to: {address} is not a person at {ctx.world.company}; filters forward only "
                      "within the company", field="forward_to")
    if address == ctx.actor:
        raise Invalid("forward_to: a filter cannot forward your mail to yourself", field="forward_to")
    return address


@ops.read
def list_filters(ctx: Ctx) -> list[s.FilterInfo]:
    """List your filters, oldest first, each with the Gmail search its criteria make."""
    return [_shown(f) for f in ctx.session.exec(select(m.Filter).where(m.Filter.owner == ctx.actor)
                                                .order_by(col(m.Filter.id)))]


@ops.write
def delete_filter(ctx: Ctx, filter_id: int) -> s.FilterInfo:
    """Delete one of your filters; the mail it already acted on stays as it is.

    Args:
        filter_id: Id of the filter.
    """
    f = ctx.session.get(m.Filter, filter_id)
    if f is None or f.owner != ctx.actor:
        raise NotFound(f"you have no filter {filter_id}", field="filter_id")
    ctx.session.delete(f)
    return _shown(f)
