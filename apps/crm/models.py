"""CRM tables: Salesforce's standard objects, each owned by a person of the world.

Every record carries ``owner`` (a person's address), audit times from the virtual clock and, when
it came from world data, its stable ``key`` (e.g. ``globex-logistics``) so that checks can name it.
Tasks, events and notes hang off any record through ``related_object`` and ``related_id``.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlmodel import Field, SQLModel


class Record(SQLModel):
    """Columns every CRM object shares."""

    id: int | None = Field(default=None, primary_key=True)
    key: str | None = Field(default=None, index=True)
    owner: str = Field(index=True)
    created_by: str = ""
    created_at: datetime
    updated_at: datetime


class Account(Record, table=True):
    __tablename__ = "crm_account"
    name: str = Field(index=True)
    industry: str | None = None
    type: str | None = None
    parent_id: int | None = Field(default=None, foreign_key="crm_account.id")
    website: str | None = None
    phone: str | None = None
    billing_street: str | None = None
    billing_city: str | None = None
    billing_state: str | None = None
    billing_postal_code: str | None = None
    billing_country: str | None = None
    annual_revenue: float | None = None
    employees: int | None = None
    description: str = ""


class Contact(Record, table=True):
    __tablename__ = "crm_contact"
    account_id: int | None = Field(default=None, foreign_key="crm_account.id", index=True)
    first_name: str = ""
    last_name: str
    title: str | None = None
    email: str | None = Field(default=None, index=True)
    phone: str | None = None
    reports_to_id: int | None = Field(default=None, foreign_key="crm_contact.id")
    lead_source: str | None = None


class Lead(Record, table=True):
    __tablename__ = "crm_lead"
    first_name: str = ""
    last_name: str
    company: str = Field(index=True)
    title: str | None = None
    email: str | None = Field(default=None, index=True)
    phone: str | None = None
    status: str = "New"
    source: str | None = None
    industry: str | None = None
    description: str = ""
    is_converted: bool = False
    converted_at: datetime | None = None
    converted_account_id: int | None = Field(default=None, foreign_key="crm_account.id")
    converted_contact_id: int | None = Field(default=None, foreign_key="crm_contact.id")
    converted_opportunity_id: int | None = Field(default=None, foreign_key="crm_opportunity.id")


class Opportunity(Record, table=True):
    __tablename__ = "crm_opportunity"
    account_id: int = Field(foreign_key="crm_account.id", index=True)
    name: str = Field(index=True)
    amount: float | None = None
    close_date: date | None = None
    stage: str = Field(index=True)
    probability: int
    next_step: str | None = None
    type: str | None = None
    lead_source: str | None = None
    loss_reason: str | None = None
    description: str = ""


class OpportunityHistory(SQLModel, table=True):
    """Field history: one row per tracked field change (stage, amount, close date) or creation."""

    __tablename__ = "crm_opportunity_history"
    id: int | None = Field(default=None, primary_key=True)
    opportunity_id: int = Field(foreign_key="crm_opportunity.id", index=True)
    field: str
    old_value: str | None = None
    new_value: str | None = None
    changed_by: str
    changed_at: datetime


class Case(Record, table=True):
    __tablename__ = "crm_case"
    account_id: int | None = Field(default=None, foreign_key="crm_account.id", index=True)
    contact_id: int | None = Field(default=None, foreign_key="crm_contact.id")
    subject: str
    description: str = ""
    status: str = "New"
    priority: str = "Medium"
    origin: str | None = None
    closed_at: datetime | None = None


class Task(Record, table=True):
    """A to-do; ``owner`` is the person it is assigned to."""

    __tablename__ = "crm_task"
    related_object: str | None = None
    related_id: int | None = None
    subject: str
    status: str = "Not Started"
    priority: str = "Normal"
    due_date: date | None = None
    description: str = ""
    completed_at: datetime | None = None


class Event(Record, table=True):
    """A meeting or call on the calendar; ``owner`` is the person it is assigned to."""

    __tablename__ = "crm_event"
    related_object: str | None = None
    related_id: int | None = None
    subject: str
    start: datetime
    end: datetime
    location: str | None = None
    description: str = ""


class Note(Record, table=True):
    """A note on a record; ``owner`` is its author."""

    __tablename__ = "crm_note"
    related_object: str
    related_id: int
    title: str
    body: str = ""


class Deleted(SQLModel, table=True):
    """A record in the recycle bin: its row as JSON, so that restoring puts back the same id and values.

    Records deleted with another (an account's contacts, opportunities and cases, and every
    deleted record's activities) point at that one's bin entry in ``group_id``; links that deleting
    had to clear (a child account's parent, a case's contact) are kept in ``cleared`` to put back.
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


TABLES = [Account, Contact, Lead, Opportunity, OpportunityHistory, Case, Task, Event, Note, Deleted]
OBJECTS: dict[str, type[Record]] = {
    "Account": Account, "Contact": Contact, "Lead": Lead, "Opportunity": Opportunity,
    "Case": Case, "Task": Task, "Event": Event, "Note": Note,
}
