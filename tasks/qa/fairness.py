"""Two gates every task meets before its runs count: it is **visible** and **not already done**.

- Visible: every record a binding names (a message, a file, a CRM record, an event) can be read by the acting
  person through the agents' own read operations after the setup, and every value an answer criterion expects
  appears in what the oracle's reads returned to that person. Numbers and money are exempt (a count or a total
  is worked out, not read), and so is a task tagged ``computed``. A task whose answer only someone else can see
  cannot be solved.
- Not already done: doing nothing fails every goal, and no goal over records is already met by the state the
  agent starts from (the same check with "created" set aside: the approval the task asks for is not already in
  the world).
"""

from __future__ import annotations

from typing import Any

from tasks.checks import Grading, records_check
from tasks.model import Call, Task
from tasks.parse import parse_date, tokens
from tasks.qa.attempt import Outcome
from tasks.qa.gates import Failure
from tasks.refs import resolve
from tasks.session import TaskRun, Tasks

# How an agent reads one record of each kind: the operation and its id argument.
READERS = {"mail.message": ("mail.get_message", "message_id"), "docs.item": ("docs.get_file", "file_id"),
           "crm.account": ("crm.get_account", "account_id"), "crm.contact": ("crm.get_contact", "contact_id"),
           "crm.lead": ("crm.get_lead", "lead_id"), "crm.opportunity": ("crm.get_opportunity", "opportunity_id"),
           "crm.case": ("crm.get_case", "case_id"), "calendar.event": ("calendar.get_event", "event_id")}


def visibility(engine: Tasks, run: TaskRun) -> list[Failure]:
    """Bound records the acting person cannot read, and expected answers none of the oracle's reads showed."""
    out = []
    task = run.task
    for name, binding in task.bindings.items():
        reader = READERS.get(binding.from_ or "")
        value = run.scope.get(name)
        if reader is None or binding.field is not None or value is None:
            continue
        for record in value if isinstance(value, list) else [value]:
            if not isinstance(record, dict) or "id" not in record:
                continue
            op, arg = reader
            step = engine.run_calls(run, [_call(op, {arg: record["id"]})])[0]
            if step.error:
                out.append(Failure("visibility", f"binding {name}",
                                   f"{run.episode.actor} cannot read {binding.from_} {record['id']} with {op}: "
                                   f"{step.error.get('message', '')[:160]}"))
    return out


def answers_seen(task: Task, scope: dict, read_texts: list[str]) -> list[Failure]:
    """Expected answer values that appear in none of the oracle's read results."""
    if "computed" in task.tags:
        return []
    out = []
    seen = " ".join(read_texts)
    for criterion in task.criteria:
        if criterion.answer is None or criterion.answer.expect is None:
            continue
        expect = resolve(criterion.answer.expect, scope)
        for value in expect if isinstance(expect, list) else [expect]:
            if not _appears(value, seen, criterion.answer.type):
                out.append(Failure("visibility", f"answer {criterion.id}",
                                   f"the expected {criterion.answer.type} {value!r} appears in none of the "
                                   "oracle's reads as the acting person"))
    return out


def already_done(run: TaskRun, nothing: Outcome | None, grading: Grading) -> list[Failure]:
    """Goals doing nothing passes, and goals over records the starting state already meets."""
    out = []
    goals = [c for c in run.task.criteria if c.role == "goal"]
    if nothing is not None and nothing.gradable:
        passed = [c.id for c in goals if c.id not in nothing.failed]
        if passed:
            out.append(Failure("not_already_done", "no call at all", f"doing nothing passes goal(s) {passed}"))
    for criterion in goals:
        spec = criterion.records
        if spec is None or spec.unchanged or spec.changed is not None:
            continue
        if spec.count == 0 or (not isinstance(spec.count, int) and spec.count is not None and spec.count.max == 0):
            continue   # "no such record": met at the start by design
        before = records_check(spec.model_copy(update={"created": False}), grading)
        if before.status == "pass":
            out.append(Failure("not_already_done", f"goal {criterion.id}",
                               f"the starting state already meets it: {str(before.evidence)[:200]}"))
    return out


def _call(op: str, args: dict) -> Call:
    return Call(op=op, args=args)


def _appears(value: Any, seen: str, kind: str) -> bool:
    if value is None or isinstance(value, bool) or kind in ("number", "money", "yesno"):
        return True
    if kind in ("date", "datetime"):
        day = parse_date(str(value))
        return day is None or day.isoformat() in seen or _spelled(day) in seen
    words = tokens(value)
    have = set(tokens(seen))
    return all(w in have for w in words)


def _spelled(day) -> str:
    return f"{day:%B} {day.day}"
