"""Stories that unfold over time across the apps: deals, support escalations, hires, the quarter close.

A story is a short script over the records the CRM builder made: it writes the threads (in each
person's voice, replies quoting their parent), the meetings those threads name (on the calendar on
the day and hour the mail says, with the people the mail went to), the CRM's stage and amount history
and activities, and the documents (proposal, requisition, forecast sheet). Every number a story
writes is read from the one record it is about, at the time of writing, so mail, CRM and docs agree;
``worlds.consistency`` checks that they do. This module holds the common parts and the deal story;
``stories_office`` the others.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from faker import Faker

from apps.crm.records import CrmData, EventRecord, HistoryEntry, NoteRecord, TaskRecord
from apps.docs.world import Item, Revision
from worlds.generate.kinds import role_of
from worlds.model import WorldInfo

if TYPE_CHECKING:
    from apps.mail.generate import MailBuilder  # the mail section's builder (``MailSection.builder``)

# The stages a deal passes through, in order; Prospecting is where it is created.
ORDER = ["Prospecting", "Qualification", "Needs Analysis", "Value Proposition", "Proposal", "Negotiation"]
NEEDS = ["replacing spreadsheets the team has outgrown", "a single view of their customers across regions",
         "cutting the time month-end reporting takes", "an audit trail their regulator will accept",
         "onboarding new sites without adding headcount"]


def when_text(start: datetime) -> str:
    """'Tuesday, March 10 at 2:00 PM': how the mail names a meeting's day and time (the checks read it back)."""
    return f"{start:%A, %B} {start.day} at {start.hour % 12 or 12}:{start:%M %p}"


@dataclass
class Plot:
    """What the stories made besides mail: documents and calendar meetings (naive times: the world's zone)."""

    items: list[Item] = field(default_factory=list)
    meetings: dict[str, dict] = field(default_factory=dict)


class StoryBase:
    def __init__(self, fake: Faker, rng: random.Random, info: WorldInfo, crm: CrmData, mail: MailBuilder,
                 taken: set[str]):
        self.fake, self.rng, self.info, self.crm, self.mail, self.taken = fake, rng, info, crm, mail, taken
        self.zone = ZoneInfo(info.timezone)
        self.now = info.now
        self.plot = Plot()
        self.people = info.people_by_email()
        self.contacts_of: dict[str, list[str]] = {}
        for key, contact in crm.contacts.items():
            if contact.account and contact.email:   # a story mails its contacts, at their account
                self.contacts_of.setdefault(contact.account, []).append(key)
        # The forecast summary goes out on the last working morning before now; deals settle before it.
        self.summary_at = self.workday(self.now - timedelta(days=1), back=True).replace(hour=10, minute=5)
        self.cutoff = self.summary_at - timedelta(days=1)

    def team(self, role: str) -> str:
        """The name this company gives the team playing ``role`` (its shared drive's name too)."""
        return next((p.team for p in self.info.people if role_of(p.team) == role), role)

    def aware(self, moment: datetime) -> datetime:
        return moment.replace(tzinfo=self.zone)

    def workday(self, moment: datetime, back: bool = False) -> datetime:
        """``moment`` moved to a weekday (forward, or ``back``), same time of day."""
        while moment.weekday() >= 5:
            moment += timedelta(days=-1 if back else 1)
        return moment

    def later(self, moment: datetime, low: int, high: int) -> datetime:
        """Between ``low`` and ``high`` minutes after ``moment``, inside working hours (8:00-18:00, weekdays)."""
        moment = (moment + timedelta(minutes=self.rng.randint(low, high))).replace(second=0, microsecond=0)
        if moment.hour >= 18 or moment.hour < 8:
            moment = (moment + timedelta(days=1 if moment.hour >= 18 else 0)).replace(
                hour=8, minute=self.rng.randint(0, 59))
        return self.workday(moment)

    def slot(self, after: datetime, days: int) -> datetime:
        """A meeting start ``days`` working days after ``after``, on the hour or half hour."""
        day = after
        for _ in range(days):
            day = self.workday(day + timedelta(days=1))
        return day.replace(hour=self.rng.randint(9, 16), minute=self.rng.choice([0, 30]), second=0, microsecond=0)

    def meeting(self, title: str, organizer: str, attendees: list[str], start: datetime, minutes: int,
                related: str | None = None, location: str = "Video call") -> str:
        """Put a meeting on the calendar (and, for a CRM record, an event on it); return how mail names it."""
        key = f"story-{len(self.plot.meetings) + 1:04d}"
        people = list(dict.fromkeys([organizer, *attendees]))
        self.plot.meetings[key] = {"title": title, "organizer": organizer, "start": start,
                                   "end": start + timedelta(minutes=minutes), "attendees": people,
                                   "location": location}
        if related:
            self.crm.events[f"event-{key}"] = EventRecord(
                subject=title, owner=organizer, start=start, end=start + timedelta(minutes=minutes),
                related=related, location=location)
        return f'"{title}" on {when_text(start)}'

    def first(self, email: str) -> str:
        return self.mail.names[email][0].split()[0]

    def contact(self, key: str) -> str:
        email = self.crm.contacts[key].email
        if email is None:
            raise ValueError(f"contact {key!r} has no email: a story cannot mail them")
        return email

    def doc(self, name: str, text: str, by: str, at: datetime, **where) -> Item:
        item = Item(name=name, text=text, type="document", created=self.aware(at), created_by=by,
                    modified=self.aware(at), modified_by=by, **where)
        self.plot.items.append(item)
        return item


