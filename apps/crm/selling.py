"""CRM operations for selling: opportunities (with their validation rules and field history) and leads.

Opportunity rules, as a Salesforce admin would set them up: the stage sets the default probability;
amounts are not negative; every opportunity has a close date (required on create, as in Salesforce, and never
cleared: a closed one's is the day it closed); Closed Lost needs a loss reason.
Stage, amount and close date changes are tracked in the field history.
"""

from __future__ import annotations

from sqlmodel import col, select

from apps.crm import fastpath, store
from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm.picklists import CLOSED_STAGES, STAGE_PROBABILITY
from apps.kit import Ctx, Invalid, OperationSet
from apps.kit.wire import Wire

ops = OperationSet("crm")
TRACKED = ("stage", "amount", "close_date")


def check_opportunity(o: m.Opportunity) -> None:
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
    o = store.get(ctx, m.Opportunity, opportunity_id, "opportunity_id")
    store.check_edit(ctx, o, f"opportunity {o.id} ({o.name})")
    before = {name: getattr(o, name) for name in TRACKED}
    values = fields.model_dump(exclude_unset=True)
    if values.get("stage") not in (None, o.stage) and probability is None:
        probability = STAGE_PROBABILITY[values["stage"]]
    if probability is not None:
        values["probability"] = probability
    values.update({k: (values[k] or None) for k in ("next_step", "loss_reason") if k in values})
    if "name" in values:
        values["name"] = store.required_text(values["name"], "name")
    if owner is not None:
        values["owner"] = store.person(ctx, owner)
    o.sqlmodel_update(values)
    check_opportunity(o)
    track(ctx, o, before)
    store.stamp(ctx, o)   # one flush writes the change and its history
    return fastpath.opportunity_detail(ctx, store.ident(o))   # what ``detail`` gives, read back in plain SQL
