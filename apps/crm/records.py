"""The records of a world's ``crm/`` files, derived from the entities (``derive(..., "world")``) with
the fields only a world file has: keys naming other records (``account``, ``parent``, ``related``),
``created`` times in the world's zone, an opportunity's recorded ``history``. See ``apps.crm.world``."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, create_model

from apps.crm import models as m
from apps.kit.entity import Strict, derive
from worlds.lines import Lines


def _record(entity: type[BaseModel], order: str, **extra: Any) -> Any:
    """The entity's ``world`` fields plus ``extra`` (keys naming other records, times in the world's zone),
    in the order of ``order`` (the files' order of keys; the entity's other world fields follow)."""
    fields = {name: (info.annotation, info) for name, info in derive(entity, "world").model_fields.items()}
    fields.update(extra)
    names = order.split()
    names += [n for n in fields if n not in names]
    model: Any = create_model(f"{entity.__name__}Record", __base__=Strict, **{n: fields[n] for n in names})  # type: ignore[call-overload]
    return model


def _optional(description: str, kind: Any = str) -> Any:
    return kind | None, Field(None, description=description)


_CREATED = _optional("When it was created (naive: in the world's zone; default: the world's now)", datetime)
_RELATED = _optional("The record it is about: <account|contact|lead|opportunity|case>/<key>")


class HistoryEntry(Strict):
    field: Literal["stage", "amount", "close_date"]
    old: str | float | date | None = None
    new: str | float | date | None = None
    by: str
    at: datetime


if TYPE_CHECKING:  # models made at run time: mypy sees them as Any
    AccountRecord = Any
    ContactRecord = Any
    LeadRecord = Any
    OpportunityRecord = Any
    CaseRecord = Any
    TaskRecord = Any
    EventRecord = Any
    NoteRecord = Any
else:
    AccountRecord = _record(m.Account, "name owner industry type parent website phone billing", created=_CREATED,
                            parent=_optional("Key of the parent account"),
                            billing=(m.Address, Field(default_factory=m.Address, description="Billing address")))
    ContactRecord = _record(m.Contact, "account first_name last_name title email phone reports_to owner",
                            account=_optional("Key of the contact's account"), created=_CREATED,
                            reports_to=_optional("Key of the contact this one reports to"),
                            owner=_optional("Defaults to the account's owner"))
    LeadRecord = _record(m.Lead, "first_name last_name company owner", created=_CREATED)
    OpportunityRecord = _record(
        m.Opportunity, "account name owner stage", account=(str, Field(description="Key of the account")),
        stage=(m.Opportunity.model_fields["stage"].annotation, Field(description="Sales stage")),
        probability=(int | None, Field(None, ge=0, le=100, description="Chance of winning (default: the stage's)")),
        created=_CREATED, history=(list[HistoryEntry], Field(default_factory=list, description="Tracked changes")))
    CaseRecord = _record(m.Case, "subject owner account contact", account=_optional("Key of the account"),
                         contact=_optional("Key of the contact"), created=_CREATED,
                         closed=_optional("When it was closed", datetime))
    TaskRecord = _record(m.Task, "subject owner related status priority due description", related=_RELATED,
                         due=_optional("When it is due", date), created=_CREATED)
    EventRecord = _record(m.Event, "subject owner start end related", related=_RELATED,
                          start=(datetime, Field(description="Start (naive: in the world's zone)")),
                          end=(datetime, Field(description="End (naive: in the world's zone)")))
    NoteRecord = _record(m.Note, "related owner", related=(str, Field(description=_RELATED[1].description)),
                         created=_CREATED)


class CrmData(Strict):
    accounts: dict[str, AccountRecord] = Field(default_factory=dict)
    contacts: dict[str, ContactRecord] = Field(default_factory=dict)
    leads: dict[str, LeadRecord] = Field(default_factory=dict)
    opportunities: dict[str, OpportunityRecord] = Field(default_factory=dict)
    cases: dict[str, CaseRecord] = Field(default_factory=dict)
    tasks: dict[str, TaskRecord] = Field(default_factory=dict)
    events: dict[str, EventRecord] = Field(default_factory=dict)
    notes: dict[str, NoteRecord] = Field(default_factory=dict)
    _owners: list[tuple[str, str]] = PrivateAttr(default_factory=list)  # (file:line, address) of checked owners
    _lines: dict[str, Lines] = PrivateAttr(default_factory=dict)  # each loaded file's lines


