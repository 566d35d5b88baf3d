"""What CRM operations take and return: results and argument models derived from the entities in
``models`` (``apps.kit.entity``), plus the shapes no table holds (search hits, query results, totals)."""

from __future__ import annotations

from datetime import datetime, timezone
from types import UnionType
from typing import TYPE_CHECKING, Any, Literal, Self, Union, get_args, get_origin

from pydantic import Field, model_validator

from apps.crm import models as m
from apps.kit.entity import Strict, derive


class Public(Strict):
    """A result: SQLite hands times back without their zone, and every stored time is UTC, so say so."""

    @model_validator(mode="after")
    def _utc(self) -> Self:
        kind = type(self)
        names = _TIMES.get(kind)
        if names is None:
            names = _TIMES[kind] = tuple(n for n, f in kind.model_fields.items() if _may_be_time(f.annotation))
        for name in names:
            value = getattr(self, name)
            if isinstance(value, datetime) and value.tzinfo is None:
                object.__setattr__(self, name, value.replace(tzinfo=timezone.utc))
        return self


_TIMES: dict[type, tuple[str, ...]] = {}   # per result model: the fields that may hold a time (looked at above)


def _may_be_time(annotation: Any) -> bool:
    if annotation is Any or annotation is object or annotation is datetime:
        return True
    return get_origin(annotation) in (Union, UnionType) and any(_may_be_time(a) for a in get_args(annotation))


if TYPE_CHECKING:
    # mypy cannot see the fields of a model made at run time (``derive``): it checks each against the
    # entity it is made from, whose fields it has.
    AccountCreate = m.Account
    AccountUpdate = m.Account
    ContactCreate = m.Contact
    ContactUpdate = m.Contact
    LeadCreate = m.Lead
    LeadUpdate = m.Lead
    OpportunityCreate = m.Opportunity
    OpportunityUpdate = m.Opportunity
    CaseCreate = m.Case
    CaseUpdate = m.Case
    TaskCreate = m.Task
    TaskUpdate = m.Task
    EventCreate = m.Event
    NoteCreate = m.Note
    _AccountFields = m.Account
    _ContactFields = m.Contact
    _LeadFields = m.Lead
    _OpportunityFields = m.Opportunity
    _CaseFields = m.Case
    _TaskFields = m.Task
    _EventFields = m.Event
    _NoteFields = m.Note
    _OpportunityHistoryFields = Any  # fastpath builds it from raw rows
else:
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
    _AccountFields = derive(m.Account, "see", "AccountFields", base=Public)
    _ContactFields = derive(m.Contact, "see", "ContactFields", base=Public)
    _LeadFields = derive(m.Lead, "see", "LeadFields", base=Public)
    _OpportunityFields = derive(m.Opportunity, "see", "OpportunityFields", base=Public)
    _CaseFields = derive(m.Case, "see", "CaseFields", base=Public)
    _TaskFields = derive(m.Task, "see", "TaskFields", base=Public)
    _EventFields = derive(m.Event, "see", "EventFields", base=Public)
    _NoteFields = derive(m.Note, "see", "NoteFields", base=Public)
    _OpportunityHistoryFields = derive(m.OpportunityHistory, "see", "OpportunityHistoryFields", base=Public)


class Account(_AccountFields):
    parent_name: str | None = Field(description="Name of the parent account")
    billing_address: m.Address = Field(description="Billing address")


class Contact(_ContactFields):
    account_name: str | None = Field(description="Name of the account")
    name: str = Field(description="Full name")
    reports_to_name: str | None = Field(description="Name of the contact this one reports to")


class Lead(_LeadFields):
    name: str = Field(description="Full name")


class Opportunity(_OpportunityFields):
    account_name: str = Field(description="Name of the account")
    is_closed: bool = Field(description="Closed Won or Closed Lost")
    is_won: bool = Field(description="Closed Won")


class Case(_CaseFields):
    account_name: str | None = Field(description="Name of the account")
    contact_name: str | None = Field(description="Name of the contact")
    is_closed: bool = Field(description="Status Closed")


class Task(_TaskFields):
    """A task."""


class Event(_EventFields):
    """A CRM event."""


class Note(_NoteFields):
    """A note."""


class FieldChange(_OpportunityHistoryFields):
    """One tracked change of an opportunity."""


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
