"""Perception families (Vision-SR1, verified), one per app: the agent first says what it sees
(``task.describe_view``: the records, figures and names in front of it), then answers a question whose answer
is on a page or in a tool result. A ``perception`` criterion grades the description against what the agent's
reads had shown by then (no invented figure, not the prompt again) and whether the question can be answered
from it alone, by the task's own answer comparator (``tasks/perception.py``); ``Reward.perception`` carries it
beside the reward. Each scene holds rivals for the answer (a superseded quote, a near-namesake account, last
year's sheet, a past meeting), so a description must say which is which, and the answer must pick the right one.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from scenarios.draft import Draft
from scenarios.families.common import first, mail, money, new_customer, read_only, round_to
from scenarios.family import Family, Skip

SAY_FIRST = ("Before you answer, tell me what you see with the describe-view tool (task describe_view): the "
             "records, figures and names in front of you.")
ITEMS = ["laptops", "standing desks", "office chairs", "monitors", "headsets", "docking stations"]
PRODUCTS = ["analytics add-on", "platform licence", "support plan", "onboarding services", "data connector"]
TOPICS = ["Pricing review", "Roadmap walkthrough", "Contract check-in", "Security review", "Budget sync"]


def _perceive(d: Draft, description: str) -> None:
    """The perception criterion and the oracle's description (the reads before it are the family's)."""
    d.check("saw", role="perception", perception={})
    d.check("grounded", role="diagnostic", trajectory={"grounded": True})
    read_only(d)
    d.do("task.describe_view", description=description)
    d.tags.append("perception")


def _owner(d: Draft) -> str:
    return d.rng.choice(d.view.crm_users() or d.view.people).email


def vendor_quote(d: Draft) -> None:
    """Mail: a supplier quotes, then revises; a second supplier quotes the same thing. The latest total counts."""
    owner = _owner(d)
    item, qty = d.rng.choice(ITEMS), d.rng.randint(3, 40)
    vendor = new_customer(d, owner, save="vend", industry="Manufacturing")
    rival = new_customer(d, owner, save="rival", industry="Manufacturing")
    old = round_to(d.rng.randint(40, 400) * 100, 50)
    new = old - round_to(d.rng.randint(2, 30) * 100, 50)
    other = round_to(d.rng.randint(40, 400) * 100, 50)
    if len({old, new, other}) < 3:
        raise Skip("the three totals would not be distinct")
    subject = f"Quote: {qty} {item}"
    mail(d, vendor.email, subject, f"Hi {first(d.view.actor)},\n\nOur quote for {qty} {item} comes to {money(old)} "
         f"in total.\n\nBest,\n{vendor.contact}", bind="first")
    mail(d, rival.email, subject, f"Hello,\n\nFor {qty} {item} we can offer {money(other)} all in.\n\n"
         f"Regards,\n{rival.contact}", bind="other")
    mail(d, vendor.email, f"Revised quote: {qty} {item}", f"Hi {first(d.view.actor)},\n\nWe looked again: the "
         f"revised total for {qty} {item} is {money(new)}. It replaces our earlier quote.\n\n{vendor.contact}",
         bind="revised")
    d.distractors = 2
    d.title = f"{vendor.name}'s latest quote"
    d.prompt = f"What's the latest total {vendor.name} quoted us for the {item}? {SAY_FIRST}"
    d.answer("money", new)
    d.do("mail.search", query=item)
    for name in ("first", "other", "revised"):
        d.do("mail.get_message", message_id=f"${name}.id")
    _perceive(d, f"Three mails about {item}. {vendor.contact} of {vendor.name} first quoted {money(old)}. "
                 f"{rival.contact} of {rival.name} offered {money(other)}. "
                 f"{vendor.name}'s revised quote is {money(new)} and replaces their first one.")
    d.do("task.submit_answer", answer=money(new))


def deal_value(d: Draft) -> None:
    """CRM: one customer's deals beside a near-namesake account holding a deal of the same product."""
    owner = _owner(d)
    acct = new_customer(d, owner)
    twin = d.fresh(lambda: f"{acct.name} {d.rng.choice(['Holdings', 'Europe', 'Labs', 'Group'])}")
    d.setup("crm.create_account", by=owner, save="twin", name=twin, type="Prospect", owner=owner)
    product, extra = d.rng.sample(PRODUCTS, 2)
    close = d.view.today + timedelta(days=d.rng.randint(10, 80))
    amounts = d.rng.sample(range(12, 240), 3)
    asked, beside, rival = (round_to(a * 1000, 500) for a in amounts)
    stage, stage2 = d.rng.sample(["Qualification", "Needs Analysis", "Proposal", "Negotiation"], 2)
    d.setup("crm.create_opportunity", by=owner, account_id=f"{acct.ref}.id", name=f"{acct.name} - {product}",
            amount=asked, close_date=close, stage=stage, owner=owner)
    d.setup("crm.create_opportunity", by=owner, account_id=f"{acct.ref}.id", name=f"{acct.name} - {extra}",
            amount=beside, close_date=close, stage=stage2, owner=owner)
    d.setup("crm.create_opportunity", by=owner, account_id="$twin.id", name=f"{twin} - {product}",
            amount=rival, close_date=close, stage="Proposal", owner=owner)
    d.distractors = 2
    d.title = f"{acct.name} {product} value"
    d.prompt = f"What is the {product} deal with {acct.name} worth? {SAY_FIRST}"
    d.answer("money", asked)
    d.do("crm.search", text=acct.name)
    d.do("crm.query", soql="SELECT Name, Amount, StageName FROM Opportunity WHERE AccountId = ${acct.id}")
    d.do("crm.query", soql="SELECT Name, Amount, StageName FROM Opportunity WHERE AccountId = ${twin.id}")
    _perceive(d, f"{acct.name} has two deals: {product} at {money(asked)} in {stage}, and {extra} at "
                 f"{money(beside)} in {stage2}. The other account, {twin}, has its own {product} deal at {money(rival)}.")
    d.do("task.submit_answer", answer=money(asked))


