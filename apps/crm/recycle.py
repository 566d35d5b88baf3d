"""Deleting records and the recycle bin, with Salesforce's rules.

- Deleting a record takes its tasks, events and notes with it (and an opportunity's field history).
- Deleting an account takes its contacts, opportunities and cases (and all of their activities);
  child accounts lose their parent link, and get it back on restore. An account with a Closed Won
  opportunity or a case that you may not edit cannot be deleted (their owners must agree).
- Deleting a contact clears it as the contact of cases and as someone's manager (reports_to).
- Restoring puts everything deleted with it back, with the same ids. A record deleted with its
  account comes back only with that account; one whose account is in the bin waits for it.
Only someone who may edit a record (its owner or a manager above them) may delete it; the person
who deleted it, or anyone who may edit it, may restore it.
"""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import SQLModel, col, select

from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm import store
from apps.crm.picklists import ParentObject
from apps.kit import Conflict, Ctx, Forbidden, NotFound, OperationSet

ops = OperationSet("crm")
DeletableObject = ParentObject  # Task, Event and Note are deleted with their own operation below
_CHILDREN = {"Account": [("Contact", "account_id"), ("Opportunity", "account_id"), ("Case", "account_id")]}
_CLEARED = {"Account": [("Account", "parent_id")], "Contact": [("Contact", "reports_to_id"), ("Case", "contact_id")]}
_ACTIVITIES = (("Task", m.Task), ("Event", m.Event), ("Note", m.Note))
_TABLES: dict[str, type[SQLModel]] = {**m.OBJECTS, "OpportunityHistory": m.OpportunityHistory}


def _name(obj: str, row) -> str:
    if isinstance(row, (m.Contact, m.Lead)):
        return store.full_name(row)
    return str(getattr(row, "name", None) or getattr(row, "subject", None) or getattr(row, "title", "") or "")


def _doomed(ctx: Ctx, obj: str, row) -> list[tuple[str, Any]]:
    """The record and everything deleted with it, the record first."""
    found = [(obj, row)]
    for child, column in _CHILDREN.get(obj, []):
        table = m.OBJECTS[child]
        found += [(child, r) for r in ctx.session.exec(select(table).where(getattr(table, column) == row.id))]
    for parent_obj, parent in list(found):
        for name, table in _ACTIVITIES:
            if parent_obj not in ("Task", "Event", "Note"):
                found += [(name, r) for r in ctx.session.exec(select(table).where(
                    table.related_object == parent_obj, table.related_id == parent.id))]
        if parent_obj == "Opportunity":
            found += [("OpportunityHistory", h) for h in ctx.session.exec(select(m.OpportunityHistory).where(
                m.OpportunityHistory.opportunity_id == parent.id))]
    return found


def _check_may_delete(ctx: Ctx, doomed: list[tuple[str, Any]]) -> None:
    obj, row = doomed[0]
    store.check_edit(ctx, row, f"{obj.lower()} {row.id} ({_name(obj, row)})")
    for child, r in doomed[1:]:
        guarded = (child == "Opportunity" and r.stage == "Closed Won") or child == "Case"
        if guarded and not store.can_edit(ctx, r):
            raise Forbidden(f"account {row.id} has {child.lower()} {r.id} ({_name(child, r)}) owned by {r.owner}, "
                            "which you may not delete; ask them to delete or reassign it first",
                            field="record_id")


def _clear_links(ctx: Ctx, obj: str, row, doomed_keys: set) -> list:
    cleared = []
    for other, column in _CLEARED.get(obj, []):
        table = m.OBJECTS[other]
        for r in ctx.session.exec(select(table).where(getattr(table, column) == row.id)):
            if (other, r.id) not in doomed_keys:
                setattr(r, column, None)
                ctx.session.add(r)
                cleared.append([other, r.id, column, row.id])
    return cleared


def delete(ctx: Ctx, obj: str, record_id: int) -> s.DeletedRecord:
    row = store.get(ctx, m.OBJECTS[obj], record_id, "record_id")
    doomed = _doomed(ctx, obj, row)
    _check_may_delete(ctx, doomed)
    keys = {(o, r.id) for o, r in doomed}
    cleared = [c for o, r in doomed if o in m.OBJECTS for c in _clear_links(ctx, o, r, keys)]
    top: m.Deleted | None = None
    for o, r in doomed:
        entry = m.Deleted(object=o, record_id=r.id, name=_name(o, r), group_id=top.id if top else None,
                          data=json.dumps(r.model_dump(mode="json"), sort_keys=True),
                          cleared=json.dumps(cleared if top is None else []), deleted_by=ctx.actor,
                          deleted_at=ctx.now)
        ctx.session.add(entry)
        ctx.session.flush()
        top = top or entry
        ctx.session.delete(r)
    ctx.session.flush()
    if top is None:
        raise RuntimeError("nothing was deleted")
    return _summary(ctx, top)


