"""Write a world (a ``World``, or its parts) as a folder that ``load_world`` reads back unchanged.

The generator writes its worlds with this, and ``officeworld worlds dump`` re-writes a loaded world,
so the file format has one writer and one reader. Output is deterministic: the same world gives the
same bytes (sorted where order does not carry meaning, fixed MIME boundaries).
"""

from __future__ import annotations

import hashlib
from email.header import Header
from email.utils import format_datetime, formataddr
from pathlib import Path

import yaml

from worlds.model import MailData, MailMessage, World, WorldInfo
from worlds.sections import Sections

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump_yaml(data, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110),
                    encoding="utf-8")


def write_world(world: World, out: Path, sections: Sections | None = None) -> Path:
    """Write every part of ``world`` under ``out`` (which should be empty or absent); each app that brings
    its own world section (``sections``) writes its data itself."""
    write_info(world.info, out)
    write_mail(world.mail, out)
    for name, section in (sections or {}).items():
        if name in world.sections:
            section.write(world.sections[name], out)
    return out


def write_info(info: WorldInfo, out: Path) -> None:
    data = info.model_dump(mode="json")
    data["people"] = [_without_none(p) for p in data["people"]]
    data["outsiders"] = [_without_none(o) for o in data["outsiders"]]
    dump_yaml(data, out / "world.yaml")


def write_mail(mail: MailData, out: Path, thread_of=None) -> None:
    """Each message to its ``source`` path (or ``thread_of(message)``), attachments, mailboxes.yaml."""
    for message in mail.messages:
        path = out / (message.source or f"mail/{thread_of(message)}.eml")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(format_message(message))
        for a in message.attachments:
            target = out / "mail" / "attachments" / a.filename
            if not target.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(a.content)
    if mail.mailboxes:
        boxes = {owner: box.model_dump(exclude_defaults=True) for owner, box in mail.mailboxes.items()}
        dump_yaml(boxes, out / "mail" / "mailboxes.yaml")


def _without_none(record: dict) -> dict:
    return {k: v for k, v in record.items() if v is not None}


def _header(value: str) -> str:
    """ASCII as is; anything else as an RFC 2047 encoded word, which the loader decodes."""
    return value if value.isascii() else Header(value, "utf-8").encode()


def _addresses(addrs: list[str]) -> str:
    return ", ".join(addrs)


def format_message(m: MailMessage) -> bytes:
    """The ``.eml`` bytes of one message: headers, then a plain (or plain + HTML) UTF-8 body."""
    headers = [("From", formataddr((m.sender_name, m.sender)) if m.sender_name else m.sender)]
    headers += [(name, _addresses(addrs)) for name, addrs in (("To", m.to), ("Cc", m.cc), ("Bcc", m.bcc)) if addrs]
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
