"""Plain-SQL versions of the CRM point reads (an account with its related lists, a contact, a lead, an
opportunity with its history, a case), built in their dumped form (``apps.kit.wire``).

They return exactly what the ORM paths in ``store`` and ``selling`` dump to, errors included
(``tests/apps/crm/test_crm_fastpath.py`` compares both, field by field and in order, on every record of
a world); they exist because the ORM costs ~100 µs a statement and pydantic as much again per result.
Each query reads a record's shown columns (``see`` in ``models``) in its result's field order, then the
names the result adds from the records it points at.
"""

from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel

from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm.picklists import CLOSED_STAGES
from apps.kit import Ctx, NotFound, wire
from apps.kit.entity import fields_for
from apps.kit.wire import Wire


def _name(first: str | None, last: str | None) -> str | None:
    """``store.full_name`` of the contact or lead read, ``None`` when there was none (``last_name`` is required)."""
    return None if last is None else f"{first} {last}".strip()


class _Shape:
    """One object's query and how a row of it becomes its dumped result: the shown columns, then ``extra``
    (SQL expressions, after ``joins``), which ``finish`` turns into the result's added fields."""

    def __init__(self, model: type[BaseModel], table: type[m.Record], extra: tuple[str, ...], joins: str,
                 finish: Callable[[dict, tuple], None]):
        self.spec = wire.shape(model, fields_for(table, "see"))
        self.width = len(self.spec)
        columns = [f't."{name}"' for name, _ in self.spec] + list(extra)
        self.sql = f"select {', '.join(columns)} from {table.__tablename__} t {joins}"
        self._by_id = f"{self.sql} where t.id = ?"
        self.finish = finish

    def dump(self, values: tuple) -> dict[str, Any]:
        found = wire.row(self.spec, values)
        self.finish(found, values[self.width:])
        return found

    def one(self, ctx: Ctx, record_id: int, what: str, field: str) -> dict[str, Any]:
        values = ctx.sql.execute(self._by_id, (record_id,)).fetchone()
        if values is None:
            raise NotFound(f"no {what} with id {record_id}", field=field)
        return self.dump(values)

    def where(self, ctx: Ctx, condition: str, params: tuple, order: str) -> list[dict[str, Any]]:
        return [self.dump(v) for v in ctx.sql.execute(f"{self.sql} where {condition} order by {order}", params)]


def _account(found: dict, extra: tuple) -> None:
    found["parent_name"] = extra[0]
    found["billing_address"] = dict(zip(m.BILLING, extra[1:]))


def _contact(found: dict, extra: tuple) -> None:
    found["account_name"], found["name"], found["reports_to_name"] = extra[0], _name(*extra[1:3]), _name(*extra[3:])


def _lead(found: dict, extra: tuple) -> None:
    found["name"] = _name(*extra)


def _opportunity(found: dict, extra: tuple) -> None:
    stage = found["stage"]
    found["account_name"], found["is_closed"], found["is_won"] = extra[0], stage in CLOSED_STAGES, stage == "Closed Won"


def _case(found: dict, extra: tuple) -> None:
    found["account_name"], found["contact_name"] = extra[0], _name(*extra[1:])
    found["is_closed"] = found["status"] == "Closed"


_ACCOUNT_JOIN = " left join crm_account a on a.id = t.account_id"
ACCOUNT = _Shape(s.Account, m.Account, ("p.name", *(f"t.billing_{part}" for part in m.BILLING)),
                 "left join crm_account p on p.id = t.parent_id", _account)
CONTACT = _Shape(s.Contact, m.Contact, ("a.name", "t.first_name", "t.last_name", "r.first_name", "r.last_name"),
                 _ACCOUNT_JOIN + " left join crm_contact r on r.id = t.reports_to_id", _contact)
LEAD = _Shape(s.Lead, m.Lead, ("t.first_name", "t.last_name"), "", _lead)
OPPORTUNITY = _Shape(s.Opportunity, m.Opportunity, ("coalesce(a.name, '')",), _ACCOUNT_JOIN, _opportunity)
CASE = _Shape(s.Case, m.Case, ("a.name", "c.first_name", "c.last_name"),
              _ACCOUNT_JOIN + " left join crm_contact c on c.id = t.contact_id", _case)
TASK, EVENT, NOTE = (_Shape(model, table, (), "", lambda found, extra: None)
                     for model, table in ((s.Task, m.Task), (s.Event, m.Event), (s.Note, m.Note)))
_HISTORY = wire.shape(s.FieldChange)
_HISTORY_SQL = ("select field, old_value, new_value, changed_by, changed_at from crm_opportunity_history"
                " where opportunity_id = ? order by changed_at, id")


def account_detail(ctx: Ctx, account_id: int) -> Wire[s.AccountDetail]:
    """``get_account``: the account, then its contacts, opportunities and cases (``store.related``'s orders)."""
    found = ACCOUNT.one(ctx, account_id, "account", "account_id")
    found["contacts"] = CONTACT.where(ctx, "t.account_id = ?", (account_id,), "t.last_name, t.id")
    found["opportunities"] = OPPORTUNITY.where(ctx, "t.account_id = ?", (account_id,), "t.close_date, t.id")
    found["cases"] = CASE.where(ctx, "t.account_id = ?", (account_id,), "t.created_at, t.id")
    return Wire(found)


def contact(ctx: Ctx, contact_id: int) -> Wire[s.Contact]:
    return Wire(CONTACT.one(ctx, contact_id, "contact", "contact_id"))


def lead(ctx: Ctx, lead_id: int) -> Wire[s.Lead]:
    return Wire(LEAD.one(ctx, lead_id, "lead", "lead_id"))


def case(ctx: Ctx, case_id: int) -> Wire[s.Case]:
    return Wire(CASE.one(ctx, case_id, "case", "case_id"))


def opportunity_detail(ctx: Ctx, opportunity_id: int) -> Wire[s.OpportunityDetail]:
    found = OPPORTUNITY.one(ctx, opportunity_id, "opportunity", "opportunity_id")
    found["history"] = [wire.row(_HISTORY, h) for h in ctx.sql.execute(_HISTORY_SQL, (opportunity_id,))]
    return Wire(found)


def activities(ctx: Ctx, related_object: str, related_id: int) -> Wire[s.Activities]:
    """``list_activities``: what was logged on the record (on an account, on its contacts, opportunities and
    cases too), oldest first."""
    table = m.OBJECTS[related_object]
    if ctx.sql.execute(f"select 1 from {table.__tablename__} where id = ?", (related_id,)).fetchone() is None:
        raise NotFound(f"no {related_object.lower()} with id {related_id}", field="related_id")
    where, params = "(t.related_object = ? and t.related_id = ?)", [related_object, related_id]
    if related_object == "Account":
        for obj, child in (("Contact", m.Contact), ("Opportunity", m.Opportunity), ("Case", m.Case)):
            where += (f" or (t.related_object = ? and t.related_id in"
                      f" (select id from {child.__tablename__} where account_id = ?))")
            params += [obj, related_id]
    found = {name: shape.where(ctx, where, tuple(params), "t.created_at, t.id")
             for name, shape in (("tasks", TASK), ("events", EVENT), ("notes", NOTE))}
    return Wire(found)
