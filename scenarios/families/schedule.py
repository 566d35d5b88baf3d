"""Schedule (calendar) families: clashes, series changed from a date on, invitations answered by rules, the next
common free hour, a cancellation with its reason, and the time a mail thread finally agreed on."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from scenarios import handbook
from scenarios.draft import Draft
from scenarios.families.calendar import BUSY_TITLES, _cover, _unique_first_names
from scenarios.families.common import naming, new_customer
from scenarios.family import Family, Skip
from worlds.model import Person


def _free_days(d: Draft, people: list[str], count: int, span: int = 15, hours: tuple[int, int] = (7, 19)) -> list[date]:
    """``count`` weekdays (in order) among the next ``span`` on which none of ``people`` has anything booked between
    ``hours`` (and no series that day)."""
    view = d.view
    days = [day for day in view.workdays(view.today + timedelta(days=1), span)
            if all(view.free(p, _at(day, hours[0]), _at(day, hours[1])) for p in people)]
    if len(days) < count:
        raise Skip(f"fewer than {count} weekdays in the next {span} on which the chosen people are all free")
    return sorted(d.rng.sample(days, count))


def _pick(d: Draft, count: int, of: str | None = None) -> list[Person]:
    found = _unique_first_names(d.view.colleagues(of or d.actor))
    if len(found) < count:
        raise Skip(f"fewer than {count} colleagues with distinct first names")
    return d.rng.sample(found, count)


def _at(day: date, hour: float) -> datetime:
    return datetime.combine(day, time()) + timedelta(minutes=int(hour * 60))


def _utc_key(d: Draft, moment: datetime) -> str:
    return moment.replace(tzinfo=d.view.zone).astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def double_booking(d: Draft) -> None:
    """Two of my meetings clash: the customer one stays, the internal one moves to the one hour that day when
    its people are all free inside the handbook's meeting hours."""
    view = d.view
    rules = handbook.policies(view)
    handbook.place(d)
    team = _pick(d, 2)
    internal = [d.actor] + [p.email for p in team]
    day = _free_days(d, internal, 1)[0]
    hours = list(range(rules.core_start, rules.core_end))
    clash, slot = d.rng.sample(hours, 2)
    tz = view.info.timezone
    for n, (person, start, end) in enumerate(_cover(d, day, internal, rules.core_start, rules.core_end, slot)):
        if person == d.actor and start < _at(day, clash + 1) and end > _at(day, clash):
            person = d.rng.choice(internal[1:])   # the actor's own clash is the only one at that hour
        d.setup("calendar.create_event", by=person, title=BUSY_TITLES[(n + d.number) % len(BUSY_TITLES)],
                start=start, end=end, time_zone=tz)
    acct = new_customer(d, d.actor)
    d.setup("calendar.create_event", save="customer", title=f"{acct.name} quarterly review", start=_at(day, clash),
            end=_at(day, clash + 1), time_zone=tz, attendees=[acct.email])
    topic = d.rng.choice(["Roadmap sync", "Hiring plan", "Budget check-in", "Process review"])
    d.setup("calendar.create_event", save="internal", title=topic, start=_at(day, clash), end=_at(day, clash + 1),
            time_zone=tz, attendees=[p.email for p in team])
    d.check("moved", records={"from": "calendar.event", "where": {"id": "$internal.id"}, "count": 1, "expect": {
        "start": {"datetime": _at(day, slot).isoformat()}, "end": {"datetime": _at(day, slot + 1).isoformat()},
        "attendees": {"set": internal}, "status": "confirmed"}})
    d.check("customer_kept", role="guard", records={"from": "calendar.event", "where": {"id": "$customer.id"},
                                                    "count": 1, "unchanged": True})
    d.distractors = 1 + (rules.core_start > 8 or rules.core_end < 18)
    d.title = f"Fix the clash on {day:%A}"
    d.prompt = (f"I'm double-booked on {day:%A} {day:%B} {day.day} at {_at(day, clash):%H:%M}. The customer comes "
                "first; move the other meeting to the time that day that works for everyone in it, within our "
                "meeting hours.")
    d.do("calendar.list_events", start=_at(day, 0), end=_at(day, 24))
    handbook.read(d)
    d.do("calendar.find_time", people=internal, duration_minutes=60, start=_at(day, 0), end=_at(day, 24),
         day_starts=rules.core_start, day_ends=rules.core_end)
    d.do("calendar.move_event", event_id="$internal.id", start=_at(day, slot))
    d.tags.append("scheduling")


