"""What CRM operations take and return: the public shapes, separate from the tables."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

# SQLite hands times back without their zone; every stored time is UTC, so say so in results.
Time = Annotated[datetime, AfterValidator(lambda t: t if t.tzinfo else t.replace(tzinfo=timezone.utc))]


class Public(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Audit(Public):
    id: int
    owner: str = Field(description="Address of the person who owns the record")
    created_by: str
    created_at: Time
    updated_at: Time


class Address(Public):
    street: str | None = None
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str | None = None


class Account(Audit):
    name: str
    industry: str | None
    type: str | None
    parent_id: int | None
    parent_name: str | None
    website: str | None
    phone: str | None
    billing_address: Address
    annual_revenue: float | None
    employees: int | None
    description: str


class Contact(Audit):
    account_id: int | None
    account_name: str | None
    first_name: str
    last_name: str
    name: str
    title: str | None
    email: str | None
    phone: str | None
    reports_to_id: int | None
    reports_to_name: str | None
    lead_source: str | None


class Lead(Audit):
    first_name: str
    last_name: str
    name: str
    company: str
    title: str | None
    email: str | None
    phone: str | None
    status: str
    source: str | None
    industry: str | None
    description: str
    is_converted: bool
    converted_at: Time | None
    converted_account_id: int | None
    converted_contact_id: int | None
    converted_opportunity_id: int | None


class Opportunity(Audit):
    account_id: int
    account_name: str
    name: str
    amount: float | None
    close_date: date | None
    stage: str
    probability: int
    is_closed: bool
    is_won: bool
    next_step: str | None
    type: str | None
    lead_source: str | None
    loss_reason: str | None
    description: str


class FieldChange(Public):
    field: str = Field(description="stage, amount, close_date, or 'created'")
    old_value: str | None
    new_value: str | None
    changed_by: str
    changed_at: Time


class Case(Audit):
    account_id: int | None
    account_name: str | None
    contact_id: int | None
    contact_name: str | None
    subject: str
    description: str
    status: str
    priority: str
    origin: str | None
    is_closed: bool
    closed_at: Time | None


class Task(Audit):
    related_object: str | None
    related_id: int | None
    subject: str
    status: str
    priority: str
    due_date: date | None
    description: str
    completed_at: Time | None


class Event(Audit):
    related_object: str | None
    related_id: int | None
    subject: str
    start: Time
    end: Time
    location: str | None
    description: str


class Note(Audit):
    related_object: str
    related_id: int
    title: str
    body: str


class AccountDetail(Account):
    contacts: list[Contact]
    opportunities: list[Opportunity]
    cases: list[Case]


class OpportunityDetail(Opportunity):
    history: list[FieldChange] = Field(description="Tracked field changes, oldest first")


class Activities(Public):
    tasks: list[Task]
    events: list[Event]
    notes: list[Note]


class Conversion(Public):
    lead: Lead
    account: Account
    contact: Contact
    opportunity: Opportunity | None


class SearchHit(Public):
    object: str = Field(description="Account, Contact, Lead, Opportunity or Case")
    id: int
    name: str
    detail: str = Field(description="What matched beside the name: email, company or account")


class QueryResult(Public):
    object: str
    total_size: int = Field(description="How many records came back (Salesforce's totalSize; for COUNT(), the count)")
    matching: int = Field(0, description="How many records match, before LIMIT and OFFSET")
    records: list[dict[str, Any]]


class StageTotal(Public):
    stage: str
    count: int
    amount: float = Field(description="Sum of amounts in the stage")
    weighted_amount: float = Field(description="Sum of amount x probability / 100")


class Pipeline(Public):
    owner: str | None = Field(description="Whose pipeline, or null for everyone's")
    stages: list[StageTotal]
    open_amount: float
    open_weighted_amount: float


class PriorityGroup(Public):
    priority: str
    count: int
    cases: list[Case]


class User(Public):
    email: str
    name: str
    title: str
    team: str
    manager: str | None


ActivityObject = Literal["Task", "Event", "Note"]
AnyObject = Literal["Account", "Contact", "Lead", "Opportunity", "Case", "Task", "Event", "Note"]


class RecordRef(Public):
    object: str
    id: int


class DeletedRecord(Public):
    """A record in the recycle bin (or just taken out of it)."""

    object: str
    id: int = Field(description="The id it had and gets back on restore")
    name: str
    deleted_by: str
    deleted_at: Time
    deleted_with_it: list[RecordRef] = Field(description="Records deleted with it, restored with it")
