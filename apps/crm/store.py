"""Reading and writing CRM records: lookups, the sharing rules, and turning rows into results.

Sharing, as the world's org-wide default "public read only" with a role hierarchy: everyone reads
every record; a record's owner and everyone above the owner in the reporting line may edit it.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlmodel import SQLModel, col, select

from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm.picklists import CLOSED_STAGES
from apps.kit import Ctx, Forbidden, Invalid, NotFound
from apps.kit.checks import email_address
from apps.kit.entity import fields_for

R = TypeVar("R", bound=m.Record)


def get(ctx: Ctx, table: type[R], record_id: int, field: str) -> R:
    row = ctx.session.get(table, record_id)
    if row is None:
        raise NotFound(f"no {_label(table)} with id {record_id}", field=field)
    return row


def check_chain(ctx: Ctx, table: type[m.Record], record: m.Record | None, target_id: int, link: str,
                refusal: str) -> None:
    """Refuse ``target_id`` as ``record``'s ``link`` (its parent, whom it reports to) if following
    that link from the target leads back to ``record``."""
    node: m.Record | None = get(ctx, table, target_id, link)
    seen = set()
    while node is not None and node.id not in seen:
        if record is not None and node.id == record.id:
            raise Invalid(f"{link}: {refusal}", field=link)
        seen.add(node.id)
        node = ctx.session.get(table, getattr(node, link)) if getattr(node, link) else None


def _label(table: type[m.Record]) -> str:
    return next(name for name, t in m.OBJECTS.items() if t is table).lower()


def managers_of(ctx: Ctx, email: str) -> list[str]:
    """Everyone above ``email`` in the reporting line, nearest first."""
    people = ctx.world.people_by_email()
    chain, current = [], people.get(email)
    while current is not None and current.manager and current.manager not in chain:
        chain.append(current.manager)
        current = people.get(current.manager)
    return chain


def can_edit(ctx: Ctx, record: m.Record) -> bool:
    return may_edit(ctx, record.owner)


def may_edit(ctx: Ctx, owner: str) -> bool:
    """Whether the acting user may edit a record owned by ``owner``: theirs, or a report's (at any depth)."""
    return ctx.actor == owner or ctx.actor in managers_of(ctx, owner)


def check_edit(ctx: Ctx, record: m.Record, what: str) -> None:
    """Raise ``Forbidden`` unless the acting user may edit ``record`` (owner or a manager above)."""
    if can_edit(ctx, record):
        return
    above = managers_of(ctx, record.owner)
    who = f"{record.owner} or their managers ({', '.join(above)})" if above else record.owner
    raise Forbidden(f"you ({ctx.actor}) cannot edit {what}: it is owned by {record.owner}, and only {who} "
                    "may edit it; ask them, or have it reassigned")


def person(ctx: Ctx, email: str | None, field: str = "owner") -> str:
    """A person of the world by address ('me' is the acting user); ``None`` means the acting user."""
    if email is None or email.strip().lower() == "me":
        return ctx.actor
    email = email.strip().lower()
    if email not in ctx.world.people_by_email():
        raise Invalid(f"{field}: {email} is not a person of the company (owners must be users; see list_users)",
                      field=field)
    return email


def email(value: str | None, field: str = "email") -> str | None:
    if value is None or not value.strip():
        return None
    return email_address(value, field)


def required_text(value: str, field: str) -> str:
    value = value.strip()
    if not value:
        raise Invalid(f"{field}: must not be empty", field=field)
    return value


def non_negative(value: float | int | None, field: str) -> None:
    if value is not None and value < 0:
        raise Invalid(f"{field}: must not be negative (got {value})", field=field)


def ident_of(value: int | None) -> int:
    if value is None:
        raise Invalid("related_id: give the id of the record", field="related_id")
    return value


def ident(row: SQLModel) -> int:
    """A flushed row's id (a table's ``id`` is ``None`` only before it is written)."""
    value = getattr(row, "id", None)
    if not isinstance(value, int):
        raise RuntimeError(f"{type(row).__name__} has no id yet")
    return value


def stamp(ctx: Ctx, record: R) -> R:
    """Mark a record as changed now and stage it for writing."""
    record.updated_at = ctx.now
    ctx.session.add(record)
    ctx.session.flush()
    return record


def new(ctx: Ctx, table: type[R], owner: str | None = None, **values: Any) -> R:
    record = table(owner=person(ctx, owner), created_by=ctx.actor, created_at=ctx.now, updated_at=ctx.now,
                   **values)
    return stamp(ctx, record)


def seen(row: SQLModel) -> dict[str, Any]:
    """The row's fields that results show (``see`` in ``models``)."""
    return {name: getattr(row, name) for name in fields_for(type(row), "see")}


def _name_of(ctx: Ctx, table: type[m.Account] | type[m.Contact], record_id: int | None) -> str | None:
    row = ctx.session.get(table, record_id) if record_id is not None else None
    if isinstance(row, m.Contact):
        return full_name(row)
    return row.name if isinstance(row, m.Account) else None


def full_name(row: m.Contact | m.Lead) -> str:
    return f"{row.first_name} {row.last_name}".strip()


def account(ctx: Ctx, a: m.Account) -> Any:
    return s.Account(**seen(a), parent_name=_name_of(ctx, m.Account, a.parent_id),
                     billing_address=m.billing_address(a))


def contact(ctx: Ctx, c: m.Contact) -> Any:
    return s.Contact(**seen(c), account_name=_name_of(ctx, m.Account, c.account_id), name=full_name(c),
                     reports_to_name=_name_of(ctx, m.Contact, c.reports_to_id))


def lead(ctx: Ctx, r: m.Lead) -> Any:
    return s.Lead(**seen(r), name=full_name(r))


def opportunity(ctx: Ctx, o: m.Opportunity) -> Any:
    return s.Opportunity(**seen(o), account_name=_name_of(ctx, m.Account, o.account_id) or "",
                         is_closed=o.stage in CLOSED_STAGES, is_won=o.stage == "Closed Won")


def case(ctx: Ctx, c: m.Case) -> Any:
    return s.Case(**seen(c), account_name=_name_of(ctx, m.Account, c.account_id),
                  contact_name=_name_of(ctx, m.Contact, c.contact_id), is_closed=c.status == "Closed")


def activity(r: m.Task | m.Event | m.Note) -> Any:
    shape = {m.Task: s.Task, m.Event: s.Event, m.Note: s.Note}[type(r)]
    return shape(**seen(r))


def related(ctx: Ctx, table: type[R], column: Any, record_id: int | None, order: Any) -> list[R]:
    return list(ctx.session.exec(select(table).where(column == record_id).order_by(order, col(table.id))))