def series_from_date(d: Draft) -> None:
    """A weekly meeting changes time from a given week on (after an earlier proposal is withdrawn): the series is
    split there, earlier weeks untouched."""
    view = d.view
    team = _pick(d, d.rng.randint(2, 4))
    weekday = d.rng.randint(0, 4)
    if any(weekday in view.series_days.get(p, set()) for p in [d.actor] + [p.email for p in team]):
        weekday = (weekday + 1) % 5
    first = view.today - timedelta(days=(view.today.weekday() - weekday) % 7 + 7 * d.rng.randint(2, 5))
    old, new, proposed = d.rng.sample([9, 10, 11, 14, 15, 16], 3)
    title = d.rng.choice(["Team sync", "Weekly planning", "Pipeline review", "Ops stand-up"])
    tz = view.info.timezone
    d.setup("calendar.create_event", save="series", title=title, start=_at(first, old), end=_at(first, old + 0.5),
            time_zone=tz, recurrence=f"FREQ=WEEKLY;BYDAY={['MO', 'TU', 'WE', 'TH', 'FR'][weekday]}",
            attendees=[p.email for p in team])
    upcoming = [view.today + timedelta(days=k) for k in range(1, 29)
                if (view.today + timedelta(days=k)).weekday() == weekday]
    change = upcoming[d.rng.randint(1, 2)]
    boss = team[0]
    d.setup("mail.send", by=boss.email, to=[d.actor], subject=f"{title} time",
            body=f"Hi,\n\nCould we move the {title.lower()} to {proposed}:00? Let me know.\n\n{boss.name.split()[0]}")
    later = f"{title} - new time"
    d.setup("mail.send", by=boss.email, to=[d.actor], subject=later,
            body=f"Hi,\n\nForget {proposed}:00, that clashes for half the team. Let's hold the {title.lower()} at "
                 f"{new}:00 instead, starting {change:%A %B} {change.day} - the meetings before that stay as they "
                 f"are.\n\nThanks,\n{boss.name.split()[0]}")
    d.bind("ask", "mail.message", owner="$actor", subject=later)
    people = [d.actor] + [p.email for p in team]
    d.check("new_series", records={
        "from": "calendar.event", "where": {"organizer": "$actor", "title": {"tokens": title.split()[-1:]}},
        "created": True, "count": 1, "expect": {"start": {"datetime": _at(change, new).isoformat()},
                                                "end": {"datetime": _at(change, new + 0.5).isoformat()},
                                                "recurrence": {"regex": ".*FREQ=WEEKLY.*"}, "attendees": {"set": people},
                                                "status": "confirmed"}})
    d.check("old_series_cut", records={"from": "calendar.event", "where": {"id": "$series.id"}, "count": 1, "expect": {
        "start": {"datetime": _at(first, old).isoformat()}, "recurrence": {"regex": ".*UNTIL.*"},
        "status": "confirmed"}})
    d.distractors = 2
    d.title = f"Move the {title.lower()} from {change:%B} {change.day}"
    d.prompt = f"Please make the change {boss.name.split()[0]} asked for to our {title.lower()}."
    d.do("mail.search", query=title)
    d.do("mail.get_message", message_id="$ask.id")
    d.do("calendar.search_events", query=title)
    d.do("calendar.move_event", event_id=f"${{series.id}}_{_utc_key(d, _at(change, old))}", start=_at(change, new),
         scope="following")
    d.tags.append("scheduling")


