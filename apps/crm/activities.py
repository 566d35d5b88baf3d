"""CRM operations on activities: tasks, events and notes, attached to any record.

Anyone may log an activity on any record (everyone reads every record); a task or event is then
owned by the person it is assigned to, and only that person or their managers may change it.
"""

from __future__ import annotations

from datetime import date, datetime, timezone

from sqlmodel import and_, or_, select

from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm import store
from apps.kit import Ctx, Invalid, OperationSet
from worlds.crm_picklists import ParentObject, TaskPriority, TaskStatus

ops = OperationSet("crm")


def _parent(ctx: Ctx, related_object: str | None, related_id: int | None) -> dict:
    if (related_object is None) != (related_id is None):
        raise Invalid("related_id: give both related_object and related_id, or neither", field="related_id")
    if related_object is not None:
        store.get(ctx, m.OBJECTS[related_object], related_id, "related_id")
    return dict(related_object=related_object, related_id=related_id)


def _utc(moment: datetime, field: str) -> datetime:
    if moment.tzinfo is None:
        raise Invalid(f"{field}: give a time with its zone, e.g. 2026-03-20T15:00:00-04:00", field=field)
    return moment.astimezone(timezone.utc)


@ops.read
def list_activities(ctx: Ctx, related_object: ParentObject, related_id: int) -> s.Activities:
    """List the tasks, events and notes on a record, oldest first.

    An account's list also holds what was logged on its contacts, opportunities and cases, as
    Salesforce's related lists roll them up; each item's related_object and related_id say where.

    Args:
        related_object: The kind of record.
        related_id: Id of the record.
    """
    _parent(ctx, related_object, related_id)
    parents = [(related_object, related_id)]
    if related_object == "Account":
        for obj, table in (("Contact", m.Contact), ("Opportunity", m.Opportunity), ("Case", m.Case)):
            parents += [(obj, i) for i in ctx.session.exec(select(table.id).where(table.account_id == related_id))]

    def rows(table):
        wanted = or_(*[and_(table.related_object == obj, table.related_id == i) for obj, i in parents])
        return [store.activity(r) for r in ctx.session.exec(
            select(table).where(wanted).order_by(table.created_at, table.id))]

    return s.Activities(tasks=rows(m.Task), events=rows(m.Event), notes=rows(m.Note))


@ops.write
def create_task(ctx: Ctx, subject: str, related_object: ParentObject | None = None, related_id: int | None = None,
                due_date: date | None = None, priority: TaskPriority = "Normal", status: TaskStatus = "Not Started",
                description: str = "", owner: str | None = None) -> s.Task:
    """Create a task (a call to make, an email to send, a to-do), optionally on a record.

    Args:
        subject: What to do, e.g. 'Call Sam about the renewal'.
        related_object: The kind of record it is about.
        related_id: Id of that record.
        due_date: When it is due, YYYY-MM-DD.
        priority: How urgent it is.
        status: Starting status.
        description: Details.
        owner: Address of the user it is assigned to; defaults to you.
    """
    task = store.new(ctx, m.Task, owner, subject=store.required_text(subject, "subject"),
                     **_parent(ctx, related_object, related_id), due_date=due_date, priority=priority,
                     status=status, description=description,
                     completed_at=ctx.now if status == "Completed" else None)
    return store.activity(task)


@ops.write
def update_task(ctx: Ctx, task_id: int, status: TaskStatus | None = None, subject: str | None = None,
                due_date: date | None = None, priority: TaskPriority | None = None,
                description: str | None = None, owner: str | None = None) -> s.Task:
    """Change a task, e.g. mark it Completed; fields left out keep their value.

    Args:
        task_id: Id of the task.
        status: New status; Completed records when it was done.
        subject: New subject.
        due_date: New due date, YYYY-MM-DD.
        priority: New priority.
        description: New details.
        owner: Reassign to this user.
    """
    task = store.get(ctx, m.Task, task_id, "task_id")
    store.check_edit(ctx, task, f"task {task.id} ({task.subject})")
    if status is not None and status != task.status:
        task.completed_at = ctx.now if status == "Completed" else None
    if subject is not None:
        task.subject = store.required_text(subject, "subject")
    if owner is not None:
        task.owner = store.person(ctx, owner)
    task.sqlmodel_update({k: v for k, v in dict(status=status, due_date=due_date, priority=priority,
                                                description=description).items() if v is not None})
    return store.activity(store.stamp(ctx, task))


@ops.write
def create_event(ctx: Ctx, subject: str, start: datetime, end: datetime, related_object: ParentObject | None = None,
                 related_id: int | None = None, location: str | None = None, description: str = "",
                 owner: str | None = None) -> s.Event:
    """Put a meeting or call on the calendar, optionally on a record.

    Args:
        subject: What the meeting is, e.g. 'Renewal review with Globex'.
        start: Start time with zone, e.g. 2026-03-20T15:00:00-04:00.
        end: End time with zone; after the start.
        related_object: The kind of record it is about.
        related_id: Id of that record.
        location: Where, or a call link.
        description: Agenda or notes.
        owner: Address of the user it is assigned to; defaults to you.
    """
    start, end = _utc(start, "start"), _utc(end, "end")
    if end <= start:
        raise Invalid("end: an event must end after it starts", field="end")
    event = store.new(ctx, m.Event, owner, subject=store.required_text(subject, "subject"),
                      **_parent(ctx, related_object, related_id), start=start, end=end, location=location,
                      description=description)
    return store.activity(event)


@ops.write
def add_note(ctx: Ctx, related_object: ParentObject, related_id: int, title: str, body: str = "") -> s.Note:
    """Add a note to a record; you are its author and owner.

    Args:
        related_object: The kind of record.
        related_id: Id of the record.
        title: Title of the note.
        body: Text of the note.
    """
    note = store.new(ctx, m.Note, None, title=store.required_text(title, "title"),
                     **_parent(ctx, related_object, related_id), body=body)
    return store.activity(note)
