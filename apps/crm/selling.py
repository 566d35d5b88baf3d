"""CRM operations for selling: opportunities (with their validation rules and field history) and leads.

Opportunity rules, as a Salesforce admin would set them up: the stage sets the default probability;
amounts are not negative; every opportunity has a close date (required on create, as in Salesforce, and never
cleared: a closed one's is the day it closed); Closed Lost needs a loss reason.
Stage, amount and close date changes are tracked in the field history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlmodel import col, select

from apps.crm import fastpath, store
from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm.picklists import CLOSED_STAGES, STAGE_PROBABILITY
from apps.kit import Ctx, Invalid, OperationSet
from apps.kit.database import day, stored_time, utc_time
from apps.kit.wire import Wire, wired

ops = OperationSet("crm")
TRACKED = ("stage", "amount", "close_date")


def check_opportunity(o: m.Opportunity | _Deal) -> None:
    """The validation rules; each error names the argument to fix."""
    store.non_negative(o.amount, "amount")
    if not 0 <= o.probability <= 100:
        raise Invalid(f"probability: must be between 0 and 100 (got {o.probability})", field="probability")
    if o.close_date is None:
        raise Invalid(f"close_date: {'a ' + o.stage if o.stage in CLOSED_STAGES else 'an'} opportunity needs a close "
                      "date; move it to another day rather than clearing it", field="close_date")
    if o.stage == "Closed Lost" and not (o.loss_reason or "").strip():
        raise Invalid("loss_reason: say why the opportunity was lost to move it to Closed Lost",
                      field="loss_reason")


def _text(value) -> str | None:
    return None if value is None else str(value)


def track(ctx: Ctx, o: m.Opportunity, before: dict) -> None:
    for name in TRACKED:
        old, new = before.get(name), getattr(o, name)
        if old != new:
            ctx.session.add(m.OpportunityHistory(opportunity_id=store.ident(o), field=name, old_value=_text(old),
                                                 new_value=_text(new), changed_by=ctx.actor, changed_at=ctx.now))


def detail(ctx: Ctx, o: m.Opportunity) -> s.OpportunityDetail:
    rows = ctx.session.exec(select(m.OpportunityHistory).where(m.OpportunityHistory.opportunity_id == o.id)
                            .order_by(col(m.OpportunityHistory.changed_at), col(m.OpportunityHistory.id)))
    history = [s.FieldChange(field=h.field, old_value=h.old_value, new_value=h.new_value, changed_by=h.changed_by,
                             changed_at=h.changed_at) for h in rows]
    return s.OpportunityDetail(**store.opportunity(ctx, o).model_dump(), history=history)


def open_opportunity(ctx: Ctx, owner: str | None, **values) -> m.Opportunity:
    """Create an opportunity after checking it; its history starts with a 'created' entry."""
    values["name"] = store.required_text(values["name"], "name")
    if values.get("probability") is None:
        values["probability"] = STAGE_PROBABILITY[values["stage"]]
    check_opportunity(m.Opportunity(owner="", created_at=ctx.now, updated_at=ctx.now, **values))
    o = store.new(ctx, m.Opportunity, owner, **values)
    ctx.session.add(m.OpportunityHistory(opportunity_id=store.ident(o), field="created", changed_by=ctx.actor,
                                         changed_at=ctx.now))
    track(ctx, o, {})
    return o


@ops.read
def get_opportunity(ctx: Ctx, opportunity_id: int) -> Wire[s.OpportunityDetail]:
    """Read an opportunity with its field history (stage, amount and close date changes).

    Args:
        opportunity_id: Id of the opportunity.
    """
    return fastpath.opportunity_detail(ctx, opportunity_id)


@ops.write
def create_opportunity(ctx: Ctx, fields: s.OpportunityCreate, probability: int | None = None,
                       owner: str | None = None) -> s.OpportunityDetail:
    """Create an opportunity (a deal) at an account.

    Args:
        probability: Chance of winning, 0-100; defaults to the stage's probability.
        owner: Address of the user who owns it; defaults to you.
    """
    values = fields.model_dump()
    store.get(ctx, m.Account, values["account_id"], "account_id")
    values.update(next_step=values["next_step"] or None, loss_reason=values["loss_reason"] or None)
    return detail(ctx, open_opportunity(ctx, owner, probability=probability, **values))


@ops.write
def update_opportunity(ctx: Ctx, opportunity_id: int, fields: s.OpportunityUpdate, probability: int | None = None,
                       owner: str | None = None) -> Wire[s.OpportunityDetail]:
    """Change an opportunity; fields left out keep their value. Only its owner or their managers may.

    A new stage resets the probability to the stage's default unless probability is given too.
    Closing needs a close date; Closed Lost also needs a loss reason.

    Args:
        opportunity_id: Id of the opportunity.
        probability: New chance of winning, 0-100.
        owner: Reassign to this user.
    """
    found = _update_in_sql(ctx, opportunity_id, fields, probability, owner)
    return found if found is not None else wired(_update(ctx, opportunity_id, fields, probability, owner))


def _changes(ctx: Ctx, stage: str, fields: s.OpportunityUpdate, probability: int | None,
             owner: str | None) -> dict[str, Any]:
    """The columns an update sets, from its arguments, for an opportunity now at ``stage``."""
    values = fields.model_dump(exclude_unset=True)
    if values.get("stage") not in (None, stage) and probability is None:
        probability = STAGE_PROBABILITY[values["stage"]]
    if probability is not None:
        values["probability"] = probability
    values.update({k: (values[k] or None) for k in ("next_step", "loss_reason") if k in values})
    if "name" in values:
        values["name"] = store.required_text(values["name"], "name")
    if owner is not None:
        values["owner"] = store.person(ctx, owner)
    return values


def _update(ctx: Ctx, opportunity_id: int, fields: s.OpportunityUpdate, probability: int | None,
            owner: str | None) -> s.OpportunityDetail:
    """``update_opportunity`` through the ORM: where the plain-SQL path declines (to refuse the call)."""
    o = store.get(ctx, m.Opportunity, opportunity_id, "opportunity_id")
    store.check_edit(ctx, o, f"opportunity {o.id} ({o.name})")
    before = {name: getattr(o, name) for name in TRACKED}
    o.sqlmodel_update(_changes(ctx, o.stage, fields, probability, owner))
    check_opportunity(o)
    store.stamp(ctx, o)
    track(ctx, o, before)
    return detail(ctx, o)


# ``_update`` in plain SQL: the row's updatable columns (and owner) as stored, the update, the history rows.
_EDITABLE = ("owner", "name", "amount", "close_date", "stage", "probability", "next_step", "type", "lead_source",
             "loss_reason", "description")
_CURRENT = f"select {', '.join(_EDITABLE)}, updated_at from crm_opportunity where id = ?"
_HISTORY = ("insert into crm_opportunity_history (opportunity_id, field, old_value, new_value, changed_by, changed_at)"
            " values (?, ?, ?, ?, ?, ?)")


@dataclass
class _Deal:
    """What ``check_opportunity`` reads of an opportunity."""

    amount: float | None
    probability: int
    close_date: date | None
    stage: str
    loss_reason: str | None


def _update_in_sql(ctx: Ctx, opportunity_id: int, fields: s.OpportunityUpdate, probability: int | None,
                   owner: str | None) -> Wire[s.OpportunityDetail] | None:
    """``_update``'s rows and result without the ORM's objects and flushes (~1 ms of a ~1.1 ms call); ``None``, having
    written nothing, for a missing opportunity or one the actor may not edit, which ``_update`` refuses.
    ``tests/apps/crm/test_crm_fastwrite.py`` compares both, rows, change log and results, on every opportunity."""
    conn = ctx.sql
    row = conn.execute(_CURRENT, (opportunity_id,)).fetchone()
    if row is None or not store.may_edit(ctx, row[0]):
        return None
    before = dict(zip(_EDITABLE, row))
    before["close_date"] = day(before["close_date"])   # each value as the ORM reads it
    values = _changes(ctx, before["stage"], fields, probability, owner)
    after = {**before, **values}
    check_opportunity(_Deal(**{name: after[name] for name in ("amount", "probability", "close_date", "stage",
                                                              "loss_reason")}))
    # As the ORM's flush: only the columns whose value changes, and no statement when none does.
    changed = {name: value.isoformat() if isinstance(value, date) else value
               for name, value in values.items() if value != before[name]}
    moment = stored_time(ctx.now)
    if utc_time(row[-1]) != ctx.now:
        changed["updated_at"] = moment
    if changed:
        columns = ", ".join(f'"{name}" = ?' for name in changed)
        conn.execute(f"update crm_opportunity set {columns} where id = ?", (*changed.values(), opportunity_id))
    conn.executemany(_HISTORY, [(opportunity_id, name, _text(before[name]), _text(after[name]), ctx.actor, moment)
                                for name in TRACKED if before[name] != after[name]])
    return fastpath.opportunity_detail(ctx, opportunity_id)