def answer_invitations(d: Draft) -> None:
    """Answer every pending invitation by my rules doc: accept when free, decline with a word when it clashes with
    a customer meeting, tentative when only with an internal one; a cancelled meeting leaves me free."""
    view = d.view
    me = d.actor
    people = _pick(d, 4)
    days = _free_days(d, [me], 3)
    tz = view.info.timezone
    rules = "How I handle invitations"
    d.setup("docs.create_document", save="rules", name=rules,
            text=f"{rules}\n\n- If I am free at that time, accept.\n- If it clashes with a meeting with a customer "
                 "(anyone from outside the company), decline, and say in the comment that I have a customer meeting "
                 "then.\n- If it clashes only with an internal meeting, answer tentative.\n- Cancelled meetings don't "
                 "count.\n")
    acct = new_customer(d, me)
    count = d.rng.randint(11, 14)
    slots = d.rng.sample([(day, hour) for day in days for hour in (9, 10.5, 13, 14.5, 16)], count)
    kinds = [["free", "customer", "internal", "cancelled"][n % 4] for n in range(count)]
    d.rng.shuffle(kinds)
    d.do("docs.search", query="invitations")
    d.do("docs.read_file", file_id="$rules.id")
    d.do("calendar.list_events", start=_at(days[0], 0), end=_at(days[-1], 24))
    for n, ((day, hour), kind) in enumerate(zip(slots, kinds)):
        start = _at(day, hour)
        if kind in ("customer", "cancelled"):
            d.setup("calendar.create_event", save=f"mine{n}", title=f"{acct.name} call", start=start - timedelta(
                minutes=30), end=start + timedelta(minutes=30), time_zone=tz, attendees=[acct.email])
            if kind == "cancelled":
                d.setup("calendar.cancel_event", event_id=f"$mine{n}.id", send_updates=False)
        elif kind == "internal":
            d.setup("calendar.create_event", title=d.rng.choice(["1:1", "Planning", "Team sync"]),
                    start=start + timedelta(minutes=30), end=start + timedelta(minutes=90), time_zone=tz,
                    attendees=[d.rng.choice(people).email])
        host = people[n % len(people)]
        d.setup("calendar.create_event", by=host.email, save=f"inv{n}", title=f"{d.fake.bs().capitalize()}",
                start=start, end=start + timedelta(hours=1), time_zone=tz, attendees=[me])
        answer = {"free": "accepted", "cancelled": "accepted", "customer": "declined", "internal": "tentative"}[kind]
        expect: dict = {"response": answer}
        if kind == "customer":
            expect["comment"] = {"any_of": [{"tokens": ["customer"]}, {"tokens": ["client"]}, {"phrase": acct.name}]}
        d.check(f"answer_{n}", records={"from": "calendar.attendee", "where": {"event_id": f"$inv{n}.id",
                                                                              "email": me}, "count": 1,
                                        "expect": expect})
        d.do("calendar.respond", event_id=f"$inv{n}.id", response=answer,
             comment="Sorry - I have a customer meeting then." if kind == "customer" else None)
    host = d.rng.choice(people)
    d.setup("calendar.create_event", by=host.email, save="answered", title="All-hands", start=_at(days[0], 17),
            end=_at(days[0], 18), time_zone=tz, attendees=[me])
    d.setup("calendar.respond", event_id="$answered.id", response="declined", comment="Travelling")
    d.check("answered_kept", role="guard", records={"from": "calendar.attendee", "where": {
        "event_id": "$answered.id", "email": me}, "count": 1, "expect": {"response": "declined"}})
    d.distractors = kinds.count("cancelled") + 1
    d.title = "Answer my pending invitations"
    d.prompt = "Go through the meeting invitations I haven't answered and answer them the way my rules doc says."
    d.tags.append("scheduling")


