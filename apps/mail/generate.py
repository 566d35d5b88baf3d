"""Mail for a generated world (``apps.mail.world``): threads about the CRM's records (deals between owners
and contacts, support cases) and team talk.

Threads have replies in order: each reply is later than its parent and earlier than the world's now,
cites its parent (In-Reply-To, References) and quotes it in full, as mail clients do. Every message is
written in its sender's voice (``voice``). The stories (``stories``) script their threads through
``script`` first; the filler threads here make up the rest of the size, about records no story tells.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from faker import Faker

from apps.mail.records import MailAttachment as Attachment
from apps.mail.records import Mailbox, MailData, MailMessage
from worlds.generate import text
from worlds.generate.voice import quoted, voice_of
from worlds.model import WorldInfo


class MailBuilder:
    def __init__(self, fake: Faker, rng: random.Random, info: WorldInfo, crm: Any, seed: int):
        """``crm``: the world's CRM data (``opportunities``, ``cases``, ``contacts``, ``accounts``), or None."""
        self.fake, self.rng, self.info, self.crm, self.seed = fake, rng, info, crm, seed
        self.zone = ZoneInfo(info.timezone)
        self.now = info.now.replace(tzinfo=self.zone)
        self.names = {p.email: (p.name, p.title) for p in info.people} | {
            o.email: (o.name, o.title) for o in info.outsiders}
        self.messages: list[MailMessage] = []
        self.boxes: dict[str, Mailbox] = {}
        self.opps = list(crm.opportunities.items()) if crm else []
        self.cases = list(crm.cases.items()) if crm else []
        self.people = {p.email for p in info.people}
        teams = sorted({p.team for p in info.people})
        self.members = {t: [p.email for p in info.people if p.team == t] for t in teams}
        self.talking = [t for t in teams if len(self.members[t]) > 1]  # teams with someone to talk to
        self.told: set[str] = set()  # opportunities and cases a story is about: the filler leaves them alone
        self.threads = 0
        self.contacts_of: dict[str, list[str]] = {}
        for contact in (crm.contacts.values() if crm else ()):
            if contact.account and contact.email:   # a thread mails a contact of the deal's account
                self.contacts_of.setdefault(contact.account, []).append(contact.email)

    def build(self, target: int, tick=lambda n: None) -> MailData:
        self.opps = [(k, o) for k, o in self.opps if k not in self.told]
        self.cases = [(k, c) for k, c in self.cases if k not in self.told]
        tick(len(self.messages))
        while len(self.messages) < target:
            before = len(self.messages)
            kind = self.rng.choices(["deal", "case", "internal"], weights=[5 if self.opps else 0, 2 if self.cases else 0, 3])[0]
            getattr(self, kind)(self.thread_name(kind), target - len(self.messages))
            tick(len(self.messages) - before)
        return MailData(messages=self.messages, mailboxes=self.boxes)

    def thread_name(self, kind: str) -> str:
        self.threads += 1
        return f"{kind}-{self.threads:05d}"

    def script(self, kind: str, subject: str, steps: list[tuple], label: tuple[str, str] | None = None,
               attach: Sequence[Attachment] = ()) -> list[MailMessage]:
        """One thread of a story: ``steps`` of (sender, to, cc, point, when) in order, each a reply to the
        one before; a step later than the world's now (or a reply not after its parent) ends the thread."""
        thread, parent, sent = self.thread_name(kind), None, []
        for n, (sender, to, cc, point, when) in enumerate(steps, start=1):
            if when >= self.now or (parent is not None and when <= parent.date):
                break
            parent = self.send(thread, n, sender, to, cc, ("Re: " if parent else "") + subject, when, point,
                               parent, attach if n == 1 else [])
            self.file(parent, label)
            sent.append(parent)
        return sent

    def send(self, thread, n, sender, to, cc, subject, when, point, parent, attach) -> MailMessage:
        name, title = self.names[sender]
        body = voice_of(self.seed, sender).write(name, title, [self.names[a][0] for a in [*to, *cc]], point)
        if parent is not None:
            body += "\n" + quoted(parent.sender_name, parent.sender, parent.date, parent.body_text)
        return self.add(thread, n, sender, name, [*to, *cc], subject, when, body, parent, attach, len(to))

    def contact_email(self, key: str | None) -> str | None:
        return self.crm.contacts[key].email if key else None

    def deal(self, thread: str, room: int) -> None:
        key, opp = self.rng.choice(self.opps)
        contact = self.rng.choice(self.contacts_of[opp.account])
        values = dict(opp=opp.name, account=self.crm.accounts[opp.account].name, amount=opp.amount or 0,
                      close=opp.close_date, stage=opp.stage, next=opp.next_step or "countersignature")
        subject, body = self.rng.choice(text.DEAL_OPENERS)
        start = max(opp.created.replace(tzinfo=self.zone) if opp.created else self.now - timedelta(days=90),
                    self.now - timedelta(days=365))
        attach = [self.quote_csv(key, opp)] if self.rng.random() < 0.05 else []
        replies = [text.DEAL_REPLIES[i % 3].format(point=text.point(self.fake, self.rng), **values)
                   for i in range(self.rng.randint(0, 4))]
        self.thread(thread, [opp.owner, contact], subject.format(**values), [body.format(**values), *replies],
                    start, room, attach, label=("Deals", opp.owner))

    def case(self, thread: str, room: int) -> None:
        _, case = self.rng.choice(self.cases)
        subject, body = text.CASE_OPENER
        opener = body.format(subject=case.subject.lower(), detail=case.description)
        replies = self.rng.sample(text.CASE_REPLIES, self.rng.randint(1, 3))
        start = case.created.replace(tzinfo=self.zone) if case.created else self.now - timedelta(days=30)
        people = [p for p in (self.contact_email(case.contact), case.owner) if p]
        self.thread(thread, people, subject.format(subject=case.subject),
                    [opener, *replies], start, room)

    def internal(self, thread: str, room: int) -> None:
        team = self.rng.choice(self.talking)
        members = self.members[team]
        people = self.rng.sample(members, min(len(members), self.rng.randint(2, 4)))
        subject = self.rng.choice(text.INTERNAL_TOPICS).format(team=team, quarter=self.rng.randint(1, 4))
        bodies = [text.paragraph(self.fake, 3) for _ in range(self.rng.randint(1, 5))]
        self.thread(thread, people, subject, bodies, self.now - timedelta(days=self.rng.randint(1, 365)), room)

    def quote_csv(self, key: str, opp) -> Attachment:
        csv = f"opportunity,product,amount,close_date\n{opp.name},{opp.name.split()[-1]},{opp.amount:.2f},{opp.close_date}\n"
        return Attachment(filename=f"quote-{key}.csv", mime_type="text/csv", content=csv.encode())

    def thread(self, thread: str, people: list[Any], subject: str, bodies: list[str], start: datetime, room: int,
               attach: Sequence[Attachment] = (), label: tuple[str, str] | None = None) -> None:
        when = start.replace(second=0, microsecond=0) + timedelta(minutes=self.rng.randint(0, 600))
        parent: MailMessage | None = None
        for i, body in enumerate(bodies[:room]):
            if when >= self.now:
                return
            sender = people[i % 2] if len(people) < 3 or i == 0 else self.rng.choice(people)
            others = [p for p in people if p != sender]
            parent = self.send(thread, i + 1, sender, others[:1], others[1:], ("Re: " if i else "") + subject, when,
                               body, parent, attach if i == 0 else [])
            self.file(parent, label)
            when += timedelta(minutes=self.rng.randint(20, 2_000))

    def add(self, thread, n, sender, name, others, subject, when, body, parent, attach, to=1) -> MailMessage:
        domain = sender.split("@", 1)[1]
        refs = [*parent.references, parent.message_id] if parent else []
        message = MailMessage(
            source=f"mail/{thread}/{n}.eml", message_id=f"<{thread}.{n}.{self.seed}@{domain}>", sender=sender,
            sender_name=name, to=others[:to], cc=others[to:], subject=subject, date=when, body_text=body,
            in_reply_to=parent.message_id if parent else None, references=refs, attachments=list(attach))
        self.messages.append(message)
        return message

    def file(self, message: MailMessage, label: tuple[str, str] | None) -> None:
        """Mailbox state: some received mail unread or starred; deal openers labelled for their owner."""
        for person in (r for r in message.to + message.cc if r in self.people):
            roll = self.rng.random()
            if roll < 0.15 or roll > 0.97:
                box = self.boxes.setdefault(person, Mailbox())
                box.messages.setdefault(message.message_id, []).append("UNREAD" if roll < 0.15 else "STARRED")
        if label and message.in_reply_to is None and label[1] in {message.sender, *message.to, *message.cc}:
            box = self.boxes.setdefault(label[1], Mailbox())
            if label[0] not in box.labels:
                box.labels.append(label[0])
            box.messages.setdefault(message.message_id, []).append(label[0])
