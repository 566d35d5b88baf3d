"""Co-worker families: work that needs another person of the company to answer (``scenarios.people``), so the
agent mails, waits (``task.wait``) and acts on what comes back.

- ``cw-meeting-by-mail``: agree an hour with a colleague who knows their week better than their calendar does;
- ``cw-review-returned``: get a draft reviewed by the manager, apply the changes asked for, pass it on;
- ``cw-chase-silence``: get a figure from a lead who answers only when chased, and fill it in.

Each co-worker is an NPC of the task (``Draft.npc``), answering by rule after a seeded delay.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from scenarios import handbook
from scenarios.draft import Draft
from scenarios.families.calendar import BUSY_TITLES, _cover
from scenarios.families.common import date_phrases, distinct_firsts, first
from scenarios.families.schedule import _at, _free_days, _pick
from scenarios.family import Family, Skip

TOPICS = ["hiring plan", "pricing review", "onboarding revamp", "vendor shortlist", "budget reforecast",
          "office move", "training calendar", "tooling audit"]
PLACES = ["a customer workshop", "the leadership offsite", "a conference", "training", "jury duty"]


def _day(day: date) -> str:
    return f"{day:%A} {day:%B} {day.day}"


def _only(sender: str) -> str:
    return f"^{re.escape(sender)}$"


def meeting_by_mail(d: Draft) -> None:
    """Ask a colleague which of four days suit them (they are away on two, not on their calendar), then book the
    one hour both are free on the days left, inside the handbook's hours, and see it accepted."""
    view = d.view
    rules = handbook.policies(view)
    handbook.place(d)
    other = _pick(d, 1)[0]
    people = [d.actor, other.email]
    days = _free_days(d, people, 4)
    away = sorted([days[0], d.rng.choice(days[1:])])   # the earliest free day is one they are away: the trap
    blocked, open_day = d.rng.sample([x for x in days if x not in away], 2)
    slot = d.rng.randint(rules.core_start, rules.core_end - 1)
    busy = _cover(d, blocked, people, rules.core_start, rules.core_end, rules.core_end) + \
        _cover(d, open_day, people, rules.core_start, rules.core_end, slot)
    tz = view.info.timezone
    for n, (person, start, end) in enumerate(busy):
        d.setup("calendar.create_event", by=person, title=BUSY_TITLES[(n + d.number) % len(BUSY_TITLES)],
                start=start, end=end, time_zone=tz)
    topic = d.rng.choice(TOPICS)
    ok = sorted([blocked, open_day])
    d.npc(other.email, mail=[{
        "id": "when", "sender": _only(d.actor), "delay": {"min_seconds": 1200, "max_seconds": 5400},
        "reply": f"Hi {{sender_name}},\n\nHappy to. I'm at {d.rng.choice(PLACES)} on {_day(away[0])} and "
                 f"{_day(away[1])}, so those are out, but {_day(ok[0])} or {_day(ok[1])} should work - send me an "
                 f"invite for whenever we're both free.\n\n{first(other)}"}],
        invitations={"delay": {"min_seconds": 300, "max_seconds": 1800}})
    start = _at(open_day, slot)
    d.check("booked", records={"from": "calendar.event", "where": {"organizer": "$actor"}, "created": True,
                               "count": 1, "expect": {
                                   "start": {"datetime": start.isoformat(), "granularity": "minute"},
                                   "end": {"datetime": (start + timedelta(hours=1)).isoformat(), "granularity": "minute"},
                                   "attendees": {"set": people}, "status": "confirmed"}})
    d.check("accepted", weight=0.5, records={"from": "calendar.event", "where": {"organizer": "$actor"},
                                             "created": True, "count": 1,
                                             "expect": {"accepted": {"contains": other.email}}})
    d.check("asked_first", role="guard", trajectory={"called": "calendar.create_event",
                                                     "after": {"actor": other.email, "op": "mail.reply"}})
    d.distractors = 2 + (rules.core_start > 7)
    listed = ", ".join(_day(x) for x in days[:-1]) + f" or {_day(days[-1])}"
    d.title = f"Find an hour with {first(other)}"
    d.prompt = (f"I need an hour with {first(other)} about the {topic}, on {listed}. Agree a time with {first(other)} - who knows their week better than their calendar "
                "does - and get it confirmed on both our calendars.")
    d.do("mail.send", to=[other.email], subject=f"{topic.capitalize()}: an hour?",
         body=f"Hi {first(other)},\n\nCould we find an hour for the {topic}? I could do {listed}. Which of those "
              "days work for you?")
    d.do("task.wait", for_event=True)
    d.do("mail.search", query=f"from:{other.email}")
    handbook.read(d)
    d.do("calendar.find_time", people=people, duration_minutes=60, start=_at(open_day, 0), end=_at(open_day, 24),
         day_starts=rules.core_start, day_ends=rules.core_end)
    d.do("calendar.create_event", title=topic.capitalize(), start=start, end=start + timedelta(hours=1),
         time_zone=tz, attendees=[other.email])
    d.do("task.wait", for_event=True)
    d.tags += ["co-worker", "scheduling"]


FAMILIES = [
    Family("cw-meeting-by-mail", "agree an hour with a colleague by mail (they are away on days their calendar "
           "shows free), then book the one hour both are free inside the handbook's hours and see it accepted",
           ("mail", "calendar", "docs"), "train", meeting_by_mail),
]

_ = (date_phrases, distinct_firsts, Skip)
