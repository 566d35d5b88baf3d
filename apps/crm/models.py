"""CRM entities, each declared once (``apps.kit.entity``): Salesforce's standard objects, each owned
by a person of the world. The tables, what agents may set (``create``/``update``) and see, and what a
world's ``crm/`` files hold (``world``) all come from these fields.

Every record carries ``owner`` (a person's address), audit times from the virtual clock and, when
it came from world data, its stable ``key`` (e.g. ``globex-logistics``) so that checks can name it.
Tasks, events and notes hang off any record through ``related_object`` and ``related_id``.
Table and column names are read by tasks, the GUI and ``fastpath``: they do not change.
Operations take ``owner`` (defaults differ) and an opportunity's ``probability`` (defaults to the
stage's) as their own arguments, so those fields are not ``create``/``update`` fields here.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from pydantic import Field as PydanticField
from pydantic import create_model
from sqlalchemy import Index, String, literal_column
from sqlmodel import Field, SQLModel

from apps.crm.picklists import (
    AccountType,
    CaseOrigin,
    CasePriority,
    CaseStatus,
    LeadSource,
    LeadStatus,
    OpportunityType,
    ParentObject,
    Stage,
    TaskPriority,
    TaskStatus,
)
from apps.kit.entity import Strict, attr

_ONLY_SEEN = dict(create=False, update=False, world=False)
_HIDDEN = dict(create=False, update=False, see=False, world=False)


class Record(SQLModel):
    """Columns every CRM object shares."""

    id: int | None = attr(None, primary_key=True, description="Id of the record", **_ONLY_SEEN)
    key: str | None = attr(None, index=True, description="Stable key of a record from world data", **_HIDDEN)
    owner: str = attr(index=True, description="Address of the person who owns the record", create=False,
                      update=False)
    created_by: str = attr("", description="Address of the person who created the record", **_ONLY_SEEN)
    created_at: datetime = attr(description="When the record was created (UTC)", **_ONLY_SEEN)
    updated_at: datetime = attr(description="When the record last changed (UTC)", **_ONLY_SEEN)


def _billing(part: str) -> Any:
    return attr(None, description=f"Billing address: {part} ('' clears it)", see=False, world=False)


class Account(Record, table=True):
    __tablename__ = "crm_account"
    name: str = attr(index=True, description="The company's name")
    industry: str | None = attr(None, description="Industry, e.g. 'Logistics' ('' clears it)")
    type: AccountType | None = attr(None, description="Relationship to the company", sa_type=String)
    parent_id: int | None = attr(None, foreign_key="crm_account.id", world=False,
                                 description="Id of the parent account, for subsidiaries")
    website: str | None = attr(None, description="Web address ('' clears it)")
    phone: str | None = attr(None, description="Main phone number ('' clears it)")
    billing_street: str | None = _billing("street")
    billing_city: str | None = _billing("city")
    billing_state: str | None = _billing("state or province")
    billing_postal_code: str | None = _billing("postal code")
    billing_country: str | None = _billing("country")
    annual_revenue: float | None = attr(None, ge=0, description="Annual revenue in dollars (not negative)")
    employees: int | None = attr(None, ge=0, description="Number of employees (not negative)")
    description: str = attr("", description="Free-text description")


# The billing address's parts (street, city, state, postal code, country): an account's ``billing_<part>``
# columns and create/update arguments, the nested ``billing_address`` of results and ``billing`` of world files.
BILLING: tuple[str, ...] = tuple(n.removeprefix("billing_") for n in Account.model_fields if n.startswith("billing_"))
_PARTS: dict[str, Any] = {part: (str | None, PydanticField(None, description=f"Billing address: {part}"))
                          for part in BILLING}
_Address: Any = create_model("Address", __base__=Strict, **_PARTS)
if TYPE_CHECKING:
    Address = Any
else:
    Address = _Address


def billing_columns(address: Any) -> dict[str, str | None]:
    """An ``Address`` as an account's ``billing_<part>`` columns."""
    return {f"billing_{part}": getattr(address, part) for part in BILLING}


def billing_address(account: Account) -> Any:
    """An account's ``billing_<part>`` columns as an ``Address``."""
    return Address(**{part: getattr(account, f"billing_{part}") for part in BILLING})


