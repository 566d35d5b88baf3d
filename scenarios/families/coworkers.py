"""Co-worker families: work that needs another person of the company to answer (``scenarios.people``), so the
agent mails, waits (``task.wait``) and acts on what comes back.

- ``cw-meeting-by-mail``: agree an hour with a colleague who knows their week better than their calendar does;
- ``cw-review-returned``: get a draft reviewed by the manager, apply the changes asked for, pass it on;
- ``cw-chase-silence``: get a figure from a lead who answers only when chased, and fill it in;
- ``cw-discount-signoff``: get a discount signed off by whom the handbook names (above the manager's limit a
  chain: the head, who also wants the manager's word), then reprice and confirm, or offer what was allowed.

Each co-worker is an NPC of the task (``Draft.npc``), answering by rule after a seeded delay.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from scenarios import handbook
from scenarios.draft import Draft
from scenarios.families.calendar import BUSY_TITLES, _cover
from scenarios.families.common import (
    distinct_firsts,
    first,
    money,
    naming,
    new_customer,
    owners_with_manager,
    quarter_end,
    round_to,
    telling_words,
)
from scenarios.families.schedule import _at, _free_days, _pick
from scenarios.family import Family, Skip

TOPICS = ["hiring plan", "pricing review", "onboarding revamp", "vendor shortlist", "budget reforecast",
          "office move", "training calendar", "tooling audit"]
PLACES = ["a customer workshop", "the leadership offsite", "a conference", "training", "jury duty"]


def _asks(words: str) -> str:
    """A co-worker's pattern for a mail that asks: a clause (not one negated: "not could you review") holding one
    of ``words``."""
    return r"(?:^|(?<=\n)|[.?!;]\s+)(?![\s*•-]*not\b)[^.?!;\n]*\b(?:" + words + r")\b"


ASKING = _asks(r"meet|meeting|hour|time|times|slot|when|available|availability|free|day|days|calendar|schedule|sync|chat|call")
REVIEWING = _asks(r"review|reviewed|look|feedback|check|comment|comments|read|thoughts|proof|proofread|eye|eyes|over")


def _about(*words: str) -> dict:
    """A text comparator: any of ``words`` as a whole token."""
    return {"any_of": [{"tokens": [w]} for w in dict.fromkeys(w.lower() for w in words)]}


def _subject(*words: str) -> dict:
    """A subject comparator for a person's own mail: about one of ``words``, not a calendar notice."""
    return {"all_of": [_about(*words), {"not": {"regex": "(?is)(invitation|updated invitation|canceled event|"
                                                "accepted|declined|tentatively accepted): .*"}}]}


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
        "id": "when", "sender": _only(d.actor), "body": ASKING, "delay": {"min_seconds": 1200, "max_seconds": 5400},
        "reply": f"Hi {{sender_name}},\n\nHappy to. I'm at {d.rng.choice(PLACES)} on {_day(away[0])} and "
                 f"{_day(away[1])}, so those are out, but {_day(ok[0])} or {_day(ok[1])} should work - send me an "
                 f"invite for whenever we're both free.\n\n{first(other)}"}],
        invitations={"delay": {"min_seconds": 300, "max_seconds": 1800}})
    start = _at(open_day, slot)
    d.check("booked", records={"from": "calendar.event", "where": {"organizer": "$actor"}, "created": True,
                               "count": 1, "expect": {
                                   "start": {"datetime": start.isoformat(), "granularity": "minute"},
                                   "end": {"datetime": (start + timedelta(hours=1)).isoformat(), "granularity": "minute"},
                                   "attendees": {"set": people}, "status": "confirmed",
                                   "title": _about(*topic.split(), first(other))}})
    d.check("asked", weight=0.5, records={"from": "mail.message", "created": True, "count": {"min": 1}, "where": {
        "owner": other.email, "sender": "$actor", "body": {"regex": f"(?is).*{ASKING}.*"},   # what they answer
        "subject": _subject(*topic.split(), "meet", "meeting", "hour", "time", "catch", "sync", "chat", "call")}})
    d.check("accepted", weight=0.5, records={"from": "calendar.event", "where": {"organizer": "$actor"},
                                             "created": True, "count": 1,
                                             "expect": {"accepted": {"contains": other.email}}})
    d.check("asked_first", role="guard", trajectory={"called": "calendar.create_event",
                                                     "after": {"actor": other.email, "op": "mail.reply"}})
    d.distractors = 2 + (rules.core_start > 7)
    listed = ", ".join(_day(x) for x in days[:-1]) + f" or {_day(days[-1])}"
    d.title = f"Find an hour with {first(other)}"
    d.prompt = (f"I need an hour with {first(other)} about the {topic}, on {listed}. Agree a time with "
                f"{first(other)} - who knows their week better than their calendar does - and get it confirmed on "
                "both our calendars.")
    d.do("mail.send", to=[other.email], subject=f"{topic.capitalize()}: an hour?",
         body=f"Hi {first(other)},\n\nCould we find an hour for the {topic}? I could do "
              f"{', '.join(f'{x:%A}' for x in days[:-1])} or {days[-1]:%A}. Which of those days work for you?")
    d.do("task.wait", for_event=True)
    d.do("mail.search", query=f"from:{other.email}")
    handbook.read(d)
    d.do("calendar.find_time", people=people, duration_minutes=60, start=_at(open_day, 0), end=_at(open_day, 24),
         day_starts=rules.core_start, day_ends=rules.core_end)
    d.do("calendar.create_event", title=topic.capitalize(), start=start, end=start + timedelta(hours=1),
         time_zone=tz, attendees=[other.email])
    d.do("task.wait", for_event=True)
    d.tags += ["co-worker", "scheduling"]


