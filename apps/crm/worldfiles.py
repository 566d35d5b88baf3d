"""Reading ``crm/``: the YAML files with the line of every key, and every rule a record's own shape
cannot check (references between records, owners, closed deals, circles), each named ``file:line``."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import ValidationError

from apps.crm.records import (
    AccountRecord,
    CaseRecord,
    ContactRecord,
    CrmData,
    EventRecord,
    LeadRecord,
    NoteRecord,
    OpportunityRecord,
    TaskRecord,
)
from worlds.lines import Lines, read_yaml
from worlds.model import WorldInfo

_KEY = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_EMAIL = re.compile(r"^[a-z0-9._%+'-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$")
_FILES = {"accounts": AccountRecord, "contacts": ContactRecord, "leads": LeadRecord,
          "opportunities": OpportunityRecord, "cases": CaseRecord, "notes": NoteRecord}
# The object named in ``related: <object>/<key>`` and the collection its key lives in.
RELATED = {"account": "accounts", "contact": "contacts", "lead": "leads", "opportunity": "opportunities",
           "case": "cases"}


class _Files:
    """The YAML files of ``crm/``, read once, with the line of every key for problems."""

    def __init__(self, folder: Path, problems: list[str]):
        self.folder, self.problems = folder, problems
        self.lines: dict[str, Lines] = {}

    def read(self, file: str) -> dict:
        path, where = self.folder / file, f"crm/{file}"
        if not path.is_file():
            return {}
        raw, self.lines[file] = read_yaml(path, where, self.problems)
        if raw is not None and not isinstance(raw, dict):
            self.problems.append(f"{where}: must map record keys to records")
        return raw if isinstance(raw, dict) else {}

    def problem(self, file: str, key: str, text: str) -> None:
        """``crm/<file>:<line>: <key>: <text>``; ``key`` may be ``tasks: <key>`` in activities.yaml."""
        where = self.lines.get(file, Lines()).at(f"crm/{file}", tuple(key.split(": ")))
        self.problems.append(f"{where}: {key}: {text}")

    def records(self, file: str, raw: dict, model, label: str = "") -> dict:
        records = {}
        for key, body in raw.items():
            name = f"{label}{key}"
            if not _KEY.match(str(key)):
                self.problem(file, name, "keys are lower-case words joined by '-' (e.g. globex-logistics)")
            try:
                records[str(key)] = model.model_validate(body or {})
            except ValidationError as exc:
                for e in exc.errors():
                    self.problem(file, name, f"{'.'.join(map(str, e['loc']))}: {e['msg']}")
        return records


def load(root: Path, info: WorldInfo, problems: list[str]) -> CrmData:
    """Read ``crm/`` of a world folder; append every problem found, with its file and line, to ``problems``."""
    folder = root / "crm"
    if not folder.is_dir():
        return CrmData()
    files = _Files(folder, problems)
    found = {name: files.records(f"{name}.yaml", files.read(f"{name}.yaml"), model) for name, model in _FILES.items()}
    activities = files.read("activities.yaml")
    for name, model in (("tasks", TaskRecord), ("events", EventRecord)):
        found[name] = files.records("activities.yaml", activities.get(name) or {}, model, f"{name}: ")
    data = CrmData(**found)
    _Checker(data, info, files).run()
    data._lines = files.lines
    return data


class _Checker:
    """Every cross-reference and rule that a record's own shape cannot check."""

    def __init__(self, data: CrmData, info: WorldInfo, files: _Files):
        self.data, self.info, self.problem, self.files = data, info, files.problem, files
        self.people = {p.email for p in info.people}

    def run(self) -> None:
        d = self.data
        for file, records in (("accounts.yaml", d.accounts), ("contacts.yaml", d.contacts), ("leads.yaml", d.leads),
                              ("opportunities.yaml", d.opportunities), ("cases.yaml", d.cases),
                              ("activities.yaml", d.tasks), ("activities.yaml", d.events), ("notes.yaml", d.notes)):
            for key, record in records.items():
                self.common(file, key, record)
                getattr(self, f"check_{type(record).__name__.removesuffix('Record').lower()}")(file, key, record)

    def common(self, file: str, key: str, r) -> None:
        if r.owner is not None and r.owner not in self.people:
            self.problem(file, key, f"owner {r.owner} is not a person of the world")
        elif r.owner is not None:  # declared to the loader's cross-app check (``addresses``)
            at = tuple(key.split(": ")) + ("owner",)
            self.data._owners.append((self.files.lines.get(file, Lines()).at(f"crm/{file}", at), r.owner))
        created = getattr(r, "created", None)
        if created is not None and self.info.utc(created) > self.info.now_utc:
            self.problem(file, key, f"created {created} is after the world's now")
        email = getattr(r, "email", None)
        if email is not None and not _EMAIL.match(email):
            self.problem(file, key, f"email {email!r} is not a lower-case email address")

    def ref(self, file: str, key: str, what: str, collection: str, target: str | None) -> None:
        if target is not None and target not in getattr(self.data, collection):
            self.problem(file, key, f"{what} {target!r} is not a key in crm/{collection}.yaml")

    def related(self, file: str, key: str, related: str | None) -> None:
        if related is None:
            return
        kind, _, target = related.partition("/")
        if kind not in RELATED:
            self.problem(file, key, f"related {related!r} must be <{'|'.join(RELATED)}>/<key>")
        else:
            self.ref(file, key, "related", RELATED[kind], target)

    def chain(self, file: str, key: str, what: str, records: dict, link: str) -> None:
        seen, current = [key], getattr(records[key], link)
        while current in records and current not in seen:
            seen.append(current)
            current = getattr(records[current], link)
        if current in seen:
            self.problem(file, key, f"{what} goes round in a circle ({' -> '.join(seen + [current])})")

    def check_account(self, file: str, key: str, r: AccountRecord) -> None:
        self.ref(file, key, "parent", "accounts", r.parent)
        self.chain(file, key, "parent", self.data.accounts, "parent")

    def check_contact(self, file: str, key: str, r: ContactRecord) -> None:
        self.ref(file, key, "account", "accounts", r.account)
        self.ref(file, key, "reports_to", "contacts", r.reports_to)
        self.chain(file, key, "reports_to", self.data.contacts, "reports_to")
        if r.owner is None and r.account is None:
            self.problem(file, key, "a contact without an account needs an owner")

    def check_lead(self, file: str, key: str, r: LeadRecord) -> None:
        pass

    def check_opportunity(self, file: str, key: str, r: OpportunityRecord) -> None:
        self.ref(file, key, "account", "accounts", r.account)
        if r.stage == "Closed Lost" and not (r.loss_reason or "").strip():
            self.problem(file, key, "a Closed Lost opportunity needs a loss_reason")
        for entry in r.history:
            if entry.by not in self.people:
                self.problem(file, key, f"history: {entry.by} is not a person of the world")
            if self.info.utc(entry.at) > self.info.now_utc:
                self.problem(file, key, f"history: a change at {entry.at} is after the world's now")

    def check_case(self, file: str, key: str, r: CaseRecord) -> None:
        self.ref(file, key, "account", "accounts", r.account)
        self.ref(file, key, "contact", "contacts", r.contact)
        contact = self.data.contacts.get(r.contact) if r.contact else None
        if contact and r.account and contact.account not in (None, r.account):
            self.problem(file, key, f"contact {r.contact} works at {contact.account}, not {r.account}")
        if (r.status == "Closed") != (r.closed is not None):
            self.problem(file, key, "a case has a 'closed' time exactly when its status is Closed")

    def check_task(self, file: str, key: str, r: TaskRecord) -> None:
        self.related(file, f"tasks: {key}", r.related)

    def check_event(self, file: str, key: str, r: EventRecord) -> None:
        self.related(file, f"events: {key}", r.related)
        if self.info.utc(r.end) <= self.info.utc(r.start):
            self.problem(file, f"events: {key}", "an event must end after it starts")

    def check_note(self, file: str, key: str, r: NoteRecord) -> None:
        self.related(file, key, r.related)
