"""Calendars for a generated world: weekly 1:1s and team meetings from the reporting lines, a monthly
all-hands on a shared company calendar, and one-off meetings (some with outsiders) around "now"."""

from __future__ import annotations

import random
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from worlds.model import WorldInfo

AD_HOC = {"s": 15, "m": 60, "l": 150, "xl": 300}
DAYS = ["MO", "TU", "WE", "TH", "FR"]
TOPICS = ["Pipeline review", "Roadmap sync", "Hiring debrief", "Budget check-in", "Customer escalation",
          "Design review", "Quarterly planning", "Vendor call", "Onboarding walkthrough", "Incident retro"]


def zone(info: WorldInfo, name: str | None = None) -> ZoneInfo:
    return ZoneInfo(name or info.timezone)


def calendar_world(rng: random.Random, info: WorldInfo, size: str) -> tuple[dict, dict]:
    """(calendars, events) as record dicts for ``apps.calendar.world``."""
    ceo = next(p for p in info.people if p.manager is None)
    monday = datetime.combine(info.now.date() - timedelta(days=info.now.weekday() + 7), time())
    calendars = {"company": {"name": f"{info.company} company events", "owner": ceo.email,
                             "description": "All-hands and company-wide dates"}}
    events = {"all-hands": {"title": "All-hands", "calendar": "company", "organizer": ceo.email,
                            "start": monday + timedelta(days=3, hours=16), "end": monday + timedelta(days=3, hours=17),
                            "recurrence": "FREQ=MONTHLY;BYDAY=1TH", "location": "Main room and video",
                            "attendees": [p.email for p in info.people]}}
    for manager in info.people:
        reports = [p for p in info.people if p.manager == manager.email]
        if not reports:
            continue
        day = rng.randrange(5)
        events[f"team-{manager.email.split('@')[0]}"] = _weekly(
            monday, day, rng.choice([10, 11]), 60, f"{manager.team} team meeting", manager.email,
            [manager.email] + [p.email for p in reports])
        for report in reports:
            events[f"one-on-one-{report.email.split('@')[0]}"] = _weekly(
                monday, rng.randrange(5), rng.choice([13, 14, 15, 16]), 30,
                f"{manager.name.split()[0]} / {report.name.split()[0]} 1:1", manager.email, [manager.email, report.email])
    for n in range(AD_HOC[size]):
        organizer = rng.choice(info.people)
        guests = rng.sample([p.email for p in info.people if p.email != organizer.email], k=min(3, len(info.people) - 1))
        title = rng.choice(TOPICS)
        if info.outsiders and rng.random() < 0.3:
            outsider = rng.choice(info.outsiders)
            guests, title = [outsider.email] + guests[:1], f"Call with {outsider.organisation}"
        start = datetime.combine(info.now.date() + timedelta(days=rng.randrange(-10, 15)), time(rng.randrange(9, 17)))
        while start.weekday() >= 5:
            start += timedelta(days=1)
        events[f"meeting-{n + 1:04d}"] = {
            "title": title, "organizer": organizer.email, "start": start,
            "end": start + timedelta(minutes=rng.choice([30, 60])), "attendees": [organizer.email, *guests],
            "location": rng.choice(["", "Video call", "Room 2A", "Room 3B"])}
    return calendars, events


def _weekly(monday: datetime, day: int, hour: int, minutes: int, title: str, organizer: str, people: list[str]) -> dict:
    start = monday + timedelta(days=day, hours=hour)
    return {"title": title, "organizer": organizer, "start": start, "end": start + timedelta(minutes=minutes),
            "recurrence": f"FREQ=WEEKLY;BYDAY={DAYS[day]}", "attendees": people}
