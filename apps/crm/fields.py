"""The fields each object exposes to queries: the allowlist, with Salesforce's API names as aliases.

A field is looked up by its name with case, underscores and dots ignored, so ``close_date``,
``CloseDate`` and ``closedate`` are the same field, and ``Account.Name`` is ``account_name``.
Only expressions written here ever reach SQL; values are always bound as parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from apps.crm import models as m


@dataclass(frozen=True)
class QField:
    name: str
    sql: str
    kind: str  # text, number, bool, date, datetime


def _account(column: str) -> str:
    return f"(select a.name from crm_account a where a.id = t.{column})"


def _contact(column: str) -> str:
    return f"(select trim(c.first_name || ' ' || c.last_name) from crm_contact c where c.id = t.{column})"


_FULL_NAME = "trim(t.first_name || ' ' || t.last_name)"
_DERIVED: dict[str, list[QField]] = {
    "Account": [QField("parent_name", _account("parent_id"), "text")],
    "Contact": [QField("name", _FULL_NAME, "text"), QField("account_name", _account("account_id"), "text"),
                QField("reports_to_name", _contact("reports_to_id"), "text")],
    "Lead": [QField("name", _FULL_NAME, "text")],
    "Opportunity": [QField("account_name", _account("account_id"), "text"),
                    QField("is_closed", "(t.stage in ('Closed Won', 'Closed Lost'))", "bool"),
                    QField("is_won", "(t.stage = 'Closed Won')", "bool")],
    "Case": [QField("account_name", _account("account_id"), "text"),
             QField("contact_name", _contact("contact_id"), "text"),
             QField("is_closed", "(t.status = 'Closed')", "bool")],
}
# Salesforce API names that do not reduce to ours by dropping case and underscores.
_ALIASES = {
    "ownerid": "owner", "stagename": "stage", "numberofemployees": "employees", "createddate": "created_at",
    "lastmodifieddate": "updated_at", "createdbyid": "created_by", "leadsource": "lead_source",
    "activitydate": "due_date", "startdatetime": "start", "enddatetime": "end", "whatid": "related_id",
    "isconverted": "is_converted", "subject": "subject", "accountname": "account_name",
}
_KINDS = {bool: "bool", int: "number", float: "number", date: "date", datetime: "datetime", str: "text"}


def normal(name: str) -> str:
    return name.lower().replace("_", "").replace(".", "")


def _columns(table) -> list[QField]:
    out = []
    for column in table.__table__.columns:
        # SQLModel wraps some types (times in a UTC decorator); the kind is the wrapped type's.
        kind = _KINDS.get(getattr(column.type, "impl", column.type).python_type, "text")
        out.append(QField(column.name, f't."{column.name}"', kind))
    return out


def _catalogue() -> dict[str, dict[str, QField]]:
    out = {}
    for obj, table in m.OBJECTS.items():
        fields = _columns(table) + _DERIVED.get(obj, [])
        out[obj] = {normal(f.name): f for f in fields}
    return out


FIELDS = _catalogue()


def field(obj: str, name: str) -> QField | None:
    known = FIELDS[obj]
    key = normal(name)
    return known.get(key) or known.get(normal(_ALIASES.get(key, key)))


def names(obj: str) -> list[str]:
    return [f.name for f in FIELDS[obj].values()]