class Contact(Record, table=True):
    __tablename__ = "crm_contact"
    account_id: int | None = attr(None, foreign_key="crm_account.id", index=True, world=False,
                                  description="Id of the contact's account")
    first_name: str = attr("", description="First name")
    last_name: str = attr(description="Last name (required, as in Salesforce)")
    title: str | None = attr(None, description="Job title ('' clears it)")
    email: str | None = attr(None, index=True, description="Email address ('' clears it)")
    phone: str | None = attr(None, description="Phone number ('' clears it)")
    reports_to_id: int | None = attr(None, foreign_key="crm_contact.id", world=False,
                                     description="Id of the contact this one reports to")
    lead_source: LeadSource | None = attr(None, description="Where the contact came from", create=False,
                                          update=False, sa_type=String)


class Lead(Record, table=True):
    __tablename__ = "crm_lead"
    first_name: str = attr("", description="First name")
    last_name: str = attr(description="Last name (required)")
    company: str = attr(index=True, description="The lead's company (required)")
    title: str | None = attr(None, description="Job title ('' clears it)")
    email: str | None = attr(None, index=True, description="Email address ('' clears it)")
    phone: str | None = attr(None, description="Phone number ('' clears it)")
    status: LeadStatus = attr("New", description="Status (usually New to start); a lead never goes back to New",
                              sa_type=String)
    source: LeadSource | None = attr(None, description="Where the lead came from", sa_type=String)
    industry: str | None = attr(None, description="The company's industry ('' clears it)")
    description: str = attr("", description="Free-text description")
    is_converted: bool = attr(False, description="Whether the lead was converted", **_ONLY_SEEN)
    converted_at: datetime | None = attr(None, description="When it was converted", **_ONLY_SEEN)
    converted_account_id: int | None = attr(None, foreign_key="crm_account.id", **_ONLY_SEEN,
                                            description="The account it was converted into")
    converted_contact_id: int | None = attr(None, foreign_key="crm_contact.id", **_ONLY_SEEN,
                                            description="The contact it was converted into")
    converted_opportunity_id: int | None = attr(None, foreign_key="crm_opportunity.id", **_ONLY_SEEN,
                                                description="The opportunity created by the conversion")


class Opportunity(Record, table=True):
    __tablename__ = "crm_opportunity"
    # ``query`` ordered by amount either way (then by ``id``, as every query ends: ties keep that order) reads an
    # index in order, with no sort; a range on amount (``WHERE amount > 50000``) is searched in one. One index
    # cannot serve both: read backwards, (amount, id) gives id descending within a tie, so SQLite sorts each tie.
    __table_args__ = (Index("ix_crm_opportunity_amount", "amount", "id"),
                      Index("ix_crm_opportunity_amount_desc", literal_column("amount desc"), "id"))
    account_id: int = attr(foreign_key="crm_account.id", index=True, update=False, world=False,
                           description="Id of the account the deal is with")
    name: str = attr(index=True, description="Name of the deal, e.g. 'Globex - Renewal 2026'")
    amount: float | None = attr(None, ge=0, description="Deal value in dollars (not negative)")
    close_date: date = attr(description="Expected (or, when closed, actual) close date, YYYY-MM-DD; required, "
                            "as in Salesforce: it can be moved but not cleared")
    stage: Stage = attr("Prospecting", index=True, sa_type=String, description="Sales stage; its default "
                        "probability applies unless probability is given")
    probability: int = attr(ge=0, le=100, description="Chance of winning, 0-100", create=False, update=False)
    next_step: str | None = attr(None, description="The next thing to do to move the deal on ('' clears it)")
    type: OpportunityType | None = attr(None, description="New or existing business", sa_type=String)
    lead_source: LeadSource | None = attr(None, description="Where the deal came from", sa_type=String)
    loss_reason: str | None = attr(None, description="Why it was lost (required for Closed Lost; '' clears it)")
    description: str = attr("", description="Free-text description")