def next_free_hour(d: Draft) -> None:
    """The earliest hour on two named days when three people are all free inside the handbook's hours."""
    view = d.view
    rules = handbook.policies(view)
    handbook.place(d)
    team = _pick(d, 2)
    people = [d.actor] + [p.email for p in team]
    days = _free_days(d, people, 2)
    slot = d.rng.randint(rules.core_start, rules.core_end - 1)
    blocks = _cover(d, days[1], people, rules.core_start, rules.core_end, slot)
    blocks += [b for b in _cover(d, days[0], people, rules.core_start, rules.core_end, rules.core_start)]
    blocks.append((d.rng.choice(people), _at(days[0], rules.core_start), _at(days[0], rules.core_start + 1)))
    tz = view.info.timezone
    for n, (person, start, end) in enumerate(blocks):
        d.setup("calendar.create_event", by=person, title=BUSY_TITLES[(n + d.number) % len(BUSY_TITLES)],
                start=start, end=end, time_zone=tz)
    d.distractors = 2
    names = " and ".join(p.name.split()[0] for p in team)
    d.title = "When are we next free together?"
    d.prompt = (f"{names} and I need an hour together on {days[0]:%A} or {days[1]:%A} ({days[0]:%B} {days[0].day} or "
                f"{days[1]:%B} {days[1].day}), inside our meeting hours. When's the earliest we can do it? Just tell "
                "me the start as YYYY-MM-DD HH:MM with its UTC offset (e.g. 2026-01-05 09:30-05:00); don't book anything.")
    d.answer("datetime", _at(days[1], slot).isoformat())
    d.check("nothing_booked", role="guard", records={"from": "calendar.event", "where": {}, "created": True,
                                                     "count": 0})
    handbook.read(d)
    d.do("calendar.find_time", people=people, duration_minutes=60, start=_at(days[0], 0), end=_at(days[1], 24),
         day_starts=rules.core_start, day_ends=rules.core_end)
    d.do("task.submit_answer", answer=_at(days[1], slot).replace(tzinfo=view.zone).isoformat(" ", "minutes"))
    d.tags.append("scheduling")


def cancel_with_reason(d: Draft) -> None:
    """A vendor pulls out: cancel the right one of two look-alike meetings and tell the attendees why."""
    view = d.view
    team = _pick(d, d.rng.randint(2, 3))
    days = sorted(d.rng.sample(view.workdays(view.today + timedelta(days=1), 10), 2))   # times are the vendor's
    vendor = d.fresh(lambda: d.fake.company().replace(",", ""))
    contact = f"{d.fake.first_name().lower()}@{''.join(c for c in vendor.lower() if c.isalnum())[:20]}.com"
    reason, words = d.rng.choice([("our security review of your questionnaire isn't finished", ["security"]),
                                  ("our lead engineer is out sick this week", ["sick", "ill", "unwell"]),
                                  ("our legal team hasn't signed off the NDA yet", ["nda", "legal"]),
                                  ("the demo environment is down for maintenance", ["demo", "maintenance"])])
    tz = view.info.timezone
    hour = d.rng.choice([10, 11, 14, 15])
    title = f"{vendor} evaluation"
    attendees = [p.email for p in team] + [contact]
    d.setup("calendar.create_event", save="doomed", title=title, start=_at(days[0], hour), end=_at(days[0], hour + 1),
            time_zone=tz, attendees=attendees)
    d.setup("calendar.create_event", save="other", title=f"{title} - follow-up", start=_at(days[1], hour),
            end=_at(days[1], hour + 1), time_zone=tz, attendees=attendees)
    subject = f"{days[0]:%A}'s session"
    d.setup("mail.send", by=contact, to=[d.actor], subject=subject,
            body=f"Hello,\n\nI'm sorry, we have to pull out of {days[0]:%A}'s session: {reason}. We still hope "
                 f"to keep the follow-up.\n\nRegards,\n{vendor}")
    d.bind("note", "mail.message", owner="$actor", subject=subject)
    d.check("cancelled", records={"from": "calendar.event", "where": {"id": "$doomed.id"}, "count": 1,
                                  "expect": {"status": "cancelled"}})
    d.check("follow_up_kept", role="guard", records={"from": "calendar.event", "where": {"id": "$other.id"},
                                                     "count": 1, "unchanged": True})
    for n, p in enumerate(team):
        d.check(f"told_{n}", records={"from": "mail.message", "where": {
            "owner": p.email, "sender": "$actor", "body": {"all_of": [   # why, and whose session (a cancel notice
                {"any_of": [{"tokens": [w]} for w in words]}, naming(vendor)]}},   # names it in its title)
            "created": True, "count": {"min": 1}})
    d.distractors = 1
    d.title = f"Call off the {vendor} session"
    d.prompt = f"{vendor} can't make {days[0]:%A}. Cancel it and make sure everyone knows why."
    d.do("mail.search", query=vendor)
    d.do("mail.get_message", message_id="$note.id")
    d.do("calendar.search_events", query=vendor)
    d.do("calendar.cancel_event", event_id="$doomed.id",
         message=f"{vendor} had to pull out: {reason}. The follow-up stays as planned.")
    d.tags.append("scheduling")


