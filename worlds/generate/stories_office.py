"""The stories besides deals (support escalation, hire, quarter close) and the driver that tells them all.

``Stories.tell(budget)`` tells deals, then escalations, then hires, each until its share of the mail
budget is spent, and the quarter close last: its forecast sheet reads the pipeline as the deals left it.
"""

from __future__ import annotations

from datetime import date, timedelta

from apps.crm.picklists import CLOSED_STAGES, STAGE_PROBABILITY
from apps.crm.records import TaskRecord
from apps.docs.world import Item
from worlds.generate.kinds import role_of, titles_of
from worlds.generate.people import slug, unique_email
from worlds.generate.stories import DealStory, Plot
from worlds.generate.text import paragraph
from worlds.model import Outsider

# Share of the story budget (cumulative) after which each kind stops.
SHARES = {"deal": 0.65, "escalation": 0.85, "hire": 0.97}


def quarter_of(day: date) -> tuple[int, date, date]:
    """(quarter number, first day, last day) of the calendar quarter holding ``day``."""
    q = (day.month - 1) // 3 + 1
    first = date(day.year, 3 * q - 2, 1)
    after = date(day.year + (q == 4), 1 if q == 4 else 3 * q + 1, 1)
    return q, first, after - timedelta(days=1)


def forecast_name(day: date) -> str:
    q, first, _ = quarter_of(day)
    return f"Forecast Q{q} {first.year}"


