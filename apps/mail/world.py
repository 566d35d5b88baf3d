"""Mail's section of a world (``worlds.sections``): ``mail/``, read with ``file:line`` problems, checked,
written back the same bytes, and generated at any size.

    mail/<thread>/<n>.eml       one message per file (``apps.mail.eml``)
    mail/attachments/<name>     files named by a message's ``X-Attachment: <name>`` headers
    mail/mailboxes.yaml         per person: user labels, labels on messages (by Message-ID), and filters:
                                  filters: [{sender: billing@globex.example, label: Clients/Globex, archive: true}]
                                  (criteria and actions as create_filter takes them; they act on mail arriving
                                  during an episode, as a filter made then does)

Every address a message names is declared (``addresses``) for the loader to check against the world's
people and outsiders. ``writings`` gives the messages' own words to the cross-app checks
(``worlds.consistency``); ``thread_builder`` gives the generator's stories the mail they script through.
"""

from __future__ import annotations

import os
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from pydantic import BaseModel, ValidationError

from apps.mail import eml
from apps.mail.filters import filter_problems
from apps.mail.models import SYSTEM_LABELS
from apps.mail.records import Mailbox, MailData, MailMessage
from worlds.lines import Lines, pydantic_problems, read_yaml
from worlds.model import WorldInfo
from worlds.writer import dump_yaml

if TYPE_CHECKING:
    from faker import Faker

    from apps.mail.generate import MailBuilder

_BOXES = "mail/mailboxes.yaml"
_BATCH, _WRITERS = 200, 4  # files a writing thread is handed at once; threads writing them


class MailSection:
    folder = "mail"
    sources = (Path(__file__), Path(eml.__file__), Path(__file__).with_name("generate.py"))  # the generator's key

    def load(self, root: Path, info: WorldInfo, problems: list[str]) -> MailData:
        folder = root / self.folder
        if not folder.is_dir():
            return MailData()
        messages = [m for where in _eml_files(root, self.folder)
                    if (m := eml.load_message(root, root / where, problems, where))]
        mailboxes: dict[str, Mailbox] = {}
        lines = Lines()
        if (folder / "mailboxes.yaml").is_file():
            raw, lines = read_yaml(folder / "mailboxes.yaml", _BOXES, problems)
            if raw is not None and not isinstance(raw, dict):
                problems.append(f"{_BOXES}:1: must map each person's address to their mailbox")
                raw = None
            for owner, box in (raw or {}).items():
                try:
                    mailboxes[str(owner)] = Mailbox.model_validate(box or {})
                except ValidationError as exc:
                    problems.extend(pydantic_problems(_BOXES, lines, exc, (owner,)))
        data = MailData(messages=messages, mailboxes=mailboxes)
        _check(info, data, lines, problems)
        return data

    def addresses(self, data: BaseModel) -> list[tuple[str, str]]:
        found = []
        for m in _mail(data).messages:
            for header, addrs in (("from", [m.sender]), ("to", m.to), ("cc", m.cc), ("bcc", m.bcc)):
                found += [(f"{m.source}:{m.lines.get(header, 1)}", a) for a in addrs]
        return found

    def write(self, data: BaseModel, out: Path) -> None:
        """Each message to its ``source``, the attachments once each, and ``mailboxes.yaml``. Messages are
        formatted here while a few threads write the ones before (creating a file mostly waits on the
        file system), a batch of files a task."""
        data = _mail(data)
        base = str(out)
        for folder in sorted({m.source.rpartition("/")[0] for m in data.messages}):
            os.makedirs(os.path.join(base, folder), exist_ok=True)
        attached: set[str] = set()
        with ThreadPoolExecutor(_WRITERS) as pool:
            pending, files = [], []
            for message in data.messages:
                files.append((os.path.join(base, message.source), eml.format_message(message)))
                for a in message.attachments:
                    target = os.path.join(base, "mail", "attachments", a.filename)
                    if target not in attached and not os.path.isfile(target):
                        os.makedirs(os.path.dirname(target), exist_ok=True)
                        files.append((target, a.content))
                    attached.add(target)
                if len(files) >= _BATCH:
                    pending.append(pool.submit(_write_files, files))
                    files = []
            pending.append(pool.submit(_write_files, files))
            for done in pending:
                done.result()
        if data.mailboxes:
            boxes = {owner: box.model_dump(exclude_defaults=True) for owner, box in data.mailboxes.items()}
            dump_yaml(boxes, out / _BOXES)

    def generate(self, rng: random.Random, info: WorldInfo, size: str) -> MailData:
        """Team mail alone, for a world without the generator's stories (``worlds.generate`` builds the
        mail about CRM records through ``thread_builder``)."""
        from faker import Faker

        from worlds.generate.sizes import SIZES

        fake = Faker("en_US")
        fake.seed_instance(rng.randrange(2**32))
        return self.thread_builder(fake, rng, info, None, rng.randrange(1000)).build(SIZES[size].messages)

    def thread_builder(self, fake: Faker, rng: random.Random, info: WorldInfo, crm: Any, seed: int) -> MailBuilder:
        """The builder the stories script their threads through before ``build`` fills up the size."""
        from apps.mail.generate import MailBuilder  # the generator pulls in faker's data: only when asked

        return MailBuilder(fake, rng, info, crm, seed)

    def writings(self, data: BaseModel) -> Iterator[dict]:
        """Each message's text for the cross-app checks: ``{source, text, date (aware), people}``."""
        for m in _mail(data).messages:
            yield {"source": m.source, "text": m.body_text, "date": m.date, "people": {m.sender, *m.to, *m.cc}}