def agreed_in_thread(d: Draft) -> None:
    """A customer and colleagues trade proposals by mail; book the last time everyone agreed, with those who
    agreed (one drops out)."""
    view = d.view
    team = _pick(d, 2)
    days = sorted(d.rng.sample(view.workdays(view.today + timedelta(days=1), 10), 3))   # the thread decides
    acct = new_customer(d, d.actor)
    a, b = team
    first, second, third = [(day, d.rng.choice([9, 10, 11, 14, 15, 16])) for day in days]
    subject = f"{acct.name} workshop"
    everyone = [d.actor, a.email, b.email, acct.email]

    def say(by: str, text: str) -> None:
        opening = not d._setup or d._setup[-1]["op"] != "mail.send"
        d.setup("mail.send", by=by, to=[x for x in everyone if x != by], subject=subject if opening else
                f"Re: {subject}", body=text)

    def when(slot: tuple[date, int]) -> str:
        return f"{slot[0]:%A} {slot[0]:%B} {slot[0].day} at {slot[1]}:00"

    drop = d.rng.random() < 0.5
    say(acct.email, f"Hello all,\n\nFor the workshop (an hour), could we do {when(first)} or {when(second)}?\n\n"
                    f"{acct.contact}")
    say(a.email, f"{when(first)} doesn't work for me, {when(second)} does.\n\n{a.name.split()[0]}")
    say(b.email, f"I can't do {when(second)}. Could we try {when(third)}?\n\n{b.name.split()[0]}")
    say(acct.email, f"{when(third)} works for us. {a.name.split()[0]}?\n\n{acct.contact}")
    if drop:
        say(a.email, f"I'm out that day - go ahead without me, I'll catch up with {b.name.split()[0]}.\n\n"
                     f"{a.name.split()[0]}")
    else:
        say(a.email, f"{when(third)} is fine for me too.\n\n{a.name.split()[0]}")
    guests = [x for x in everyone if not (drop and x == a.email)]
    start = _at(third[0], third[1])
    d.check("booked", records={"from": "calendar.event", "where": {"organizer": "$actor"}, "created": True,
                               "count": 1, "expect": {"start": {"datetime": start.isoformat()},
                                                      "end": {"datetime": (start + timedelta(hours=1)).isoformat()},
                                                      "attendees": {"set": guests}, "status": "confirmed",
                                                      "title": {"any_of": [{"phrase": acct.name},
                                                                           {"tokens": ["workshop"]}]}}})
    d.distractors = 2
    d.title = f"Book the {acct.name} workshop"
    d.prompt = f"The {acct.name} workshop thread has settled, I think. Put it in the calendar."
    d.do("mail.search", query=subject)
    d.do("calendar.create_event", title=subject, start=start, end=start + timedelta(hours=1),
         time_zone=view.info.timezone, attendees=[x for x in guests if x != d.actor])
    d.tags.append("scheduling")


FAMILIES = [
    Family("sched-double-booking", "keep the customer meeting of a clash and move the internal one to the only hour "
           "its people share inside the handbook's hours", ("calendar", "docs"), "train", double_booking),
    Family("sched-series-from-date", "change a weekly meeting's time from a given week on (scope following) after an "
           "earlier proposal is withdrawn", ("mail", "calendar"), "train", series_from_date),
    Family("sched-answer-invitations", "answer 11-14 pending invitations by a rules doc: accept, decline with a reason, "
           "or tentative, reading clashes (some cancelled)", ("docs", "calendar"), "train", answer_invitations),
    Family("sched-next-free-hour", "say when three people are next free together for an hour on two named days "
           "inside the handbook's hours, booking nothing", ("calendar", "docs"), "validation", next_free_hour),
    Family("sched-cancel-with-reason", "cancel the right one of two look-alike meetings a vendor pulled out of and "
           "tell the attendees why", ("mail", "calendar"), "test", cancel_with_reason),
    Family("sched-agreed-in-thread", "book the time a mail thread of proposals finally agreed, with exactly the people "
           "who agreed", ("mail", "calendar"), "validation", agreed_in_thread),
]