SERVICES = ["a data-platform rollout", "a security assessment", "a training programme", "a reporting overhaul",
            "a migration to the cloud", "a process audit"]
SUPPORT = "We include 24/7 phone support with a one-hour response time."
NEW_SUPPORT = "Support is by email during business hours, with a next-business-day response."
STARTS = ["start", "starting", "starts", "begin", "begins", "beginning", "commence", "commencing", "kick", "from"]


def _changes(d: Draft, fee: int, term: int, start: date) -> dict[str, tuple[str, str, str, dict, dict]]:
    """Per kind of change: (passage quoted, reviewer's comment, the oracle's new passage, the text check when
    asked for, the text check when not asked for: the fact kept)."""
    new_fee = fee + d.rng.choice([2, 3, 4, 6]) * 1000
    new_term = term + 12
    new_start = start + timedelta(days=7 * d.rng.randint(1, 3))
    old_day, new_day = f"{start:%B} {start.day}", f"{new_start:%B} {new_start.day}"
    return {
        "fee": (f"${fee:,}", f"The fee should be ${new_fee:,} - ${fee:,} was last year's rate.", f"${new_fee:,}",
                {"all_of": [{"claim": {"about": ["fee"], "money": new_fee}}, {"not": {"phrase": f"{fee:,}"}}]},
                {"claim": {"about": ["fee"], "money": fee}}),
        "term": (f"for {term} months", f"Make it {new_term} months - they asked for a longer term.",
                 f"for {new_term} months",
                 {"all_of": [{"claim": {"about": ["months"], "number": new_term}},
                             {"not": {"claim": {"about": ["months"], "number": term}}}]},
                 {"claim": {"about": ["months"], "number": term}}),
        "start": (f"starts on {old_day}", f"We can't start before {new_day} - please move the start date.",
                  f"starts on {new_day}",
                  {"all_of": [{"any_of": [{"claim": {"about": [w], "date": new_start.isoformat()}} for w in STARTS]},
                              {"not": {"phrase": old_day}}]},
                  {"phrase": old_day}),
        "support": (SUPPORT, f"We don't offer 24/7 support. Say: {NEW_SUPPORT}", NEW_SUPPORT,
                    {"all_of": [{"not": {"phrase": "24/7"}}, {"phrase": "business hours"}]}, {"phrase": "24/7"}),
    }


