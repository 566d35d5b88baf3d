"""Read a world folder into a ``World`` and check it, naming every problem with its file.

Layout::

    world.yaml                  company, date "now", default actor, people, outsiders
    mail/<thread>/<n>.eml       one RFC 5322 message per file (plain text; multipart/alternative allowed)
    mail/attachments/<name>     files named by a message's ``X-Attachment: <name>`` headers
    mail/mailboxes.yaml         per person: user labels, and labels on messages (by Message-ID)

A message with ``X-Draft: yes`` is a draft in its sender's mailbox and is not delivered.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import mimetypes
from email.utils import getaddresses, parseaddr, parsedate_to_datetime
from pathlib import Path

import yaml
from pydantic import ValidationError

from worlds import crm, docs
from worlds.model import Attachment, Mailbox, MailData, MailMessage, World, WorldInfo

WORLDS_DIR = Path(__file__).parent


class WorldError(ValueError):
    """A world could not be loaded; ``problems`` lists every problem found, each naming its file."""

    def __init__(self, root: Path, problems: list[str]):
        self.root = root
        self.problems = problems
        super().__init__(f"world {root} has {len(problems)} problem(s):\n  " + "\n  ".join(problems))


def world_names(base: Path = WORLDS_DIR) -> list[str]:
    return sorted(p.parent.name for p in base.glob("*/world.yaml"))


def find_world(name_or_path: str | Path) -> Path:
    """Resolve a shipped world's name (``acme``) or a folder path to the world's folder."""
    path = Path(name_or_path)
    if (path / "world.yaml").is_file():
        return path
    shipped = WORLDS_DIR / str(name_or_path)
    if (shipped / "world.yaml").is_file():
        return shipped
    known = ", ".join(world_names()) or "none"
    raise WorldError(path, [f"no world named {str(name_or_path)!r} (shipped worlds: {known})"])


def load_world(name_or_path: str | Path) -> World:
    root = find_world(name_or_path)
    problems: list[str] = []
    info = _load_info(root, problems)
    mail = _load_mail(root, problems)
    if info is None:
        raise WorldError(root, problems)
    _check_mail_people(info, mail, problems)
    crm_data = crm.load(root, info, problems)
    docs_data = docs.load(root, info, problems)
    if problems:
        raise WorldError(root, problems)
    return World(root=root, info=info, mail=mail, crm=crm_data, docs=docs_data, content_hash=content_hash(root))


def content_hash(root: Path) -> str:
    """A digest of every file in the world folder: equal digests mean equal worlds."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _load_yaml(path: Path, problems: list[str]):
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        problems.append(f"{path.name}: not valid YAML: {exc}")
        return None