class DealStory(StoryBase):
    def deal(self, key: str) -> None:
        """Prospecting to the deal's stage: discovery call, requirements, demo, proposal, negotiation, close."""
        opp, c = self.crm.opportunities[key], self.rng
        stages = self.path(opp.stage)
        contacts = self.contacts_of.get(opp.account)
        if not contacts or opp.amount is None:
            return
        champion, second = self.contact(contacts[0]), self.contact(contacts[-1])
        owner, account = opp.owner, self.crm.accounts[opp.account].name.split(",")[0]
        end = self.cutoff
        opp.created = opp.created or self.cutoff - timedelta(days=60)
        if opp.stage.startswith("Closed"):
            end = min(end, datetime.combine(opp.close_date or end.date(), opp.created.time()).replace(hour=15))
        start = opp.created + timedelta(hours=2)
        gap = (end - start) / (len(stages) + 1)
        if gap < timedelta(days=4):
            gap = timedelta(days=4)
            start = end - gap * (len(stages) + 1)
            opp.created = start - timedelta(hours=2)
        final = opp.amount or 0
        first = final if "Negotiation" not in stages else round(final / (1 - c.choice([0.05, 0.08, 0.1])), -3)
        opp.history = []
        ctx: dict[str, Any] = {"key": key, "opp": opp, "owner": owner, "champion": champion, "second": second, "account": account,
               "first": first, "final": final, "gap": gap, "related": f"opportunity/{key}"}
        t = self.later(self.workday(start), 0, 120)
        self.intro(ctx, t)
        prev, proposal = "Prospecting", None
        for i, stage in enumerate(stages, start=1):
            t = self.later(self.workday(start + gap * i), 0, 240)
            opp.history.append(HistoryEntry(field="stage", old=prev, new=stage, by=owner, at=t - timedelta(minutes=5)))
            prev = stage
            if stage == "Needs Analysis":
                self.requirements(ctx, t)
            elif stage == "Value Proposition":
                self.demo(ctx, t)
            elif stage == "Proposal":
                proposal = self.proposal(ctx, t)
            elif stage == "Negotiation":
                self.negotiate(ctx, t, proposal)
            elif stage.startswith("Closed"):
                opp.close_date = t.date()
                self.close(ctx, t, stage == "Closed Won")
        if x := ctx.get("thread"):
            self.mail.script("deal", f"Proposal: {opp.name}", x)
        if x := ctx.get("win"):
            self.mail.script("win", f"Closed: {opp.name}", x)

    def path(self, stage: str) -> list[str]:
        skip = self.rng.random() < 0.4
        keep = [s for s in ORDER[1:] if not (skip and s == "Value Proposition")]
        if stage == "Closed Won":
            return keep + ["Closed Won"]
        if stage == "Closed Lost":
            return keep[:keep.index("Proposal") + 1] + ["Closed Lost"]
        return keep[:keep.index(stage) + 1] if stage in keep else ORDER[1:ORDER.index(stage) + 1]

    def intro(self, x: dict, t: datetime) -> None:
        meet = self.slot(t, self.rng.randint(1, 3))
        phrase = self.meeting(f"Discovery call: {x['account']}", x["owner"], [x["champion"]], meet, 30, x["related"])
        need = self.rng.choice(NEEDS)
        company = self.info.company.split(",")[0]
        steps: list[tuple] = [
            (x["owner"], [x["champion"]], [], f"Thanks for taking my call earlier. As promised, I've sent an invite "
             f"for {phrase} so we can hear more about {need}.", self.aware(t)),
            (x["champion"], [x["owner"]], [], f"Thanks, accepted. {need.capitalize()} is the priority for us this "
             "year, so the timing is good.", self.aware(self.later(t, 30, 300))),
            (x["owner"], [x["champion"]], [], f"Thanks for the time on {meet:%A}. My notes: the priority is {need}, "
             "and you want a decision this quarter. I've logged it on our side; next I'll send a few questions "
             "to size it.", self.aware(self.later(meet, 90, 200))),
        ]
        self.mail.script("deal", f"{x['account']} and {company}", steps)

    def requirements(self, x: dict, t: datetime) -> None:
        seats = self.rng.randrange(25, 900, 25)
        x["seats"] = seats
        steps = [
            (x["owner"], [x["champion"]], [x["second"]], f"To size {x['opp'].name} properly, could you confirm the "
             "number of seats, the systems it has to connect to and the go-live date you have in mind?", self.aware(t)),
            (x["second"], [x["owner"]], [x["champion"]], f"We are looking at about {seats} seats, single sign-on "
             "through our identity provider and an export to the finance system. Go-live before the end of next "
             "quarter.", self.aware(self.later(t, 120, 1200))),
        ]
        self.mail.script("deal", f"Questions on {x['opp'].name}", steps)
        self.crm.notes[f"note-{len(self.crm.notes) + 1}"] = NoteRecord(
            related=x["related"], owner=x["owner"], title="Requirements",
            body=f"{seats} seats; SSO; export to finance. Go-live before the end of next quarter.",
            created=self.later(t, 1300, 1500))

    def demo(self, x: dict, t: datetime) -> None:
        meet = self.slot(t, self.rng.randint(2, 4))
        phrase = self.meeting(f"Demo: {x['account']}", x["owner"], [x["champion"], x["second"]], meet, 60,
                              x["related"])
        steps = [(x["owner"], [x["champion"]], [x["second"]], f"I've sent an invite for {phrase}: I'll show the "
                  "set-up we discussed, with your own data where I can.", self.aware(t)),
                 (x["champion"], [x["owner"]], [x["second"]], "Thanks, we'll both be there.",
                  self.aware(self.later(t, 20, 240)))]
        self.mail.script("deal", f"Demo for {x['account']}", steps)

    def proposal_text(self, x: dict, amount: float, valid: datetime) -> str:
        opp = x["opp"]
        return (f"# Proposal: {opp.name}\n\nPrepared for {self.mail.names[x['champion']][0]}, {x['account']}  \n"
                f"Prepared by {self.mail.names[x['owner']][0]}\n\n## Scope\n\n- {opp.name.split(x['account'])[-1].strip()}"
                f" for {x.get('seats', 100)} seats\n- Onboarding and training\n- Standard support\n\n## Investment\n\n"
                f"The total for {opp.name} is ${amount:,.0f} for the first year. This proposal is valid until "
                f"{valid:%B} {valid.day}, {valid.year}.\n")

    def proposal(self, x: dict, t: datetime) -> Item:
        valid = t + timedelta(days=30)
        item = self.doc(f"Proposal - {x['opp'].name}", self.proposal_text(x, x["first"], valid), x["owner"], t,
                        source=f"files/proposals/{x['key']}.md", drive=self.team("Sales"),
                        folder=f"Proposals/{x['account'][:40]}")
        x["thread"] = [
            (x["owner"], [x["champion"]], [x["second"]], f"The proposal for {x['opp'].name} comes to ${x['first']:,.0f} "
             f"for the first year. It is valid until {valid:%B} {valid.day}, and I'm happy to walk you through it.",
             self.aware(self.later(t, 10, 60))),
            (x["champion"], [x["owner"]], [x["second"]], "Thanks, we'll review it internally and come back to you.",
             self.aware(self.later(t, 200, 1500)))]
        status = "Completed" if x["opp"].stage not in ("Proposal",) else "Not Started"
        self.crm.tasks[f"task-{len(self.crm.tasks) + 1}"] = TaskRecord(
            subject="Follow up on proposal", owner=x["owner"], related=x["related"], status=status,
            due=(t + timedelta(days=7)).date(), created=t)
        return item

    def negotiate(self, x: dict, t: datetime, proposal: Item | None) -> None:
        opp, ask = x["opp"], self.later(t - timedelta(hours=20), 0, 60)
        meet = self.slot(t, self.rng.randint(1, 3))
        phrase = self.meeting(f"Pricing review: {x['account']}", x["owner"], [x["champion"], x["second"]], meet, 45,
                              x["related"])
        opp.history.insert(-1, HistoryEntry(field="amount", old=x["first"], new=x["final"], by=x["owner"],
                                        at=t - timedelta(minutes=10)))
        x["thread"] += [
            (x["champion"], [x["owner"]], [x["second"]], "Procurement came back: the number is above what we "
             "budgeted. Is there room to move?", self.aware(max(ask, x["thread"][-1][4].replace(tzinfo=None)
                                                             + timedelta(hours=1)))),
            (x["owner"], [x["champion"]], [x["second"]], f"We can do {opp.name} at ${x['final']:,.0f} if we sign this "
             f"quarter. I've sent an invite for {phrase} to go through the order form.", self.aware(t))]
        if proposal is not None:
            proposal.revisions = [Revision(by=x["owner"], at=proposal.created, text=proposal.text)]
            proposal.text = self.proposal_text(x, x["final"], t + timedelta(days=30))
            proposal.modified = self.aware(t)

    def close(self, x: dict, t: datetime, won: bool) -> None:
        opp = x["opp"]
        if won:
            x["thread"].append((x["champion"], [x["owner"]], [x["second"]], "Good news: the order form is signed "
                                "and on its way to you.", self.aware(t - timedelta(minutes=30))))
            boss = self.people[opp.owner].manager or opp.owner
            x["win"] = [(x["owner"], [boss], [], f"Closed {opp.name} today at ${x['final']:,.0f}. Thanks for the help "
                      "on pricing.", self.aware(t)),
                     (boss, [x["owner"]], [], "Great work, well done.", self.aware(self.later(t, 15, 180)))]
        else:
            x["thread"].append((x["champion"], [x["owner"]], [x["second"]], "We have decided to go with another "
                                "vendor for now; price was the deciding factor. Thank you for your time.",
                                self.aware(t)))
