"""The fields each object exposes to queries: the allowlist, with Salesforce's API names as aliases.

A field is looked up by its name with case, underscores and dots ignored, so ``close_date``,
``CloseDate`` and ``closedate`` are the same field, and ``Account.Name`` is ``account_name``.
A parent's field is reached through any chain of lookups, as in Salesforce (``Account.Owner.Name``,
``Contact.Account.Industry``, up to five levels): ``path`` writes it as nested subqueries and names it by its
parts (``account_owner_name``). An owner or creator is a ``User``: a person of the world, whom the query sees
through the ``crm_user`` table ``users_cte`` writes from the world's people.
Only expressions written here ever reach SQL; values are always bound as parameters.
"""

from __future__ import annotations

import re
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


# Per object: lookup name (normalised) → (the object it points at, the column holding the link, the column of the
# target the link holds). ``What`` (a task's or event's record of any kind) is polymorphic and not followed.
_USER = ("User", "owner", "email")
LOOKUPS: dict[str, dict[str, tuple[str, str, str]]] = {
    "Account": {"parent": ("Account", "parent_id", "id"), "owner": _USER},
    "Contact": {"account": ("Account", "account_id", "id"), "reportsto": ("Contact", "reports_to_id", "id"),
                "owner": _USER},
    "Lead": {"owner": _USER, "convertedaccount": ("Account", "converted_account_id", "id"),
             "convertedcontact": ("Contact", "converted_contact_id", "id"),
             "convertedopportunity": ("Opportunity", "converted_opportunity_id", "id")},
    "Opportunity": {"account": ("Account", "account_id", "id"), "owner": _USER},
    "Case": {"account": ("Account", "account_id", "id"), "contact": ("Contact", "contact_id", "id"), "owner": _USER},
    "Task": {"owner": _USER}, "Event": {"owner": _USER}, "Note": {"owner": _USER},
    "User": {"manager": ("User", "manager", "email")},
}
for _links in LOOKUPS.values():
    if "owner" in _links:
        _links["createdby"] = ("User", "created_by", "email")
FIELDS["User"] = {normal(n): QField(n, f"t.{n}", "text") for n in ("name", "email", "title", "department", "manager")}
FIELDS["User"]["username"] = FIELDS["User"]["email"]
MAX_HOPS = 5   # Salesforce follows at most five levels of parents
_OUTER = re.compile(r"\bt\.")


def snake(name: str) -> str:
    """``ReportsTo`` → ``reports_to``: a Salesforce name as ours."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def path(obj: str, name: str, hop: int = 0) -> QField:
    """The field ``name`` (dotted through lookups) of ``obj``, as SQL over the row ``t``; ``LookupError`` saying why
    when a part is not known."""
    if name.count(".") > MAX_HOPS:
        raise LookupError(f"{name!r} follows more than {MAX_HOPS} lookups")
    found = field(obj, name)
    if found is not None:
        return found
    head, _, rest = name.partition(".")
    if not rest:
        raise LookupError(f"{obj} has no field {name!r}; its fields: {', '.join(names(obj))}")
    link = LOOKUPS.get(obj, {}).get(normal(_ALIASES.get(normal(head), head)))
    if link is None:
        known = ", ".join(sorted({snake(k) for k in LOOKUPS.get(obj, {})})) or "none"
        raise LookupError(f"{obj} has no lookup {head!r} to follow; its lookups: {known}")
    target, column, key = link
    inner = path(target, rest, hop + 1)
    alias = f"p{hop}"
    table = "crm_user" if target == "User" else m.OBJECTS[target].__tablename__
    sql = f"(select {_OUTER.sub(alias + '.', inner.sql)} from {table} {alias} where {alias}.{key} = t.{column})"
    return QField(f"{snake(head)}_{inner.name}", sql, inner.kind)


def users_cte(people) -> str:
    """``crm_user`` as a common table written from the world's people (``(email, name, title, team, manager)``):
    their values are the world's, never the query's, and are quoted here."""
    def quoted(value) -> str:
        return "null" if value is None else "'" + str(value).replace("'", "''") + "'"
    rows = ", ".join(f"({', '.join(quoted(v) for v in person)})" for person in people)
    body = f"values {rows}" if rows else "select null, null, null, null, null where 0"
    return f"with crm_user(email, name, title, department, manager) as ({body}) "