def _pydantic_problems(where: str, exc: ValidationError) -> list[str]:
    return [f"{where}: {'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]


def _load_info(root: Path, problems: list[str]) -> WorldInfo | None:
    data = _load_yaml(root / "world.yaml", problems)
    try:
        info = WorldInfo.model_validate(data)
    except ValidationError as exc:
        problems.extend(_pydantic_problems("world.yaml", exc))
        return None
    emails = [p.email for p in info.people]
    for person in info.people:
        if person.email != person.email.lower():
            problems.append(f"world.yaml: people: {person.email}: addresses are written in lower case")
        if emails.count(person.email) > 1:
            problems.append(f"world.yaml: people: {person.email} appears more than once")
        if person.manager and person.manager not in emails:
            problems.append(f"world.yaml: people: {person.email}: manager {person.manager} is not a person")
    if info.default_actor not in emails:
        problems.append(f"world.yaml: default_actor {info.default_actor} is not a person of the world")
    return info


def _load_mail(root: Path, problems: list[str]) -> MailData:
    mail_dir = root / "mail"
    if not mail_dir.is_dir():
        return MailData()
    messages = [m for p in sorted(mail_dir.rglob("*.eml")) if (m := _load_message(root, p, problems))]
    mailboxes: dict[str, Mailbox] = {}
    if (mail_dir / "mailboxes.yaml").is_file():
        raw = _load_yaml(mail_dir / "mailboxes.yaml", problems) or {}
        for owner, box in raw.items():
            try:
                mailboxes[owner] = Mailbox.model_validate(box or {})
            except ValidationError as exc:
                problems.extend(_pydantic_problems(f"mail/mailboxes.yaml: {owner}", exc))
    return MailData(messages=messages, mailboxes=mailboxes)


def _addresses(msg, header: str) -> list[str]:
    return [addr.lower() for _, addr in getaddresses(msg.get_all(header, [])) if addr]


def _load_message(root: Path, path: Path, problems: list[str]) -> MailMessage | None:
    where = path.relative_to(root).as_posix()
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    for header in ("From", "Date", "Message-ID", "Subject"):
        if msg[header] is None:
            problems.append(f"{where}: missing header {header}")
    if problems and problems[-1].startswith(where):
        return None
    name, sender = parseaddr(str(msg["From"]))
    plain = msg.get_body(("plain",))
    html = msg.get_body(("html",))
    try:
        date = parsedate_to_datetime(str(msg["Date"]))
    except (TypeError, ValueError):
        date = None
    if date is None or date.tzinfo is None:
        problems.append(f"{where}: Date {msg['Date']!r} is not an RFC 5322 date with a zone")
        return None
    return MailMessage(
        source=where,
        message_id=str(msg["Message-ID"]).strip(),
        sender=sender.lower(),
        sender_name=name,
        to=_addresses(msg, "To"),
        cc=_addresses(msg, "Cc"),
        bcc=_addresses(msg, "Bcc"),
        subject=str(msg["Subject"]),
        date=date,
        in_reply_to=str(msg["In-Reply-To"]).strip() if msg["In-Reply-To"] else None,
        references=str(msg["References"] or "").split(),
        body_text=plain.get_content() if plain is not None else "",
        body_html=html.get_content() if html is not None else None,
        attachments=_attachments(root, where, msg, problems),
        draft=str(msg["X-Draft"] or "").lower() in ("yes", "true", "1"),
    )


def _attachments(root: Path, where: str, msg, problems: list[str]) -> list[Attachment]:
    found = []
    for name in msg.get_all("X-Attachment", []):
        path = root / "mail" / "attachments" / str(name).strip()
        if not path.is_file():
            problems.append(f"{where}: attachment {name} not found in mail/attachments/")
            continue
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        found.append(Attachment(filename=path.name, mime_type=mime, content=path.read_bytes()))
    return found


def _check_mail_people(info: WorldInfo, mail: MailData, problems: list[str]) -> None:
    known = {p.email for p in info.people} | {o.email for o in info.outsiders}
    people = {p.email for p in info.people}
    ids: dict[str, MailMessage] = {}
    for m in mail.messages:
        if m.message_id in ids:
            problems.append(f"{m.source}: Message-ID {m.message_id} also used by {ids[m.message_id].source}")
        ids[m.message_id] = m
        for addr in [m.sender, *m.to, *m.cc, *m.bcc]:
            if addr not in known:
                problems.append(f"{m.source}: {addr} is neither a person nor a declared outsider")
        if not m.draft and not (m.to or m.cc or m.bcc):
            problems.append(f"{m.source}: a sent message needs at least one recipient")
        if m.date > info.now_utc:
            problems.append(f"{m.source}: dated {m.date} after the world's now ({info.now_utc})")
    for m in mail.messages:
        parent = ids.get(m.in_reply_to) if m.in_reply_to else None
        if m.in_reply_to and parent is None:
            problems.append(f"{m.source}: In-Reply-To {m.in_reply_to} is not a message of the world")
        elif parent and parent.date >= m.date:
            problems.append(f"{m.source}: a reply dated before its parent {parent.source}")
    for owner, box in mail.mailboxes.items():
        if owner not in people:
            problems.append(f"mail/mailboxes.yaml: {owner} is not a person of the world")
        for mid in box.messages:
            if mid not in ids:
                problems.append(f"mail/mailboxes.yaml: {owner}: message {mid} is not a message of the world")
