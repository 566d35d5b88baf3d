"""CRM operations for customer service: cases, from opening to closing.

A case may name an account and a contact; when it names a contact only, it takes the contact's
account, and a contact from another account is refused. Closing stamps ``closed_at``.
"""

from __future__ import annotations

from apps.crm import fastpath, store
from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm.picklists import CaseStatus
from apps.kit import Ctx, Invalid, OperationSet
from apps.kit.wire import Wire

ops = OperationSet("crm")


@ops.read
def get_case(ctx: Ctx, case_id: int) -> Wire[s.Case]:
    """Read a case.

    Args:
        case_id: Id of the case.
    """
    return fastpath.case(ctx, case_id)   # what store.case gives, in plain SQL


def _links(ctx: Ctx, account_id: int | None, contact_id: int | None) -> tuple[int | None, int | None]:
    if account_id is not None:
        store.get(ctx, m.Account, account_id, "account_id")
    if contact_id is None:
        return account_id, None
    contact = store.get(ctx, m.Contact, contact_id, "contact_id")
    if account_id is not None and contact.account_id not in (None, account_id):
        raise Invalid(f"contact_id: contact {contact_id} works at account {contact.account_id}, "
                      f"not account {account_id}", field="contact_id")
    return account_id if account_id is not None else contact.account_id, contact_id


def _status(ctx: Ctx, case: m.Case, status: CaseStatus) -> None:
    if status == "Closed" and case.status != "Closed":
        case.closed_at = ctx.now
    elif status != "Closed":
        case.closed_at = None
    case.status = status


@ops.write
def create_case(ctx: Ctx, fields: s.CaseCreate, owner: str | None = None) -> s.Case:
    """Open a support case for a customer.

    Args:
        owner: Address of the user who handles it; defaults to you.
    """
    values = fields.model_dump()
    status = values.pop("status")
    values["account_id"], values["contact_id"] = _links(ctx, values["account_id"], values["contact_id"])
    values["subject"] = store.required_text(values["subject"], "subject")
    case = store.new(ctx, m.Case, owner, **values)
    _status(ctx, case, status)
    return store.case(ctx, store.stamp(ctx, case))


@ops.write
def update_case(ctx: Ctx, case_id: int, fields: s.CaseUpdate, owner: str | None = None) -> s.Case:
    """Change a case (escalate, reprioritise, reassign, close); fields left out keep their value.

    Only the case's owner or their managers may change it.

    Args:
        case_id: Id of the case.
        owner: Reassign to this user.
    """
    case = store.get(ctx, m.Case, case_id, "case_id")
    store.check_edit(ctx, case, f"case {case.id} ({case.subject})")
    values = fields.model_dump(exclude_unset=True)
    status, contact_id = values.pop("status", None), values.pop("contact_id", None)
    if contact_id is not None:
        case.account_id, case.contact_id = _links(ctx, case.account_id, contact_id)
    if "subject" in values:
        values["subject"] = store.required_text(values["subject"], "subject")
    if owner is not None:
        case.owner = store.person(ctx, owner)
    case.sqlmodel_update(values)
    if status is not None:
        _status(ctx, case, status)
    return store.case(ctx, store.stamp(ctx, case))