def _eml_files(root: Path, folder: str) -> list[str]:
    """Every ``.eml`` under ``root/folder`` as ``folder/...``, in the order of their sorted paths."""
    found = []
    for here, _, names in os.walk(root / folder):
        inside = Path(here).relative_to(root).as_posix()
        found += [f"{inside}/{name}" for name in names if name.endswith(".eml")]
    return sorted(found, key=lambda where: where.split("/"))


def _write_files(files: list[tuple[str, bytes]]) -> None:
    for path, content in files:
        with open(path, "wb") as f:
            f.write(content)


def _mail(data: BaseModel) -> MailData:
    if not isinstance(data, MailData):
        raise TypeError(f"the mail section holds MailData, not {type(data).__name__}")
    return data


def _check(info: WorldInfo, mail: MailData, lines: Lines, problems: list[str]) -> None:
    """Every parent present and earlier, a recipient for sent mail, nothing after now, mailboxes consistent."""
    ids: dict[str, MailMessage] = {}
    now = info.now_utc
    for m in mail.messages:
        if m.message_id in ids:
            problems.append(f"{m.source}:{m.lines.get('message-id', 1)}: Message-ID {m.message_id} also used by "
                            f"{ids[m.message_id].source}")
        ids.setdefault(m.message_id, m)
        if not m.draft and not (m.to or m.cc or m.bcc):
            problems.append(f"{m.source}:{m.lines.get('from', 1)}: a sent message needs at least one recipient "
                            "(To, Cc or Bcc)")
        if m.date > now:
            problems.append(f"{m.source}:{m.lines.get('date', 1)}: dated {m.date} after the world's now ({now})")
    for m in mail.messages:
        parent = ids.get(m.in_reply_to) if m.in_reply_to else None
        if m.in_reply_to and parent is None:
            problems.append(f"{m.source}:{m.lines.get('in-reply-to', 1)}: In-Reply-To {m.in_reply_to} "
                            "is not a message of the world")
        elif parent and parent.date >= m.date:
            problems.append(f"{m.source}:{m.lines.get('date', 1)}: a reply dated {m.date}, not after its "
                            f"parent {parent.source} ({parent.date})")
    _check_mailboxes(info, mail, ids, lines, problems)


def _check_mailboxes(info: WorldInfo, mail: MailData, ids: dict, lines: Lines, problems: list[str]) -> None:
    people = {p.email for p in info.people}
    for owner, box in mail.mailboxes.items():
        if owner not in people:
            problems.append(f"{lines.at(_BOXES, (owner,))}: {owner} is not a person of the world")
            continue
        usable = set(SYSTEM_LABELS) | set(box.labels)
        for mid, labels in box.messages.items():
            at = lines.at(_BOXES, (owner, "messages", mid))
            message = ids.get(mid)
            if message is None:
                problems.append(f"{at}: {owner}: message {mid} is not a message of the world")
            elif owner not in _holders(message):
                problems.append(f"{at}: {owner}: message {mid} ({message.source}) is not in their mailbox")
            problems.extend(f"{at}: {owner}: label {label!r} is neither a system label nor in their labels"
                            for label in labels if label not in usable)
        for i, found in enumerate(box.filters):
            problems.extend(f"{lines.at(_BOXES, (owner, 'filters', i))}: {owner}: filter {i + 1}: {problem}"
                            for problem in filter_problems(info, owner, box, found))


def _holders(message: MailMessage) -> set[str]:
    """Whose mailbox holds a message: a draft only its sender's; a sent one its sender's and recipients'."""
    return {message.sender} if message.draft else {message.sender, *message.to, *message.cc, *message.bcc}
