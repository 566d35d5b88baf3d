"""One message of a world's mail as an ``.eml`` file: read (headers with their lines, bodies, the
attachments its ``X-Attachment`` headers name) and written back byte for byte the same way.

    mail/<thread>/<n>.eml       one RFC 5322 message per file (plain text; multipart/alternative allowed)
    mail/attachments/<name>     files named by a message's ``X-Attachment: <name>`` headers

A message with ``X-Draft: yes`` is a draft in its sender's mailbox and is not delivered.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import mimetypes
import re
from email.header import Header, decode_header, make_header
from email.utils import format_datetime, formataddr, getaddresses, parseaddr, parsedate_to_datetime
from pathlib import Path
from typing import Any

from apps.mail.records import MailAttachment, MailMessage

_REQUIRED = ("From", "Date", "Message-ID", "Subject")
_FOLD = re.compile(r"\r?\n(?=[ \t])")


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


class _Plain:
    """A message as the writer writes most of them (ASCII headers, one UTF-8 text/plain body), read without
    ``email``'s parser, which is most of the cost of loading a large world. It answers as ``email``'s
    compat32 message does (``msg[name]``: the first value as written; ``get_all``)."""

    def __init__(self, headers: dict[str, list[str]], lines: dict[str, int], body: str):
        self.headers, self.lines, self.body = headers, lines, body

    def __getitem__(self, name: str) -> str | None:
        values = self.headers.get(name.lower())
        return values[0] if values else None

    def get_all(self, name: str, default: list) -> list:
        return self.headers.get(name.lower(), default)


_NAME = re.compile(r"[\041-\071\073-\176]+")
_PLAIN_TYPES = ("text/plain; charset=utf-8", 'text/plain; charset="utf-8"')
_FROM = re.compile(r"(?:([A-Za-z0-9'_-]+(?: [A-Za-z0-9'_-]+)*) )?<([^\s<>@,\"]+@[^\s<>@,\"]+)>|([^\s<>@,\"]+@[^\s<>@,\"]+)")


def _plain(raw: bytes) -> _Plain | None:
    """The message read the quick way, or None when it is anything else (``email`` reads those)."""
    head, blank, body = raw.partition(b"\n\n")
    if not blank or b"\r" in head or head.startswith(b"From ") or not head.isascii():
        return None
    headers: dict[str, list[str]] = {}
    lines: dict[str, int] = {}  # as ``header_lines`` finds them
    last: list[str] | None = None
    for number, line in enumerate(head.decode("ascii").split("\n"), start=1):
        if line[:1] in (" ", "\t"):
            if last is None or not line.strip():
                return None
            last[-1] += "\n" + line
            continue
        name, colon, value = line.partition(":")
        if not colon or not _NAME.fullmatch(name):
            return None
        key = name.lower()
        last = headers.setdefault(key, [])
        last.append(value.lstrip(" \t"))
        lines.setdefault(key, number)
    kinds, encodings = headers.get("content-type", []), headers.get("content-transfer-encoding", [])
    if len(kinds) > 1 or len(encodings) > 1 or (kinds and kinds[0].strip().lower() not in _PLAIN_TYPES) or (
            encodings and encodings[0].strip().lower() not in ("7bit", "8bit")):
        return None
    return _Plain(headers, lines, body.decode("utf-8", "replace"))


def _sender(value: str) -> tuple[str, str]:
    """(name, address) of a From header, as ``parseaddr`` reads it."""
    found = _FROM.fullmatch(value.strip())
    if found is None:
        return parseaddr(value)
    return (found[1] or "", found[2]) if found[2] else ("", found[3])


def load_message(root: Path, path: Path, problems: list[str], where: str | None = None) -> MailMessage | None:
    """The message of ``path`` (``where``: its path from the world's root), or None after adding its problems."""
    where = where or path.relative_to(root).as_posix()
    raw = path.read_bytes()
    # compat32 parses headers lazily: several times faster than policy.default on 100,000 messages.
    msg: Any = _plain(raw) or email.message_from_bytes(raw, policy=email.policy.compat32)
    missing = [h for h in _REQUIRED if msg[h] is None]
    problems.extend(f"{where}:1: missing header {h}" for h in missing)
    if missing:
        return None
    lines = msg.lines if isinstance(msg, _Plain) else header_lines(raw)
    name, sender = _sender(str(msg["From"]))
    name = _text(name)
    try:
        date = parsedate_to_datetime(str(msg["Date"]))
    except (TypeError, ValueError):
        date = None
    if date is None or date.tzinfo is None:
        problems.append(f"{where}:{lines.get('date', 1)}: Date {str(msg['Date'])!r} is not an RFC 5322 date "
                        "with a zone (e.g. Tue, 10 Mar 2026 09:14:00 -0400)")
        return None
    plain, html = (msg.body, None) if isinstance(msg, _Plain) else _bodies(msg)
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


def _attachments(root: Path, where: str, lines: dict, msg, problems: list[str]) -> list[MailAttachment]:
    found = []
    for name in msg.get_all("X-Attachment", []):
        name = _text(name).strip()
        path = root / "mail" / "attachments" / name
        if not path.is_file():
            problems.append(f"{where}:{lines.get('x-attachment', 1)}: attachment {name} not found in "
                            "mail/attachments/")
            continue
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        found.append(MailAttachment(filename=path.name, mime_type=mime, content=path.read_bytes()))
    return found



def _header(value: str) -> str:
    """ASCII as is; anything else as an RFC 2047 encoded word, which the loader decodes."""
    return value if value.isascii() else Header(value, "utf-8").encode()


def _joined(addrs: list[str]) -> str:
    return ", ".join(addrs)


def format_message(m: MailMessage) -> bytes:
    """The ``.eml`` bytes of one message: headers, then a plain (or plain + HTML) UTF-8 body."""
    headers = [("From", formataddr((m.sender_name, m.sender)) if m.sender_name else m.sender)]
    headers += [(name, _joined(addrs)) for name, addrs in (("To", m.to), ("Cc", m.cc), ("Bcc", m.bcc)) if addrs]
    headers += [("Subject", _header(m.subject)), ("Date", format_datetime(m.date)), ("Message-ID", m.message_id)]
    if m.in_reply_to:
        headers.append(("In-Reply-To", m.in_reply_to))
    if m.references:
        headers.append(("References", " ".join(m.references)))
    if m.list_id:
        headers.append(("List-Id", _header(m.list_id)))
    headers += [("X-Attachment", _header(a.filename)) for a in m.attachments]
    if m.draft:
        headers.append(("X-Draft", "yes"))
    headers.append(("MIME-Version", "1.0"))
    text = "".join(f"{name}: {value}\n" for name, value in headers)
    return (text + _body(m)).encode("utf-8")


def _body(m: MailMessage) -> str:
    plain = "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n"
    if m.body_html is None:
        return plain + "\n" + m.body_text
    boundary = "=_" + hashlib.sha256(m.message_id.encode()).hexdigest()[:24]
    html = "Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: 8bit\n"
    return (f'Content-Type: multipart/alternative; boundary="{boundary}"\n\n'
            f"--{boundary}\n{plain}\n{m.body_text}\n--{boundary}\n{html}\n{m.body_html}\n--{boundary}--\n")