class Stories(DealStory):
    def tell(self, budget: int) -> Plot:
        start = len(self.mail.messages)
        spent = lambda: len(self.mail.messages) - start  # noqa: E731
        deals = sorted(self.crm.opportunities, key=lambda k: self.crm.opportunities[k].created or self.cutoff)
        for key in self.rng.sample(deals, len(deals)):
            if spent() >= budget * SHARES["deal"]:
                break
            self.deal(key)
            self.mail.told.add(key)
        cases = sorted(k for k, c in self.crm.cases.items() if c.status in ("Escalated", "Closed"))
        for key in self.rng.sample(cases, len(cases)):
            if spent() >= budget * SHARES["escalation"]:
                break
            self.escalation(key)
            self.mail.told.add(key)
        heads = [p.email for p in self.info.people if p.manager == self.lead().email]
        for i, head in enumerate(self.rng.sample(heads, len(heads))):
            if spent() >= budget * SHARES["hire"] and i:
                break
            self.hire(head)
        self.quarter_close()
        return self.plot

    def lead(self):
        return next(p for p in self.info.people if p.manager is None)

    def head(self, role: str) -> str:
        """The head of the team playing ``role`` (Sales, Support, Finance...), whatever the company calls it."""
        return next(p.email for p in self.info.people if role_of(p.team) == role and p.manager == self.lead().email)

    def escalation(self, key: str) -> None:
        """A customer's complaint, the case raised, an internal escalation mail and a call with everyone."""
        case = self.crm.cases[key]
        if case.contact is None or case.account is None:
            return
        case.created = min(case.created or self.cutoff, self.cutoff - timedelta(days=6))
        t, contact, owner = self.later(case.created, 0, 60), self.contact(case.contact), case.owner
        case.priority = self.rng.choice(["High", "Critical"])
        head, sales = self.head("Support"), self.crm.accounts[case.account].owner
        account = self.crm.accounts[case.account].name.split(",")[0]
        call = self.slot(t, 2)
        phrase = self.meeting(f"Escalation call: {account}", owner, [contact, head, sales], call, 45, f"case/{key}")
        follow = self.later(t, 1200, 1500)
        steps = [(contact, [owner], [], f"Since this morning we have been seeing this: {case.subject.lower()}. It "
                  "is blocking part of our team; can you take a look?", self.aware(t)),
                 (owner, [contact], [], f"Sorry about this. I've logged it as a {case.priority.lower()} priority case "
                  "and I'm looking at it now.", self.aware(self.later(t, 20, 90))),
                 (contact, [owner], [], "Any update? This is still happening and our leadership is asking.",
                  self.aware(follow)),
                 (owner, [contact], [sales], f"I've escalated this and sent an invite for {phrase} with our head of "
                  f"support and {self.first(sales)}, your account manager.", self.aware(self.later(follow, 30, 90)))]
        if case.status == "Closed":
            fixed = self.later(call, 120, 600)
            case.closed = min(fixed + timedelta(hours=3), self.now - timedelta(hours=1))
            steps += [(owner, [contact], [sales], "The fix is deployed. Could you confirm it works on your side?",
                      self.aware(fixed)),
                      (contact, [owner], [sales], "Confirmed, it works now. Thank you for the quick turnaround.",
                       self.aware(self.later(fixed, 30, 120)))]
        self.mail.script("case", case.subject, steps)
        inside = [(owner, [head], [sales], f"Escalating a case from {account}: they are blocked ({case.subject.lower()}). I've "
                   f"raised it to {case.priority} and set up {phrase} so we can go through it together.",
                   self.aware(self.later(follow, 5, 25))),
                  (head, [owner], [sales], "Thanks. Pull in engineering if we have no root cause before the call.",
                   self.aware(self.later(follow, 40, 120)))]
        self.mail.script("escalation", f"Escalation: {account} - {case.subject}", inside)
        self.crm.tasks[f"task-{len(self.crm.tasks) + 1}"] = TaskRecord(
            subject="Root-cause write-up", owner=owner, related=f"case/{key}", priority="High",
            status="Completed" if case.status == "Closed" else "In Progress", due=(call + timedelta(days=3)).date(),
            created=follow)

    def hire(self, manager: str) -> None:
        """A requisition, interviews with two or three candidates, a debrief, and an offer to one of them."""
        boss = self.people[manager]
        role = self.rng.choice(titles_of(boss.team))
        team = [p.email for p in self.info.people if p.team == boss.team and p.email != manager]
        panel = self.rng.sample(team, min(2, len(team)))
        low = self.rng.randrange(80, 160) * 1000
        opened = self.workday(self.now - timedelta(days=self.rng.randint(30, 45))).replace(hour=9, minute=30)
        names = ", ".join(self.mail.names[p][0] for p in panel) or "me"
        self.doc(f"Requisition - {role}", f"# Requisition: {role}\n\nTeam: {boss.team}  \nHiring manager: {boss.name}"
                 f"\n\nSalary band: ${low:,.0f} to ${low + 30_000:,.0f}  \nInterview panel: {names}\n\n## The role\n\n"
                 f"{paragraph(self.fake, 3)}\n", manager, opened, drive=boss.team, folder="Hiring",
                 source=f"files/hiring/{slug(role)}-{len(self.plot.items)}.md")
        company, candidates = self.info.company.split(",")[0], []
        for _ in range(self.rng.randint(2, 3)):
            first, last = self.fake.first_name(), self.fake.last_name()
            email = unique_email(first, last, "mailbox.example", self.taken)
            self.info.outsiders.append(Outsider(name=f"{first} {last}", email=email, organisation=self.fake.company(),
                                                title=role))
            self.mail.names[email] = (f"{first} {last}", None)
            candidates.append(email)
        t = opened + timedelta(days=7)
        for person in candidates:
            t = self.later(t, 60, 600)
            meet = self.slot(t, self.rng.randint(2, 4))
            phrase = self.meeting(f"Interview: {self.mail.names[person][0]} for {role}", manager, [person, *panel],
                                  meet, 60)
            self.mail.script("hire", f"Your application for {role} at {company}", [
                (manager, [person], [], f"Thank you for applying for the {role} role. I've sent an invite for "
                 f"{phrase} with {names} from the team.", self.aware(t)),
                (person, [manager], [], "Thank you, that time works for me. I look forward to it.",
                 self.aware(self.later(t, 30, 400)))])
        chosen, t = candidates[0], self.later(t + timedelta(days=6), 0, 60)
        if panel:
            self.mail.script("hire", f"Debrief: {role}", [
                (manager, panel, [], f"Thanks for interviewing. I'm leaning towards {self.mail.names[chosen][0]} for "
                 f"the {role} role; objections by tomorrow, please.", self.aware(t)),
                (panel[0], [manager], panel[1:], "No objection from me, a strong candidate.",
                 self.aware(self.later(t, 30, 300)))])
        offer, start = self.later(t, 1440, 1600), self.workday(self.now + timedelta(days=30))
        salary = low + self.rng.randrange(0, 31, 5) * 1000
        self.mail.script("hire", f"Offer: {role} at {company}", [
            (manager, [chosen], [], f"I'm delighted to offer you the {role} role at a base salary of ${salary:,.0f}, "
             f"starting {start:%A, %B} {start.day}.", self.aware(offer)),
            (chosen, [manager], [], "Thank you! I'm happy to accept; I'll sign and return the letter this week.",
             self.aware(self.later(offer, 60, 900)))])

    def quarter_close(self) -> None:
        """The forecast sheet from the pipeline closing this quarter, and the summary mail that quotes it."""
        _, first, last = quarter_of(self.now.date())
        deals = sorted(((k, o) for k, o in self.crm.opportunities.items() if o.close_date and o.stage != "Closed Lost"
                        and first <= o.close_date <= last), key=lambda ko: (ko[1].close_date, ko[0]))
        if not deals:
            return
        rows = [["Opportunity", "Account", "Owner", "Stage", "Close date", "Amount", "Probability", "Weighted"]]
        for n, (key, o) in enumerate(deals, start=2):
            rows.append([o.name, self.crm.accounts[o.account].name, self.mail.names[o.owner][0], o.stage,
                         str(o.close_date), f"{o.amount:.0f}", str(o.probability or STAGE_PROBABILITY[o.stage]),
                         f"=F{n}*G{n}/100"])
        end = len(rows)
        rows.append(["Total", "", "", "", "", f"=SUM(F2:F{end})", "", f"=SUM(H2:H{end})"])
        head, ceo, finance = self.head("Sales"), self.lead().email, self.head("Finance")
        made = self.summary_at - timedelta(hours=2)
        name = forecast_name(self.now.date())
        self.plot.items.append(Item(name=name, type="spreadsheet", rows=rows, drive=self.team("Sales"), folder="Forecasts",
                                    source=f"files/forecasts/{slug(name)}.csv",
                                    created=self.aware(made - timedelta(days=2)), created_by=head,
                                    modified=self.aware(made), modified_by=head))
        total = sum(o.amount or 0 for _, o in deals)
        won = sum(o.amount or 0 for _, o in deals if o.stage == "Closed Won")
        weighted = sum((o.amount or 0) * (o.probability or 0) / 100 for _, o in deals)
        review = self.slot(self.summary_at, 1)
        phrase = self.meeting(f"{name} review", head, [ceo, finance], review, 45)
        biggest = max((o for _, o in deals if o.stage not in CLOSED_STAGES), key=lambda o: o.amount or 0, default=None)
        steps = [(head, [ceo], [finance], f'The "{name}" sheet totals ${total:,.0f} across {len(deals)} opportunities '
                  f"closing this quarter, ${won:,.0f} of it already won; weighted by stage it comes to "
                  f"${weighted:,.0f}. I've sent an invite for {phrase} to go through the open deals.",
                  self.aware(self.summary_at))]
        if biggest is not None:
            steps += [(ceo, [head], [finance], "Thanks. What is the risk on the biggest open deal?",
                       self.aware(self.later(self.summary_at, 30, 120))),
                      (head, [ceo], [finance], f"{biggest.name} is at {biggest.stage} for ${biggest.amount:,.0f}; the "
                       "customer has the order form and we expect a decision before the quarter ends.",
                       self.aware(self.later(self.summary_at, 150, 240)))]
        self.mail.script("forecast", f"{name}: where we stand", steps)