def review_returned(d: Draft) -> None:
    """Share my draft with my manager for review, apply exactly the changes they comment (or list, or ask access
    for), and pass the fixed draft to the colleague sending it out, only after the review."""
    view = d.view
    boss = view.manager_of(d.actor)
    if boss is None:
        raise Skip("the acting person has no manager to review their draft")
    peers = [p for p in distinct_firsts(view.colleagues(d.actor)) if p.email != boss.email]
    if not peers:
        raise Skip("no colleague besides the manager to pass the draft to")
    nxt = d.rng.choice(peers)
    customer = d.fresh(lambda: d.fake.company().replace(",", ""))
    fee, term = d.rng.randint(18, 90) * 1000, d.rng.choice([6, 12, 18])
    start = view.today + timedelta(days=d.rng.randint(20, 40))
    cadence = d.rng.choice(["quarterly", "monthly", "in two instalments"])
    name = f"{customer} proposal - draft"
    text = (f"{customer} - proposal (draft)\n\nPrepared by {view.actor.name}, {view.company}.\n\nScope\n"
            f"We will deliver {d.rng.choice(SERVICES)} for {customer}. The engagement runs for {term} months. Work "
            f"starts on {start:%B} {start.day}.\n\nFees\nThe total fee is ${fee:,}, invoiced {cadence}.\n\nSupport\n{SUPPORT}"
            "\n\nNext steps\nOnce you approve, we will send the contract for signature.\n")
    d.setup("docs.create_document", save="draft", name=name, text=text)
    changes = _changes(d, fee, term, start)
    asked = sorted(d.rng.sample(sorted(changes), d.rng.randint(2, 3)))
    d.npc(boss.email, mail=[{
        "id": "review", "sender": _only(d.actor), "body": REVIEWING, "delay": {"min_seconds": 1800, "max_seconds": 7200},
        "review": {"document": name, "changes": [{"quote": changes[k][0], "comment": changes[k][1]} for k in asked],
                   "reply": f"Thanks {{sender_name}} - I've left my comments on {{document}}. Please make those "
                            f"changes before it goes anywhere.\n\n{first(boss)}",
                   "listed": f"Thanks {{sender_name}} - I can only view {{document}}, so here are my changes:\n"
                             f"{{changes}}\nPlease make those before it goes anywhere.\n\n{first(boss)}",
                   "missing": f"Hi {{sender_name}}, I can't open {{document}} - could you share it with me?\n\n"
                              f"{first(boss)}",
                   "done": f"Looks good now, thanks.\n\n{first(boss)}"}}])
    checks = [changes[k][3] if k in asked else changes[k][4] for k in sorted(changes)]
    d.check("revised", records={"from": "docs.item", "where": {"id": "$draft.id"}, "count": 1, "expect": {
        "body": {"all_of": [*checks, {"phrase": customer}, {"tokens": cadence.split()[-1:]}]}}})
    d.check("reviewer_comments", weight=0.5, records={"from": "docs.permission", "where": {
        "item_id": "$draft.id", "person": boss.email}, "created": True, "count": 1, "expect": {"role": "commenter"}})
    which = {"any_of": [{"tokens": ["proposal"]}, naming(customer)]}   # which draft: the world's own mail asks reviews of others
    d.check("asked", weight=0.5, records={"from": "mail.message", "created": True, "count": {"min": 1}, "where": {
        "owner": boss.email, "sender": "$actor", "subject": _subject("review", "proposal", "draft", "feedback",
                                                                  *telling_words(customer)),
        "body": {"all_of": [{"regex": f"(?is).*{REVIEWING}.*"}, which]}}})
    d.check("passed_on", weight=0.5, records={"from": "docs.permission", "where": {
        "item_id": "$draft.id", "person": nxt.email}, "created": True, "count": 1, "expect": {"role": "editor"}})
    d.check("told", weight=0.5, records={"from": "mail.message", "created": True, "count": {"min": 1}, "where": {
        "owner": nxt.email, "sender": "$actor", "subject": _subject("proposal", "draft", "ready", *telling_words(customer)),
        "body": which},
        "expect": {"body": _about("proposal", "draft", "ready", "reviewed", "shared", "changes", "send")}})
    d.check("after_review", role="guard", trajectory={
        "called": "docs.share", "args": {"email": {"email": nxt.email}},
        "after": {"actor": boss.email, "op": "mail.reply",
                  "args": {"body": {"regex": "(?s).*(comments on|here are my changes).*"}}}})
    d.distractors = 4 - len(asked)   # facts the reviewer did not ask to change, which must stay
    d.title = f"Get the {customer} proposal reviewed"
    d.prompt = (f"My {customer} proposal draft needs {first(boss)}'s review before it goes out. Get it reviewed, make "
                f"the changes {first(boss)} asks for, and then pass it to {first(nxt)}, who's sending it to "
                f"{customer} and will need to edit it ({first(boss)} only needs to comment).")
    d.do("docs.search", query=f"{customer} proposal")
    d.do("docs.share", file_id="$draft.id", email=boss.email, role="commenter")
    d.do("mail.send", to=[boss.email], subject=f"Review please: {name}",
         body=f"Hi {first(boss)},\n\nCould you review my {customer} proposal draft? I've shared it with you.")
    d.do("task.wait", for_event=True)
    d.do("mail.search", query=f"from:{boss.email}")
    d.do("docs.list_comments", file_id="$draft.id")
    for k in asked:
        d.do("docs.replace_in_document", file_id="$draft.id", find=changes[k][0], replace_with=changes[k][2])
    d.do("docs.share", file_id="$draft.id", email=nxt.email, role="editor")
    d.do("mail.send", to=[nxt.email], subject=f"{customer} proposal ready",
         body=f"Hi {first(nxt)},\n\n{first(boss)} has reviewed the {customer} proposal and I've made the changes; "
              "it's shared with you, ready to send.")
    d.tags += ["co-worker", "review"]


