"""CRM operations on accounts, contacts and users (selling, service and activities have their own modules).

Everyone may read every record; only a record's owner and the managers above the owner may edit it.
In updates, an argument left out keeps its value and an empty string clears an optional text field.
"""

from __future__ import annotations

from apps.crm import fastpath, store
from apps.crm import models as m
from apps.crm import schemas as s
from apps.kit import Ctx, OperationSet
from apps.kit.wire import Wire

ops = OperationSet("crm")


@ops.read
def list_users(ctx: Ctx) -> Wire[list[s.User]]:
    """List the company's users (the people who can own records) with their managers."""
    return Wire([{"email": p.email, "name": p.name, "title": p.title, "team": p.team, "manager": p.manager}
                 for p in ctx.world.people])   # the world's people are checked when it loads: as a User dumps them


@ops.read
def get_account(ctx: Ctx, account_id: int) -> Wire[s.AccountDetail]:
    """Read an account with its contacts, opportunities and cases.

    Args:
        account_id: Id of the account.
    """
    return fastpath.account_detail(ctx, account_id)


def _account_values(ctx: Ctx, account: m.Account | None, values: dict) -> dict:
    store.non_negative(values.get("annual_revenue"), "annual_revenue")
    store.non_negative(values.get("employees"), "employees")
    if values.get("name") is not None:
        values["name"] = store.required_text(values["name"], "name")
    if values.get("parent_id") is not None:
        store.check_chain(ctx, m.Account, account, values["parent_id"], "parent_id",
                          "an account cannot be its own parent, directly or through others")
    return {k: (None if v == "" else v) for k, v in values.items() if v is not None}


@ops.write
def create_account(ctx: Ctx, fields: s.AccountCreate, owner: str | None = None) -> s.Account:
    """Create an account (a company you sell to or work with).

    Args:
        owner: Address of the user who owns it; defaults to you.
    """
    values = _account_values(ctx, None, fields.model_dump())
    return store.account(ctx, store.new(ctx, m.Account, owner, **values))


@ops.write
def update_account(ctx: Ctx, account_id: int, fields: s.AccountUpdate, owner: str | None = None) -> s.Account:
    """Change an account's fields; fields left out keep their value. Only its owner or their managers may.

    Args:
        account_id: Id of the account.
        owner: Reassign to this user.
    """
    a = store.get(ctx, m.Account, account_id, "account_id")
    store.check_edit(ctx, a, f"account {a.id} ({a.name})")
    changes = fields.model_dump(exclude_unset=True)
    description = changes.pop("description", None)
    values = _account_values(ctx, a, changes)
    if description is not None:
        values["description"] = description
    if owner is not None:
        values["owner"] = store.person(ctx, owner)
    a.sqlmodel_update(values)
    return store.account(ctx, store.stamp(ctx, a))


@ops.read
def get_contact(ctx: Ctx, contact_id: int) -> Wire[s.Contact]:
    """Read a contact.

    Args:
        contact_id: Id of the contact.
    """
    return fastpath.contact(ctx, contact_id)


def _contact_values(ctx: Ctx, contact: m.Contact | None, values: dict) -> dict:
    if values.get("account_id") is not None:
        store.get(ctx, m.Account, values["account_id"], "account_id")
    if values.get("reports_to_id") is not None:
        store.check_chain(ctx, m.Contact, contact, values["reports_to_id"], "reports_to_id",
                          "a contact cannot report to themselves, directly or through others")
    if values.get("last_name") is not None:
        values["last_name"] = store.required_text(values["last_name"], "last_name")
    if values.get("email") is not None:
        values["email"] = store.email(values["email"]) or ""
    return {k: (None if v == "" and k != "first_name" else v) for k, v in values.items() if v is not None}


@ops.write
def create_contact(ctx: Ctx, fields: s.ContactCreate, owner: str | None = None) -> s.Contact:
    """Create a contact, usually at an account.

    Args:
        owner: Address of the user who owns it; defaults to the account's owner, else you.
    """
    values = fields.model_dump()
    if owner is None and values["account_id"] is not None:
        owner = store.get(ctx, m.Account, values["account_id"], "account_id").owner
    values["first_name"] = values["first_name"].strip()
    return store.contact(ctx, store.new(ctx, m.Contact, owner, **_contact_values(ctx, None, values)))


@ops.write
def update_contact(ctx: Ctx, contact_id: int, fields: s.ContactUpdate, owner: str | None = None) -> s.Contact:
    """Change a contact's fields; fields left out keep their value. Only its owner or their managers may.

    Args:
        contact_id: Id of the contact.
        owner: Reassign to this user.
    """
    c = store.get(ctx, m.Contact, contact_id, "contact_id")
    store.check_edit(ctx, c, f"contact {c.id} ({store.full_name(c)})")
    values = _contact_values(ctx, c, fields.model_dump(exclude_unset=True))
    if owner is not None:
        values["owner"] = store.person(ctx, owner)
    c.sqlmodel_update(values)
    return store.contact(ctx, store.stamp(ctx, c))
