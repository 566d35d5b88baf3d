"""What CRM operations take and return: results and argument models derived from the entities in
``models`` (``apps.kit.entity``), plus the shapes no table holds (search hits, query results, totals)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal, Self

from pydantic import BaseModel, Field, model_validator

from apps.crm import models as m
from apps.kit.entity import Strict, derive



class Public(Strict):
    """A result: SQLite hands times back without their zone, and every stored time is UTC, so say so."""

    @model_validator(mode="after")
    def _utc(self) -> Self:
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, datetime) and value.tzinfo is None:
                object.__setattr__(self, name, value.replace(tzinfo=timezone.utc))
        return self


def _see(entity: type[BaseModel]) -> Any:
    return derive(entity, "see", f"{entity.__name__}Fields", base=Public)


class Address(Public):
    street: str | None = None
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str | None = None


class Account(_see(m.Account)):  # type: ignore[misc]
    parent_name: str | None = Field(description="Name of the parent account")
    billing_address: Address = Field(description="Billing address")


class Contact(_see(m.Contact)):  # type: ignore[misc]
    account_name: str | None = Field(description="Name of the account")
    name: str = Field(description="Full name")
    reports_to_name: str | None = Field(description="Name of the contact this one reports to")


class Lead(_see(m.Lead)):  # type: ignore[misc]
    name: str = Field(description="Full name")


class Opportunity(_see(m.Opportunity)):  # type: ignore[misc]
    account_name: str = Field(description="Name of the account")
    is_closed: bool = Field(description="Closed Won or Closed Lost")
    is_won: bool = Field(description="Closed Won")


class Case(_see(m.Case)):  # type: ignore[misc]
    account_name: str | None = Field(description="Name of the account")
    contact_name: str | None = Field(description="Name of the contact")
    is_closed: bool = Field(description="Status Closed")


class Task(_see(m.Task)):  # type: ignore[misc]
    """A task."""


class Event(_see(m.Event)):  # type: ignore[misc]
    """A CRM event."""


class Note(_see(m.Note)):  # type: ignore[misc]
    """A note."""


class FieldChange(_see(m.OpportunityHistory)):  # type: ignore[misc]
    """One tracked change of an opportunity."""


AccountCreate = derive(m.Account, "create")
AccountUpdate = derive(m.Account, "update")
ContactCreate = derive(m.Contact, "create")
ContactUpdate = derive(m.Contact, "update")
LeadCreate = derive(m.Lead, "create")
LeadUpdate = derive(m.Lead, "update")
OpportunityCreate = derive(m.Opportunity, "create")
OpportunityUpdate = derive(m.Opportunity, "update")
CaseCreate = derive(m.Case, "create")
CaseUpdate = derive(m.Case, "update")
TaskCreate = derive(m.Task, "create")
TaskUpdate = derive(m.Task, "update")
EventCreate = derive(m.Event, "create")
NoteCreate = derive(m.Note, "create")


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
    deleted_at: datetime
    deleted_with_it: list[RecordRef] = Field(description="Records deleted with it, restored with it")