CHASED = _asks(r"headcount|head count|number|numbers|figure|figures|plan|planned|planning|hires|hiring|people|team|size")


def chase_silence(d: Draft) -> None:
    """A lead's number is missing from my headcount sheet; they ignore the first mail and answer only a reminder
    sent after some time, so the agent must wait and chase before filling the cell."""
    view = d.view
    leads = [p for p in distinct_firsts(view.colleagues(d.actor)) if view.reports(p.email)]
    if len(leads) < 3:
        raise Skip("fewer than three team leads (people with reports) besides the acting person")
    rows = d.rng.sample(leads, min(len(leads), d.rng.randint(3, 6)))
    lead = d.rng.choice(rows)
    year = view.today.year + 1
    sizes = {p.email: (len(view.reports(p.email)) + d.rng.randint(0, 4)) for p in rows}
    planned = {p.email: sizes[p.email] + d.rng.randint(-1, 5) for p in rows}
    while planned[lead.email] in (sizes[lead.email], *[v for k, v in planned.items() if k != lead.email]):
        planned[lead.email] += 1
    name = f"Headcount plan {year}"
    table = [["Lead", "Team today", f"Planned {year}"]] + [
        [p.name, sizes[p.email], "" if p.email == lead.email else planned[p.email]] for p in rows]
    d.setup("docs.create_spreadsheet", save="sheet", name=name, rows=table)
    row = 2 + rows.index(lead)
    wait = d.rng.choice([3600, 5400, 7200])
    d.npc(lead.email, mail=[{
        "id": "number", "sender": _only(d.actor), "body": CHASED, "reminded_after": wait,
        "reminded_since": view.info.now_utc,   # the world's older mail on a team's numbers is no request
        "delay": {"min_seconds": 600, "max_seconds": 2400},
        "reply": f"Sorry {{sender_name}}, this got buried. For {year} we're planning {planned[lead.email]} people "
                 f"(we're {sizes[lead.email]} today).\n\n{first(lead)}"}])
    d.check("filled", records={"from": "docs.cell", "where": {"item_id": "$sheet.id", "row": row, "col": 3},
                               "count": 1, "expect": {"input": {"number": planned[lead.email]}}})
    d.check("answered", weight=0.5, records={"from": "mail.message", "created": True, "count": {"min": 1}, "where": {
        "owner": "$actor", "sender": lead.email, "body": {"phrase": f"planning {planned[lead.email]} people"}}})
    # the chase worked: the figure came from them (their reply's words; their older mail to me gives no figure)
    d.check("rest_kept", role="guard", records={"from": "docs.cell", "where": {
        "item_id": "$sheet.id", "row": {"not": row}}, "unchanged": True})
    d.check("asked", weight=0.5, records={"from": "mail.message", "created": True, "count": {"min": 2}, "where": {
        "owner": lead.email, "sender": "$actor", "body": {"regex": f"(?is).*{CHASED}.*"},
        "subject": _subject("headcount", "number", "numbers", "plan", "planned", "hiring", "team", "figure")}})
    d.check("not_pestered", role="penalty", weight=0.5, records={
        "from": "mail.message", "created": True, "count": {"max": 4}, "where": {"owner": lead.email, "sender": "$actor"}})
    d.distractors = len(rows) - 1
    d.title = f"Get {first(lead)}'s headcount number"
    d.prompt = (f"The {name} sheet is still missing {first(lead)}'s planned number. Get it from {first(lead)} and fill "
                f"it in. {first(lead)} is hopeless with email, so don't take silence for an answer.")
    d.do("docs.search", query=name)
    d.do("docs.read_file", file_id="$sheet.id")
    subject = "Your headcount number for next year"   # no figures: what it asks is in words
    d.do("mail.send", to=[lead.email], subject=subject,
         body=f"Hi {first(lead)},\n\nThe headcount plan still needs your team's planned number for next year. "
              "What's your number?")
    d.do("task.wait", seconds=wait)   # silence: nothing comes however long one waits for it, so give them a while
    d.do("mail.send", to=[lead.email], subject=f"Re: {subject}",
         body=f"Hi {first(lead)}, just chasing: what's your planned headcount for next year? I need the number for "
              "the sheet.")
    d.do("task.wait", for_event=True)
    d.do("mail.search", query=f"from:{lead.email}")
    d.do("docs.update_cells", file_id="$sheet.id", cells={f"C{row}": planned[lead.email]})
    d.tags += ["co-worker", "time", "follow-up"]