class OpportunityHistory(SQLModel, table=True):
    """Field history: one row per tracked field change (stage, amount, close date) or creation."""

    __tablename__ = "crm_opportunity_history"
    id: int | None = attr(None, primary_key=True, description="Row id", **_HIDDEN)
    opportunity_id: int = attr(foreign_key="crm_opportunity.id", index=True, description="The opportunity",
                               **_HIDDEN)
    field: str = attr(description="stage, amount, close_date, or 'created'", **_ONLY_SEEN)
    old_value: str | None = attr(None, description="The value before the change", **_ONLY_SEEN)
    new_value: str | None = attr(None, description="The value after the change", **_ONLY_SEEN)
    changed_by: str = attr(description="Who changed it", **_ONLY_SEEN)
    changed_at: datetime = attr(description="When (UTC)", **_ONLY_SEEN)


class Case(Record, table=True):
    __tablename__ = "crm_case"
    account_id: int | None = attr(None, foreign_key="crm_account.id", index=True, update=False, world=False,
                                  description="Id of the customer's account (taken from the contact when left out)")
    contact_id: int | None = attr(None, foreign_key="crm_contact.id", world=False,
                                  description="Id of the contact who reported it (at the case's account)")
    subject: str = attr(description="One line saying what is wrong")
    description: str = attr("", description="The details")
    status: CaseStatus = attr("New", description="Status; Closed records when it was closed", sa_type=String)
    priority: CasePriority = attr("Medium", description="How urgent it is", sa_type=String)
    origin: CaseOrigin | None = attr(None, description="How it came in", sa_type=String)
    closed_at: datetime | None = attr(None, description="When it was closed", **_ONLY_SEEN)


class Activity(Record):
    """What tasks and events share: the record they are about."""

    related_object: ParentObject | None = attr(None, description="The kind of record it is about", update=False,
                                               world=False, sa_type=String)
    related_id: int | None = attr(None, description="Id of that record", update=False, world=False)


class Task(Activity, table=True):
    """A to-do; ``owner`` is the person it is assigned to."""

    __tablename__ = "crm_task"
    subject: str = attr(description="What to do, e.g. 'Call Sam about the renewal'")
    status: TaskStatus = attr("Not Started", description="Status; Completed records when it was done",
                              sa_type=String)
    priority: TaskPriority = attr("Normal", description="How urgent it is", sa_type=String)
    due_date: date | None = attr(None, description="When it is due, YYYY-MM-DD", world=False)
    description: str = attr("", description="Details")
    completed_at: datetime | None = attr(None, description="When it was completed", **_ONLY_SEEN)


class Event(Activity, table=True):
    """A meeting or call on the calendar; ``owner`` is the person it is assigned to."""

    __tablename__ = "crm_event"
    subject: str = attr(description="What the meeting is, e.g. 'Renewal review with Globex'")
    start: datetime = attr(description="Start time with zone, e.g. 2026-03-20T15:00:00-04:00")
    end: datetime = attr(description="End time with zone; after the start")
    location: str | None = attr(None, description="Where, or a call link")
    description: str = attr("", description="Agenda or notes")


class Note(Record, table=True):
    """A note on a record; ``owner`` is its author."""

    __tablename__ = "crm_note"
    related_object: ParentObject = attr(description="The kind of record", world=False, sa_type=String)
    related_id: int = attr(description="Id of the record", world=False)
    title: str = attr(description="Title of the note")
    body: str = attr("", description="Text of the note")


class Deleted(SQLModel, table=True):
    """A record in the recycle bin: its row as JSON, so that restoring puts back the same id and values.

    Records deleted with another (an account's contacts, opportunities and cases, and every
    deleted record's activities) point at that one's bin entry in ``group_id``; links that deleting
    had to clear (a child account's parent, a case's contact) are kept in ``cleared`` to put back.
    Internal: no operation takes or returns it as such (``schemas.DeletedRecord`` summarises it).
    """

    __tablename__ = "crm_recycle_bin"
    id: int | None = Field(default=None, primary_key=True)
    object: str = Field(index=True)
    record_id: int = Field(index=True)
    name: str = ""
    data: str
    group_id: int | None = Field(default=None, index=True)
    cleared: str = "[]"
    deleted_by: str
    deleted_at: datetime


TABLES: list[type[SQLModel]] = [Account, Contact, Lead, Opportunity, OpportunityHistory, Case, Task, Event, Note, Deleted]
OBJECTS: dict[str, type[Record]] = {
    "Account": Account, "Contact": Contact, "Lead": Lead, "Opportunity": Opportunity,
    "Case": Case, "Task": Task, "Event": Event, "Note": Note,
}
