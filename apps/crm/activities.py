"""CRM operations on activities: tasks, events and notes, attached to any record.

Anyone may log an activity on any record (everyone reads every record); a task or event is then
owned by the person it is assigned to, and only that person or their managers may change it.
"""

from __future__ import annotations

from datetime import datetime, timezone

from apps.crm import fastpath, store
from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm.picklists import ParentObject
from apps.kit import Ctx, Invalid, OperationSet
from apps.kit.wire import Wire

ops = OperationSet("crm")


def _parent(ctx: Ctx, related_object: str | None, related_id: int | None) -> dict:
    if (related_object is None) != (related_id is None):
        raise Invalid("related_id: give both related_object and related_id, or neither", field="related_id")
    if related_object is not None:
        store.get(ctx, m.OBJECTS[related_object], store.ident_of(related_id), "related_id")
    return dict(related_object=related_object, related_id=related_id)


def _utc(moment: datetime, field: str) -> datetime:
    if moment.tzinfo is None:
        raise Invalid(f"{field}: give a time with its zone, e.g. 2026-03-20T15:00:00-04:00", field=field)
    return moment.astimezone(timezone.utc)


@ops.read
def list_activities(ctx: Ctx, related_object: ParentObject, related_id: int) -> Wire[s.Activities]:
    """List the tasks, events and notes on a record, oldest first.

    An account's list also holds what was logged on its contacts, opportunities and cases, as
    Salesforce's related lists roll them up; each item's related_object and related_id say where.

    Args:
        related_object: The kind of record.
        related_id: Id of the record.
    """
    return fastpath.activities(ctx, related_object, related_id)   # what the ORM path gave, in plain SQL


@ops.write
def create_task(ctx: Ctx, fields: s.TaskCreate, owner: str | None = None) -> s.Task:
    """Create a task (a call to make, an email to send, a to-do), optionally on a record.

    Args:
        owner: Address of the user it is assigned to; defaults to you.
    """
    values = fields.model_dump()
    values.update(_parent(ctx, values["related_object"], values["related_id"]),
                  subject=store.required_text(values["subject"], "subject"),
                  completed_at=ctx.now if values["status"] == "Completed" else None)
    return store.activity(store.new(ctx, m.Task, owner, **values))


@ops.write
def update_task(ctx: Ctx, task_id: int, fields: s.TaskUpdate, owner: str | None = None) -> s.Task:
    """Change a task, e.g. mark it Completed; fields left out keep their value.

    Args:
        task_id: Id of the task.
        owner: Reassign to this user.
    """
    task = store.get(ctx, m.Task, task_id, "task_id")
    store.check_edit(ctx, task, f"task {task.id} ({task.subject})")
    values = fields.model_dump(exclude_unset=True)
    if values.get("status") not in (None, task.status):
        task.completed_at = ctx.now if values["status"] == "Completed" else None
    if "subject" in values:
        values["subject"] = store.required_text(values["subject"], "subject")
    if owner is not None:
        task.owner = store.person(ctx, owner)
    task.sqlmodel_update(values)
    return store.activity(store.stamp(ctx, task))


@ops.write
def create_event(ctx: Ctx, fields: s.EventCreate, owner: str | None = None) -> s.Event:
    """Put a meeting or call on the calendar, optionally on a record.

    Args:
        owner: Address of the user it is assigned to; defaults to you.
    """
    values = fields.model_dump()
    start, end = _utc(values["start"], "start"), _utc(values["end"], "end")
    if end <= start:
        raise Invalid("end: an event must end after it starts", field="end")
    values.update(_parent(ctx, values["related_object"], values["related_id"]), start=start, end=end,
                  subject=store.required_text(values["subject"], "subject"))
    return store.activity(store.new(ctx, m.Event, owner, **values))


@ops.write
def add_note(ctx: Ctx, fields: s.NoteCreate) -> s.Note:
    """Add a note to a record; you are its author and owner."""
    values = fields.model_dump()
    values.update(_parent(ctx, values["related_object"], values["related_id"]),
                  title=store.required_text(values["title"], "title"))
    return store.activity(store.new(ctx, m.Note, None, **values))