_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
         "seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _spelled(n: int) -> str:
    """0-99 in words, as a customer writes a rate ("twelve"): a reply's quoted original then never holds the
    figure the agent must write itself."""
    return _ONES[n] if n < 20 else _TENS[n // 10] + ("" if n % 10 == 0 else f"-{_ONES[n % 10]}")


def _own_rate(n: int, stated: bool = True) -> dict:
    """A reply body whose own lines (not the quoted original's '> ' lines) give the rate ``n``%; ``stated``: in a
    clause that does not start by negating it ("not 12% off is approved")."""
    clause = r"(?:[^\n]*?[.;:!?,]\s*)?(?:(?!\bnot\b)[^.;:!?,\n])*?" if stated else r"[^\n]*?"
    return {"regex": rf"(?si)(?:.*\n)?(?!>){clause}(?<![\d.]){n}\s*%.*"}


def _approver(d: Draft, who, pct: int, org: str, ceiling: int, condition: str = "") -> None:
    """``who`` answers a mail naming the asked discount (in figures or words): approves it when it is at most
    ``ceiling``, else offers ``ceiling``."""
    text = (f"Approved: {pct}% for {org} is fine by me{condition}." if pct <= ceiling else
            f"Not approved: {pct}% is more than I'll sign for {org}; offer them {ceiling}% at most.")
    d.npc(who.email, mail=[{
        "id": "discount", "sender": _only(d.actor), "delay": {"min_seconds": 900, "max_seconds": 5400},
        "body": rf"\b(?:{pct}|{_spelled(pct)})\s*(?:%|percent|per cent)", "reply": f"{text}\n\n{first(who)}"}])


def discount_signoff(d: Draft) -> None:
    """A customer's discount needs sign-off by the handbook (the manager, or above their limit the head, who also
    wants the manager's word): ask, wait for every answer, then reprice and confirm, or offer what was allowed."""
    view = d.view
    rules = handbook.policies(view)
    owner = d.rng.choice(owners_with_manager(d))
    d.actor = owner.email
    manager, boss = view.person(owner.manager or ""), handbook.head(view)
    chain = d.number % 2 == 1 and boss.email not in (manager.email, owner.email)
    low, high = (rules.manager_discount + 1, rules.manager_discount + 8) if chain else \
        (rules.rep_discount + 1, rules.manager_discount)
    pct = d.rng.randint(low, high)
    approved = pct == low or d.rng.random() < 0.6
    ceiling = pct if approved else d.rng.randint(low - 1 if chain else low, pct - 1)
    handbook.place(d)
    acct = new_customer(d, owner.email)
    amount = round_to(d.rng.randint(30, 300) * 1000, 1000)
    d.setup("crm.create_opportunity", by=owner.email, save="deal", account_id=f"{acct.ref}.id",
            name=f"{acct.name} - platform", amount=amount, close_date=quarter_end(view.today), stage="Negotiation",
            owner=owner.email)
    subject = f"{acct.name} order - pricing"
    d.setup("mail.send", by=acct.email, to=[owner.email], subject=subject,
            body=f"Hi {first(owner)},\n\nWe are ready to sign this quarter if you can do {_spelled(pct)} percent off the "
                 f"{money(amount)} you quoted. Can you confirm?\n\nThanks,\n{acct.contact}")
    d.bind("ask", "mail.message", owner="$actor", subject=subject)
    deciders = [boss, manager] if chain else [manager]
    if chain:
        _approver(d, boss, pct, acct.name, ceiling, f", as long as {first(manager)} agrees")
        _approver(d, manager, pct, acct.name, pct)
    else:
        _approver(d, manager, pct, acct.name, ceiling)
    needed = deciders if approved else deciders[:1]
    for n, who in enumerate(needed):
        d.check(f"asked_{n}", weight=0.5, records={
            "from": "mail.message", "created": True, "count": {"min": 1}, "where": {
                "owner": who.email, "sender": "$actor",
                "subject": _subject("discount", "approval", "approve", "sign", "pricing", *telling_words(acct.name))},
            "expect": {"body": {"all_of": [{"any_of": [{"phrase": f"{pct}%"}, {"phrase": f"{_spelled(pct)} percent"}]},
                                           naming(acct.name)]}}})   # whose discount: not another's
    for n, who in enumerate(needed):
        d.check(f"answered_first_{n}", role="guard", trajectory={
            "called": "mail.reply", "args": {"message_id": "$ask.id"},
            "after": {"actor": who.email, "op": "mail.reply"}})
    new = round(amount * (100 - pct) / 100, 2)
    told: dict
    if approved:
        d.check("repriced", records={"from": "crm.opportunity", "where": {"id": "$deal.id"}, "count": 1,
                                     "expect": {"amount": {"money": new}}})
        told = _own_rate(pct)
    else:
        d.check("price_kept", role="guard", records={"from": "crm.opportunity", "where": {"id": "$deal.id"},
                                                     "count": 1, "unchanged": True})
        told = {"all_of": [_own_rate(ceiling), _own_rate(pct, stated=False)]}   # offered; what was asked, any light
    d.check("told_customer", records={"from": "mail.outbound", "where": {"recipient": acct.email}, "created": True,
                                      "count": {"min": 1}, "expect": {"body": told}})
    d.distractors = 1 + chain
    d.title = f"Get {acct.name}'s discount signed off"
    d.prompt = (f"{acct.contact} at {acct.name} wants a discount to sign. Get it signed off the way company policy "
                f"says, then give {acct.contact.split()[0]} our answer.")
    handbook.read(d)
    d.do("mail.get_message", message_id="$ask.id")
    for who in needed:   # a refusal from the head ends it: the manager's word is moot
        d.do("mail.send", to=[who.email], subject=f"Approval needed: discount for {acct.name}",
             body=f"Hi {first(who)},\n\n{acct.name} asks for {pct}% off the {money(amount)} platform deal to sign "
                  "this quarter. Can you approve?")
    for who in needed:
        d.do("task.wait", for_event=True)
    d.do("mail.search", query="discount")
    if approved:
        d.do("crm.update_opportunity", opportunity_id="$deal.id", amount=new)
        d.do("mail.reply", message_id="$ask.id", body=f"Good news: {pct}% off is approved, {money(new)} in total. "
                                                      "The contract follows.")
    else:
        d.do("mail.reply", message_id="$ask.id", body=f"We can't go to {pct}%, I'm afraid; the best we can offer "
                                                      f"is {ceiling}% off.")
    d.tags += ["co-worker", "approval"]


FAMILIES = [
    Family("cw-meeting-by-mail", "agree an hour with a colleague by mail (they are away on days their calendar "
           "shows free), then book the one hour both are free inside the handbook's hours and see it accepted",
           ("mail", "calendar", "docs"), "train", meeting_by_mail),
    Family("cw-review-returned", "get a draft reviewed by the manager by mail (shared so they can comment), apply "
           "exactly the changes asked for, and pass it on only after the review", ("mail", "docs"), "test",
           review_returned),
    Family("cw-chase-silence", "get a missing figure from a lead who answers only when chased after a while: ask, "
           "wait, follow up, and fill it into the sheet", ("mail", "docs"), "validation", chase_silence),
    Family("cw-discount-signoff", "get a customer's discount signed off by whom the handbook names (above the "
           "manager's limit the head, who also wants the manager's word), wait for every answer, then reprice and "
           "confirm or offer what was allowed", ("mail", "crm", "docs"), "train", discount_signoff),
]

