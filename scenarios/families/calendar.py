"""Calendar families: a meeting placed where everyone is free inside the handbook's hours, on the customer's day."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from scenarios import handbook
from scenarios.draft import Draft
from scenarios.families.common import new_customer
from scenarios.family import Family, Skip
from worlds.model import Person

BUSY_TITLES = ["Customer call", "Focus time", "1:1", "Pipeline review", "Interview", "Team sync", "QBR prep",
               "Lunch & learn", "Vendor demo", "Planning"]


def _unique_first_names(people: list[Person]) -> list[Person]:
    firsts = [p.name.split()[0] for p in people]
    return [p for p in people if firsts.count(p.name.split()[0]) == 1]


def _free_day(d: Draft, people: list[str], start: int, end: int) -> date:
    """A weekday of the next three weeks on which ``people`` have nothing booked between ``start`` and ``end``."""
    view = d.view
    days = view.workdays(view.today + timedelta(days=1), 15)
    d.rng.shuffle(days)
    for day in days:
        hours = (datetime.combine(day, time(start)), datetime.combine(day, time(end)))
        if all(view.free(p, *hours) for p in people):
            return day
    raise Skip(f"no weekday in the next three weeks on which the chosen people are free from {start}:00 to {end}:00")


def _cover(d: Draft, day: date, people: list[str], start: int, end: int, slot: int) -> list[tuple]:
    """Busy blocks (person, start, end) covering [start, end) hours of ``day`` except the hour at ``slot``,
    chunked so that no other hour inside stays free for everyone."""
    blocks = []
    for lo, hi in ((start * 60, slot * 60), ((slot + 1) * 60, end * 60)):
        at = lo
        while at < hi:
            length = min(hi - at, d.rng.choice([30, 45, 60, 90]))
            person = d.rng.choice(people)
            base = datetime.combine(day, time())
            blocks.append((person, base + timedelta(minutes=at), base + timedelta(minutes=at + length)))
            at += length
    return blocks


def customer_meeting(d: Draft) -> None:
    """Book an hour with a customer and two named colleagues on the day the customer can do, inside the
    handbook's meeting hours, where nobody is busy; a free hour outside those hours is the trap."""
    view = d.view
    rules = handbook.policies(view)
    handbook.place(d)
    colleagues = _unique_first_names(view.colleagues(d.actor))
    if len(colleagues) < 2:
        raise Skip("fewer than two colleagues with distinct first names")
    picked = d.rng.sample(colleagues, 2)
    internal = [d.actor] + [p.email for p in picked]
    day = _free_day(d, internal, rules.core_start, rules.core_end)
    slot = d.rng.randint(max(rules.core_start + 1, rules.core_end - 3), rules.core_end - 1)
    for n, (person, start, end) in enumerate(_cover(d, day, internal, rules.core_start, rules.core_end, slot)):
        d.setup("calendar.create_event", by=person, title=BUSY_TITLES[(n + d.number) % len(BUSY_TITLES)],
                start=start, end=end, time_zone=view.info.timezone)
    acct = new_customer(d, d.actor)
    names = " and ".join(p.name.split()[0] for p in picked)
    subject = f"{acct.name} kickoff"
    d.setup("mail.send", by=acct.email, to=[d.actor], subject=subject,
            body=f"Hello,\n\nThanks for the call. For the kickoff, {day:%A, %B} {day.day} is the only day that works "
                 f"for us - any time during your business day. Could {names} join too? An hour should do it.\n\n"
                 f"Best,\n{acct.contact}")
    early = (datetime.combine(day, time(9)), datetime.combine(day, time(rules.core_start)))
    d.distractors = 1 if rules.core_start > 9 and all(view.free(p, *early) for p in internal) else 0
    start = datetime.combine(day, time(slot))
    d.title = f"Book the {acct.name} kickoff"
    d.prompt = f"Get the {acct.name} kickoff on the calendar - see {acct.contact.split()[0]}'s mail."
    d.check("booked", records={
        "from": "calendar.event", "where": {"organizer": "$actor", "start": {"date": day.isoformat()}},
        "created": True, "count": 1,
        "expect": {"start": {"datetime": start.isoformat(), "granularity": "minute"},
                   "end": {"datetime": (start + timedelta(hours=1)).isoformat(), "granularity": "minute"},
                   "attendees": {"set": [*internal, acct.email]}, "status": "confirmed",
                   "title": {"any_of": [{"tokens": ["kickoff"]}, {"phrase": acct.name}]}}})
    d.do("mail.search", query=f"from:{acct.email}")
    handbook.read(d)
    d.do("calendar.find_time", people=internal, duration_minutes=60, start=datetime.combine(day, time()),
         end=datetime.combine(day + timedelta(days=1), time()), day_starts=rules.core_start,
         day_ends=rules.core_end)
    d.do("calendar.create_event", title=subject, start=start, end=start + timedelta(hours=1),
         time_zone=view.info.timezone, attendees=[acct.email] + [p.email for p in picked])
    d.tags.append("scheduling")


FAMILIES = [
    Family("cal-customer-meeting", "find the one hour a customer's day, two colleagues' calendars and the "
           "handbook's meeting hours allow, and book it with everyone invited", ("mail", "calendar", "docs"),
           "train", customer_meeting),
]
