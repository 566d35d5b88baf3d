"""Read ``mail/`` of a world folder and check it against the world's people, naming file and line.

Layout::

    mail/<thread>/<n>.eml       one RFC 5322 message per file (plain text; multipart/alternative allowed)
    mail/attachments/<name>     files named by a message's ``X-Attachment: <name>`` headers
    mail/mailboxes.yaml         per person: user labels, and labels on messages (by Message-ID)

A message with ``X-Draft: yes`` is a draft in its sender's mailbox and is not delivered.
"""

from __future__ import annotations

import email
import email.policy
import mimetypes
import re
from email.header import decode_header, make_header
from email.utils import getaddresses, parseaddr, parsedate_to_datetime
from pathlib import Path

from pydantic import ValidationError

from worlds.lines import Lines, pydantic_problems, read_yaml
from worlds.model import Attachment, Mailbox, MailData, MailMessage, WorldInfo

# The mail app's system labels (apps/mail/models.py); worlds do not import apps' models.
SYSTEM_LABELS = ("INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "STARRED", "IMPORTANT", "UNREAD")
_REQUIRED = ("From", "Date", "Message-ID", "Subject")
_FOLD = re.compile(r"\r?\n(?=[ \t])")


def load_mail(root: Path, problems: list[str]) -> tuple[MailData, Lines]:
    """The world's mail and the line map of ``mailboxes.yaml`` (for the checks that follow)."""
    mail_dir = root / "mail"
    if not mail_dir.is_dir():
        return MailData(), Lines()
    messages = [m for p in sorted(mail_dir.rglob("*.eml")) if (m := _load_message(root, p, problems))]
    mailboxes: dict[str, Mailbox] = {}
    lines = Lines()
    if (mail_dir / "mailboxes.yaml").is_file():
        raw, lines = read_yaml(mail_dir / "mailboxes.yaml", "mail/mailboxes.yaml", problems)
        if raw is not None and not isinstance(raw, dict):
            problems.append("mail/mailboxes.yaml:1: must map each person's address to their mailbox")
            raw = None
        for owner, box in (raw or {}).items():
            try:
                mailboxes[str(owner)] = Mailbox.model_validate(box or {})
            except ValidationError as exc:
                problems.extend(pydantic_problems("mail/mailboxes.yaml", lines, exc, (owner,)))
    return MailData(messages=messages, mailboxes=mailboxes), lines


def header_lines(raw: bytes) -> dict[str, int]:
    """The 1-based line of each header's first occurrence (lower-case names), up to the blank line."""
    found: dict[str, int] = {}
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            break
        if line[:1] not in (b" ", b"\t") and b":" in line:
            found.setdefault(line.split(b":", 1)[0].decode("ascii", "replace").strip().lower(), number)
    return found


def _addresses(msg, header: str) -> list[str]:
    found: list[str] = []
    for value in msg.get_all(header, []):
        value = str(value)
        plain = _plain_addresses(value)
        found.extend(plain if plain is not None else
                     (addr.lower() for _, addr in getaddresses([value]) if addr))
    return found


_NOT_PLAIN = re.compile(r'["()\\:;\[\]]|=\?')
_PLAIN_ADDRESS = re.compile(r"[^\s<>@,]+@[^\s<>@,]+")


def _plain_addresses(value: str) -> list[str] | None:
    """The addresses of a plain list (``Name <a@b>, c@d``), lower-cased, as ``getaddresses`` reads
    them at a fraction of its cost; None for anything else (quotes, comments, groups, encoded words,
    a malformed part), which goes to ``getaddresses``."""
    if _NOT_PLAIN.search(value):
        return None
    found = []
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        if "<" in part:
            name, _, rest = part.partition("<")
            address, close, tail = rest.partition(">")
            if not close or tail.strip() or "<" in rest or "@" in name or "." in name:
                return None
        else:
            address = part
        address = address.strip()
        if not _PLAIN_ADDRESS.fullmatch(address):
            return None
        found.append(address.lower())
    return found


def _text(value) -> str:
    """A header's text, unfolded, with RFC 2047 encoded words decoded."""
    value = _FOLD.sub("", str(value))
    return str(make_header(decode_header(value))) if "=?" in value else value


def _bodies(msg) -> tuple[str, str | None]:
    """The first text/plain and text/html parts, decoded with their charsets."""
    found: dict[str, str] = {}
    for part in msg.walk():
        kind = part.get_content_type()
        if kind in ("text/plain", "text/html") and kind not in found and not part.is_multipart():
            payload = part.get_payload(decode=True) or b""
            found[kind] = payload.decode(part.get_content_charset() or "utf-8", "replace")
    return found.get("text/plain", ""), found.get("text/html")


def _load_message(root: Path, path: Path, problems: list[str]) -> MailMessage | None:
    where = path.relative_to(root).as_posix()
    raw = path.read_bytes()
    # compat32 parses headers lazily: several times faster than policy.default on 100,000 messages.
    msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    missing = [h for h in _REQUIRED if msg[h] is None]
    problems.extend(f"{where}:1: missing header {h}" for h in missing)
    if missing:
        return None
    lines = header_lines(raw)
    name, sender = parseaddr(str(msg["From"]))
    name = _text(name)
    try:
        date = parsedate_to_datetime(str(msg["Date"]))
    except (TypeError, ValueError):
        date = None
    if date is None or date.tzinfo is None:
        problems.append(f"{where}:{lines.get('date', 1)}: Date {str(msg['Date'])!r} is not an RFC 5322 date "
                        "with a zone (e.g. Tue, 10 Mar 2026 09:14:00 -0400)")
        return None
    plain, html = _bodies(msg)
    return MailMessage(
        source=where, lines=lines, message_id=_text(msg["Message-ID"]).strip(), sender=sender.lower(),
        sender_name=name, to=_addresses(msg, "To"), cc=_addresses(msg, "Cc"), bcc=_addresses(msg, "Bcc"),
        subject=_text(msg["Subject"]), date=date,
        in_reply_to=_text(msg["In-Reply-To"]).strip() if msg["In-Reply-To"] else None,
        references=_text(msg["References"] or "").split(),
        list_id=_text(msg["List-Id"]).strip() if msg["List-Id"] else None,
        body_text=plain, body_html=html,
        attachments=_attachments(root, where, lines, msg, problems),
        draft=str(msg["X-Draft"] or "").lower() in ("yes", "true", "1"),
    )


def _attachments(root: Path, where: str, lines: dict, msg, problems: list[str]) -> list[Attachment]:
    found = []
    for name in msg.get_all("X-Attachment", []):
        name = _text(name).strip()
        path = root / "mail" / "attachments" / name
        if not path.is_file():
            problems.append(f"{where}:{lines.get('x-attachment', 1)}: attachment {name} not found in "
                            "mail/attachments/")
            continue
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        found.append(Attachment(filename=path.name, mime_type=mime, content=path.read_bytes()))
    return found


def check_mail(info: WorldInfo, mail: MailData, box_lines: Lines, problems: list[str]) -> None:
    """Every address known, every parent present and earlier, nothing after now, mailboxes consistent."""
    known = {p.email for p in info.people} | {o.email for o in info.outsiders}
    ids: dict[str, MailMessage] = {}
    for m in mail.messages:
        at = lambda header: f"{m.source}:{m.lines.get(header, 1)}"  # noqa: E731
        if m.message_id in ids:
            problems.append(f"{at('message-id')}: Message-ID {m.message_id} also used by {ids[m.message_id].source}")
        ids.setdefault(m.message_id, m)
        for header, addrs in (("from", [m.sender]), ("to", m.to), ("cc", m.cc), ("bcc", m.bcc)):
            problems.extend(f"{at(header)}: {a} is neither a person nor a declared outsider (world.yaml)"
                            for a in addrs if a not in known)
        if not m.draft and not (m.to or m.cc or m.bcc):
            problems.append(f"{at('from')}: a sent message needs at least one recipient (To, Cc or Bcc)")
        if m.date > info.now_utc:
            problems.append(f"{at('date')}: dated {m.date} after the world's now ({info.now_utc})")
    for m in mail.messages:
        parent = ids.get(m.in_reply_to) if m.in_reply_to else None
        if m.in_reply_to and parent is None:
            problems.append(f"{m.source}:{m.lines.get('in-reply-to', 1)}: In-Reply-To {m.in_reply_to} "
                            "is not a message of the world")
        elif parent and parent.date >= m.date:
            problems.append(f"{m.source}:{m.lines.get('date', 1)}: a reply dated {m.date}, not after its "
                            f"parent {parent.source} ({parent.date})")
    _check_mailboxes(info, mail, ids, box_lines, problems)


def _check_mailboxes(info: WorldInfo, mail: MailData, ids: dict, lines: Lines, problems: list[str]) -> None:
    people = {p.email for p in info.people}
    where = "mail/mailboxes.yaml"
    for owner, box in mail.mailboxes.items():
        if owner not in people:
            problems.append(f"{lines.at(where, (owner,))}: {owner} is not a person of the world")
            continue
        usable = set(SYSTEM_LABELS) | set(box.labels)
        for mid, labels in box.messages.items():
            at = lines.at(where, (owner, "messages", mid))
            message = ids.get(mid)
            if message is None:
                problems.append(f"{at}: {owner}: message {mid} is not a message of the world")
            elif owner not in _holders(message):
                problems.append(f"{at}: {owner}: message {mid} ({message.source}) is not in their mailbox")
            problems.extend(f"{at}: {owner}: label {label!r} is neither a system label nor in their labels"
                            for label in labels if label not in usable)


def _holders(message: MailMessage) -> set[str]:
    """Whose mailbox holds a message: a draft only its sender's; a sent one its sender's and recipients'."""
    return {message.sender} if message.draft else {message.sender, *message.to, *message.cc, *message.bcc}