def sheet_figure(d: Draft) -> None:
    """Docs: a budget sheet shared with me, and last year's under a near-identical name; one cell is asked."""
    keeper = d.rng.choice([p for p in d.view.people if p.email != d.actor] or d.view.people)
    teams = d.rng.sample(["Sales", "Marketing", "Support", "Engineering", "Finance", "Operations"], 3)
    year, quarter = d.view.today.year, d.rng.randint(1, 4)
    header = ["Team", "Q1", "Q2", "Q3", "Q4"]
    figures = {t: [round_to(d.rng.randint(20, 400) * 1000, 1000) for _ in range(4)] for t in teams}
    d.setup("docs.create_spreadsheet", by=keeper.email, save="sheet", name=f"Team budget {year}",
            rows=[header] + [[t, *figures[t]] for t in teams])
    d.setup("docs.share", by=keeper.email, file_id="$sheet.id", email=d.actor, role="viewer")
    old = {t: [v - 1000 * d.rng.randint(1, 9) for v in figures[t]] for t in teams}
    d.setup("docs.create_spreadsheet", by=keeper.email, save="old", name=f"Team budget {year - 1}",
            rows=[header] + [[t, *old[t]] for t in teams])
    d.setup("docs.share", by=keeper.email, file_id="$old.id", email=d.actor, role="viewer")
    team = d.rng.choice(teams)
    asked = figures[team][quarter - 1]
    d.distractors = 2
    d.title = f"{team} budget, Q{quarter}"
    d.prompt = f"What's {team}'s Q{quarter} budget this year, per {first(keeper)}'s budget sheet? {SAY_FIRST}"
    d.answer("money", asked)
    d.do("docs.search", query="Team budget")
    d.do("docs.get_spreadsheet", file_id="$sheet.id")
    rows = "; ".join(f"{t}: " + ", ".join(f"Q{n + 1} {money(v)}" for n, v in enumerate(figures[t])) for t in teams)
    _perceive(d, f"The sheet Team budget {year} by {keeper.name} lists {rows}. There is also last year's sheet, "
                 f"Team budget {year - 1}.")
    d.do("task.submit_answer", answer=money(asked))


def next_meeting(d: Draft) -> None:
    """Calendar: the same topic with the same person last week and ahead, and with someone else: the next one."""
    people = [p for p in d.view.colleagues(d.actor) if first(p) not in {first(q) for q in d.view.colleagues(d.actor)
                                                                        if q.email != p.email}]
    if len(people) < 2:
        raise Skip("fewer than two colleagues with distinct first names")
    mate, other = d.rng.sample(people, 2)
    topic = d.rng.choice(TOPICS)
    today, tz = d.view.today, d.view.info.timezone
    past, ahead, rival = (today - timedelta(days=d.rng.randint(3, 9)), today + timedelta(days=d.rng.randint(3, 20)),
                          today + timedelta(days=d.rng.randint(1, 2)))
    for save, day, person in (("past", past, mate), ("next", ahead, mate), ("rival", rival, other)):
        start = datetime.combine(day, time(d.rng.randint(10, 14)))
        if start.replace(tzinfo=d.view.zone).astimezone(timezone.utc).date() != day:
            raise Skip("the calendar answers in UTC, and midday here falls on another UTC day")
        d.setup("calendar.create_event", save=save, title=f"{topic}", start=start, end=start + timedelta(hours=1),
                time_zone=tz, attendees=[person.email])
    d.distractors = 2
    d.title = f"Next {topic.lower()} with {first(mate)}"
    d.prompt = f"When is my next {topic.lower()} with {first(mate)}? Give me the date. {SAY_FIRST}"
    d.answer("date", ahead.isoformat())
    d.do("calendar.search_events", query=topic)
    _perceive(d, f"Three {topic} events: with {mate.name} on {_day(past)} (already past) and on {_day(ahead)}; "
                 f"with {other.name} on {_day(rival)}.")
    d.do("task.submit_answer", answer=ahead.isoformat())


def _day(day: date) -> str:
    return day.isoformat()


FAMILIES = [
    Family("perception-mail-quote", "say what the mail shows (a quote, its revision, a rival's), then give the "
           "latest total", ("mail",), "train", vendor_quote),
    Family("perception-calendar-next", "say which meetings the calendar shows on a topic, then date the next one "
           "with the asked person", ("calendar",), "test", next_meeting),
    Family("perception-crm-deal", "say which deals the CRM shows for a customer and its near-namesake, then value "
           "the asked one", ("crm",), "validation", deal_value),
    Family("perception-sheet-figure", "say what a budget sheet shows, past last year's, then read one team's "
           "quarter", ("docs",), "train", sheet_figure),
]