def _summary(ctx: Ctx, top: m.Deleted) -> s.DeletedRecord:
    others = ctx.session.exec(select(m.Deleted).where(m.Deleted.group_id == top.id).order_by(col(m.Deleted.id))).all()
    return s.DeletedRecord(object=top.object, id=top.record_id, name=top.name, deleted_by=top.deleted_by,
                           deleted_at=top.deleted_at,
                           deleted_with_it=[s.RecordRef(object=o.object, id=o.record_id) for o in others
                                            if o.object != "OpportunityHistory"])


def _parent_missing(ctx: Ctx, entry: m.Deleted, data: dict) -> str | None:
    if entry.object in ("Contact", "Opportunity", "Case") and data.get("account_id") is not None:
        if ctx.session.get(m.Account, data["account_id"]) is None:
            return f"its account {data['account_id']} is in the recycle bin; restore the account first"
    if entry.object in ("Task", "Event", "Note") and data.get("related_object"):
        if ctx.session.get(m.OBJECTS[data["related_object"]], data["related_id"]) is None:
            return (f"the {data['related_object'].lower()} {data['related_id']} it belongs to is in the recycle "
                    "bin; restore that first")
    return None


def restore(ctx: Ctx, obj: str, record_id: int) -> s.DeletedRecord:
    entry = ctx.session.exec(select(m.Deleted).where(m.Deleted.object == obj, m.Deleted.record_id == record_id)
                             .order_by(col(m.Deleted.id).desc())).first()
    if entry is None:
        raise NotFound(f"no {obj.lower()} {record_id} in the recycle bin", field="record_id")
    if entry.group_id is not None:
        top = ctx.session.get(m.Deleted, entry.group_id)
        what = f"{top.object.lower()} {top.record_id} ({top.name})" if top else "another record"
        raise Conflict(f"{obj.lower()} {record_id} was deleted with {what}; restore that to bring it back",
                       field="record_id")
    data = json.loads(entry.data)
    row: Any = m.OBJECTS[obj].model_validate(data)
    if entry.deleted_by != ctx.actor and not store.can_edit(ctx, row):
        raise Forbidden(f"only {entry.deleted_by}, who deleted it, or someone who may edit it can restore "
                        f"{obj.lower()} {record_id}", field="record_id")
    problem = _parent_missing(ctx, entry, data)
    if problem:
        raise Conflict(f"cannot restore {obj.lower()} {record_id}: {problem}", field="record_id")
    summary = _summary(ctx, entry)
    group = [entry, *ctx.session.exec(select(m.Deleted).where(m.Deleted.group_id == entry.id).order_by(col(m.Deleted.id)))]
    for e in group:
        ctx.session.add(_TABLES[e.object].model_validate(json.loads(e.data)))
    ctx.session.flush()
    for other, other_id, column, value in json.loads(entry.cleared):
        r = ctx.session.get(m.OBJECTS[other], other_id)
        if r is not None and getattr(r, column) is None:
            setattr(r, column, value)
            ctx.session.add(r)
    for e in group:
        ctx.session.delete(e)
    ctx.session.flush()
    return summary


@ops.write
def delete_record(ctx: Ctx, object: DeletableObject, record_id: int) -> s.DeletedRecord:
    """Delete a record: it goes to the recycle bin, with what Salesforce deletes with it.

    An account takes its contacts, opportunities and cases; every record takes its tasks, events
    and notes. restore_record brings it all back.

    Args:
        object: The kind of record.
        record_id: Id of the record.
    """
    return delete(ctx, object, record_id)


@ops.write
def delete_activity(ctx: Ctx, object: s.ActivityObject, record_id: int) -> s.DeletedRecord:
    """Delete a task, event or note (to the recycle bin).

    Args:
        object: Task, Event or Note.
        record_id: Id of the activity.
    """
    return delete(ctx, object, record_id)


@ops.write
def restore_record(ctx: Ctx, object: s.AnyObject, record_id: int) -> s.DeletedRecord:
    """Take a record out of the recycle bin, with everything deleted with it, under the same ids.

    Args:
        object: The kind of record.
        record_id: Id the record had.
    """
    return restore(ctx, object, record_id)


@ops.read
def list_recycle_bin(ctx: Ctx, everyone: bool = False) -> list[s.DeletedRecord]:
    """List deleted records, newest first: those you deleted, or everyone's.

    Args:
        everyone: List what every user deleted, not only you.
    """
    query = select(m.Deleted).where(col(m.Deleted.group_id).is_(None))
    if not everyone:
        query = query.where(m.Deleted.deleted_by == ctx.actor)
    return [_summary(ctx, e) for e in ctx.session.exec(query.order_by(col(m.Deleted.deleted_at).desc(),
                                                                       col(m.Deleted.id).desc()))]
