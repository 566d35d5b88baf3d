"""CRM operations on leads: capture, work, qualify, and convert into account, contact and opportunity.

A lead moves New -> Working -> Qualified or Unqualified and never back to New. Conversion, as in
Salesforce, creates a contact (and a new account unless an existing one is chosen, and optionally an
opportunity closing at the end of the quarter), moves the lead's activities to the contact, and
leaves the lead Qualified, converted and read-only.
"""

from __future__ import annotations

from datetime import date, timedelta

from sqlmodel import select

from apps.crm import fastpath, selling, store
from apps.crm import models as m
from apps.crm import schemas as s
from apps.kit import Conflict, Ctx, Invalid, OperationSet
from apps.kit.wire import Wire

ops = OperationSet("crm")


@ops.read
def get_lead(ctx: Ctx, lead_id: int) -> Wire[s.Lead]:
    """Read a lead.

    Args:
        lead_id: Id of the lead.
    """
    return fastpath.lead(ctx, lead_id)   # what store.lead gives, in plain SQL


@ops.write
def create_lead(ctx: Ctx, fields: s.LeadCreate, owner: str | None = None) -> s.Lead:
    """Create a lead: a person at a company who may become a customer.

    Args:
        owner: Address of the user who works the lead; defaults to you.
    """
    values = fields.model_dump()
    values.update(last_name=store.required_text(values["last_name"], "last_name"),
                  company=store.required_text(values["company"], "company"), first_name=values["first_name"].strip(),
                  email=store.email(values["email"]))
    return store.lead(ctx, store.new(ctx, m.Lead, owner, **values))


def _editable(ctx: Ctx, lead_id: int) -> m.Lead:
    lead = store.get(ctx, m.Lead, lead_id, "lead_id")
    store.check_edit(ctx, lead, f"lead {lead.id} ({store.full_name(lead)}, {lead.company})")
    if lead.is_converted:
        raise Conflict(f"lead {lead.id} was converted on {lead.converted_at:%Y-%m-%d} and can no longer be "
                       f"changed; work with contact {lead.converted_contact_id} instead", field="lead_id")
    return lead


@ops.write
def update_lead(ctx: Ctx, lead_id: int, fields: s.LeadUpdate, owner: str | None = None) -> s.Lead:
    """Change a lead; fields left out keep their value. Only its owner or their managers may.

    Args:
        lead_id: Id of the lead.
        owner: Reassign to this user.
    """
    lead = _editable(ctx, lead_id)
    values = fields.model_dump(exclude_unset=True)
    if values.get("status") == "New" and lead.status != "New":
        raise Invalid(f"status: a {lead.status} lead cannot go back to New", field="status")
    values = {k: (None if v == "" and k not in ("first_name", "description") else v) for k, v in values.items()}
    for name in ("last_name", "company"):
        if name in values:
            values[name] = store.required_text(values[name] or "", name)
    if "email" in values:
        values["email"] = store.email(values["email"])
    if owner is not None:
        values["owner"] = store.person(ctx, owner)
    lead.sqlmodel_update(values)
    return store.lead(ctx, store.stamp(ctx, lead))


def quarter_end(day: date) -> date:
    first_of_next = date(day.year + (day.month > 9), (((day.month - 1) // 3 + 1) * 3) % 12 + 1, 1)
    return first_of_next - timedelta(days=1)


def _move_activities(ctx: Ctx, lead: m.Lead, contact: m.Contact) -> None:
    for table in (m.Task, m.Event, m.Note):
        for row in ctx.session.exec(select(table).where(table.related_object == "Lead",
                                                        table.related_id == lead.id)):
            row.related_object, row.related_id = "Contact", contact.id
            ctx.session.add(row)


@ops.write
def convert_lead(ctx: Ctx, lead_id: int, account_id: int | None = None, create_opportunity: bool = True,
                 opportunity_name: str | None = None, owner: str | None = None) -> s.Conversion:
    """Convert a lead into a contact at an account (new or existing) and, optionally, an opportunity.

    Args:
        lead_id: Id of the lead to convert.
        account_id: Attach the contact to this existing account instead of creating one named after the company.
        create_opportunity: Also create an opportunity in Prospecting, closing at the end of this quarter.
        opportunity_name: Name of the new opportunity; defaults to the company name followed by '-'.
        owner: Owner of the new records; defaults to the lead's owner.
    """
    lead = _editable(ctx, lead_id)
    if lead.status == "Unqualified":
        raise Conflict(f"lead {lead.id} is Unqualified; set its status to Working before converting it",
                       field="lead_id")
    owner = store.person(ctx, owner or lead.owner)
    if account_id is not None:
        account = store.get(ctx, m.Account, account_id, "account_id")
    else:
        account = store.new(ctx, m.Account, owner, name=lead.company, industry=lead.industry, type="Prospect")
    contact = store.new(ctx, m.Contact, owner, account_id=account.id, first_name=lead.first_name,
                        last_name=lead.last_name, title=lead.title, email=lead.email, phone=lead.phone,
                        lead_source=lead.source)
    opportunity = None
    if create_opportunity:
        opportunity = selling.open_opportunity(
            ctx, owner, account_id=account.id, name=opportunity_name or f"{lead.company}-", stage="Prospecting",
            close_date=quarter_end(ctx.now.date()), lead_source=lead.source, type="New Customer")
    _move_activities(ctx, lead, contact)
    lead.sqlmodel_update(dict(status="Qualified", is_converted=True, converted_at=ctx.now,
                              converted_account_id=account.id, converted_contact_id=contact.id,
                              converted_opportunity_id=opportunity.id if opportunity else None))
    store.stamp(ctx, lead)
    return s.Conversion(lead=store.lead(ctx, lead), account=store.account(ctx, account),
                        contact=store.contact(ctx, contact),
                        opportunity=store.opportunity(ctx, opportunity) if opportunity else None)
