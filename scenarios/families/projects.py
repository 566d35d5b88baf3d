"""Project families: long work across apps - a quarter-close pack, a renewal decision per account, a due-diligence
checklist over a data room, onboarding a hire, a customer escalation and a board pack under the handbook."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from scenarios import handbook
from scenarios.draft import Draft
from scenarios.families.common import money, new_customer, owners_with_manager, quarter_end, quarter_name, round_to, slug
from scenarios.family import Family, Skip
from worlds.model import Person


def _finance_head(d: Draft) -> Person:
    for words in (("Chief", "Financial"), ("Finance",), ("Controller",), ("Billing",)):
        found = [p for p in d.view.titled(*words) if p.email != d.actor]
        if found:
            return found[0]
    raise Skip("no head of finance in this world")


def _money_phrases(amount: float) -> dict:
    whole = f"{amount:,.2f}".removesuffix(".00")
    return {"any_of": [{"phrase": whole}, {"phrase": whole.replace(",", "")}, {"phrase": f"{amount:,.2f}"}]}


def _shown(amount: float) -> dict:
    """A spreadsheet's text (the values it shows, as CSV: typed, or worked out by a formula) holding ``amount``:
    a number shows plainly ("25000", "54000.5"); one typed as text may keep its commas."""
    plain, grouped = f"{amount:.2f}", f"{amount:,.2f}"
    words = [plain.rstrip("0").rstrip("."), grouped.rstrip("0").rstrip("."), plain, grouped]
    return {"any_of": [{"tokens": [w]} for w in dict.fromkeys(words)]}


def _at(day: date, hour: float) -> datetime:
    return datetime.combine(day, time()) + timedelta(minutes=int(hour * 60))


def _deals(d: Draft, start: date, quarter: str) -> list[float]:
    """Seed 3-6 deals (won this quarter, won last quarter, lost this one) and give the amounts won this quarter,
    the world's own among them. Deals are added until two are won with an amount: with one, the sheet's total
    is that deal's own amount, and a sheet without the total could not be told from the pack."""
    view, today = d.view, d.view.today
    won = [x.amount or 0 for x in view.deals if x.stage == "Closed Won" and x.close_date is not None
           and start <= x.close_date <= today]
    owners = view.crm_users() or [view.actor]
    count, n = d.rng.randint(3, 6), 0
    while n < count or len([a for a in won if a]) < 2:
        owner = d.rng.choice(owners).email
        acct = d.fresh(lambda: d.fake.company().replace(",", ""))
        d.setup("crm.create_account", by=owner, save=f"a{n}", name=acct, type="Customer", owner=owner)
        kind = d.rng.choice(["won", "won", "won", "last", "lost"]) if n < count else "won"
        amount = round_to(d.rng.randint(12, 240) * 1000, 500)
        close = start - timedelta(days=d.rng.randint(1, 40)) if kind == "last" else \
            start + timedelta(days=d.rng.randint(0, max(0, (today - start).days)))
        d.setup("crm.create_opportunity", by=owner, account_id=f"$a{n}.id", name=f"{acct} - {quarter} order",
                amount=amount, close_date=close, stage="Closed Lost" if kind == "lost" else "Closed Won",
                loss_reason="Price" if kind == "lost" else None, owner=owner)
        if kind == "won":
            won.append(amount)
        n += 1
    return won


def quarter_close(d: Draft) -> None:
    """The quarter-close pack: every deal won this quarter in a sheet, a memo with the total, the total to the
    head of finance, and a review meeting with them - past deals won last quarter and lost this one."""
    view = d.view
    cfo = _finance_head(d)
    today = view.today
    start = date(today.year, (today.month - 1) // 3 * 3 + 1, 1)
    quarter = quarter_name(today)
    won = _deals(d, start, quarter)
    total = round(sum(won), 2)
    options = [(day, h / 2) for day in view.workdays(today, 6)[1:] for h in range(18, 34)
               if all(view.free(p, _at(day, h / 2), _at(day, h / 2 + 0.5)) for p in (d.actor, cfo.email))]
    if not options:
        raise Skip("no free half hour for the review in the next week")
    day = d.rng.choice(sorted({o[0] for o in options}))
    slot = next(h for x, h in options if x == day)
    # The pack's sheet is a new spreadsheet showing the total (a cell of that value anywhere is no pack: the
    # world's own forecasts hold many of these deals' amounts): each deal's amount is in it too.
    pack = {"kind": "spreadsheet", "body": _shown(total)}
    for n, figure in enumerate(sorted(set(won))):
        d.check(f"sheet_{n}", records={"from": "docs.item", "where": {"kind": "spreadsheet", "body": {"all_of": [
            _shown(total), _shown(figure)]}}, "created": True, "count": {"min": 1}})
    ordinal = ["first", "second", "third", "fourth"][int(quarter[1]) - 1]
    about = {"any_of": [{"tokens": [quarter.split()[0]]}, {"phrase": f"{ordinal} quarter"}]}   # the right quarter
    d.check("review_booked", records={"from": "calendar.event", "where": {"organizer": "$actor"}, "created": True,
                                      "count": 1, "expect": {"attendees": {"contains": [cfo.email]},
                                                             "start": {"datetime": _at(day, slot).isoformat()},
                                                             "end": {"datetime": _at(day, slot + 0.5).isoformat()},
                                                             "status": "confirmed", "title": about}})
    d.check("memo", records={"from": "docs.item", "where": {"kind": "document", "owner": "$actor",
                                                           "body": _money_phrases(total)},
                             "created": True, "count": {"min": 1}, "expect": {"body": about}})
    d.check("finance_told", records={"from": "mail.message", "where": {"owner": cfo.email, "sender": "$actor",
                                                                       "body": _money_phrases(total)},
                                     "created": True, "count": {"min": 1}, "expect": {"body": about}})
    d.check("named", weight=0.5, records={"from": "docs.item", "where": {"owner": "$actor"}, "created": True,
                                          "count": {"min": 2}, "expect": {"name": about}})
    d.check("mail_subject", weight=0.5, records={"from": "mail.message", "where": {
        "owner": cfo.email, "sender": "$actor", "body": _money_phrases(total)}, "created": True, "count": {"min": 1},
        "expect": {"subject": about}})
    d.setup("mail.send", by=cfo.email, to=[d.actor], subject=f"{quarter} close review",
            body=f"Hi,\n\nFor the {quarter} close review I can do {day:%A %B} {day.day} at {_at(day, slot):%H:%M} for "
                 f"half an hour. Send the pack before then.\n\n{cfo.name.split()[0]}")
    d.check("sheet_total", records={"from": "docs.item", "where": pack, "created": True, "count": {"min": 1}})
    d.distractors = 2
    d.title = f"{quarter} close pack"
    d.prompt = (f"Put together the {quarter} close pack: a sheet of every deal we've won this quarter with the total, "
                f"a short memo doc with the headline number, send the total to {cfo.name.split()[0]}, and get the "
                f"review with {cfo.name.split()[0]} on the calendar.")
    d.do("crm.query", soql=f"SELECT name, account_name, amount, close_date FROM Opportunity WHERE stage = 'Closed Won' "
                           f"AND close_date >= {start.isoformat()} AND close_date <= {today.isoformat()}")
    rows = [["Deal", "Amount"]] + [[f"deal {n + 1}", str(a)] for n, a in enumerate(won)] + [["Total", str(total)]]
    d.do("docs.create_spreadsheet", name=f"{quarter} closed won", rows=rows)
    d.do("docs.create_document", name=f"{quarter} close memo",
         text=f"{quarter} close\n\nWe won {len(won)} deals this quarter for a total of {money(total)}.")
    d.do("mail.send", to=[cfo.email], subject=f"{quarter} closed won",
         body=f"Hi {cfo.name.split()[0]},\n\n{quarter} closed won so far: {money(total)} over {len(won)} deals.")
    d.do("mail.search", query="close review")
    d.do("calendar.create_event", title=f"{quarter} close review", start=_at(day, slot), end=_at(day, slot + 0.5),
         time_zone=view.info.timezone, attendees=[cfo.email])
    d.tags.append("pack")


def renewal_decisions(d: Draft) -> None:
    """A decision per renewal by the playbook: usage from the sheet sets uplift, flat or a save-plan task; a
    customer's written notice closes it lost, unless a later mail takes the notice back."""
    view = d.view
    rules = handbook.policies(view)
    helpers = view.colleagues(d.actor)
    cs = d.rng.choice(helpers)
    renew_on = quarter_end(view.today) + timedelta(days=1)
    quarter = quarter_name(renew_on)
    playbook = f"Renewal playbook - {quarter}"
    d.setup("docs.create_document", by=cs.email, save="playbook", name=playbook,
            text=f"{playbook}\n\nFor each {quarter} renewal, in this order:\n1. If the customer has given written "
                 "notice that they will not renew (and not taken it back since), close the renewal as Closed Lost "
                 "with loss reason 'Churn'.\n2. Seat usage of 80% or more: renew at the current amount plus "
                 f"{rules.renewal_uplift}%, stage Proposal.\n3. Usage under 40%: leave the amount and stage, and "
                 "log a task 'Save plan' on the renewal for its owner.\n4. Anything else: renew flat (same amount), "
                 "stage Proposal.\nSeat usage is on the usage sheet.")
    d.setup("docs.share", by=cs.email, file_id="$playbook.id", email=d.actor, role="viewer")
    count = d.rng.randint(30, 38)
    rows = [["Account", "Seats licensed", "Seats used"]]
    d.do("docs.search", query="renewal playbook")
    d.do("docs.read_file", file_id="$playbook.id")
    d.do("docs.search", query="seat usage")
    d.do("docs.get_spreadsheet", file_id="$usage.id")
    d.do("mail.search", query="renewal")
    d.do("crm.query", soql=f"SELECT id, name, amount, stage FROM Opportunity WHERE name LIKE '%renewal {quarter}'")
    notices = d.rng.sample(range(count), 3)
    for n in range(count):
        name = d.fresh(lambda: d.fake.company().replace(",", ""))
        arr = round_to(d.rng.randint(12, 260) * 1000, 1000)
        seats = d.rng.choice([20, 25, 40, 50, 80, 100, 200])
        used = int(seats * d.rng.choice([0.2, 0.3, 0.35, 0.5, 0.6, 0.75, 0.8, 0.9, 1.0]))
        rows.append([name, str(seats), str(used)])
        d.setup("crm.create_account", save=f"a{n}", name=name, type="Customer", owner=d.actor)
        d.setup("crm.create_opportunity", save=f"r{n}", account_id=f"$a{n}.id", name=f"{name} - renewal {quarter}",
                amount=arr, close_date=renew_on, stage="Qualification", owner=d.actor)
        where = {"from": "crm.opportunity", "where": {"id": f"$r{n}.id"}, "count": 1}
        churn = n in notices and n != notices[1]
        if n in notices:
            contact = f"{d.fake.first_name().lower()}@{slug(name)[:20]}.com"
            d.setup("mail.send", by=contact, to=[d.actor], subject=f"{name} renewal",
                    body=f"Hello,\n\nPlease take this as our notice that {name} will not renew in {quarter}.\n\n"
                         f"Regards,\n{contact}")
            if n == notices[1]:
                d.setup("mail.send", by=contact, to=[d.actor], subject=f"Re: {name} renewal",
                        body="Hello again,\n\nWe have reconsidered: please disregard our notice, we will renew after "
                             "all.\n\nRegards")
                churn = False
            d.do("mail.search", query=name)
        if churn:
            d.check(f"r_{n}", records={**where, "expect": {"stage": "Closed Lost", "loss_reason": {"text": "Churn"}}})
            d.do("crm.update_opportunity", opportunity_id=f"$r{n}.id", stage="Closed Lost", loss_reason="Churn")
        elif used >= 0.8 * seats:
            price = round(arr * (100 + rules.renewal_uplift) / 100, 2)
            d.check(f"r_{n}", records={**where, "expect": {"amount": {"money": price}, "stage": "Proposal"}})
            d.do("crm.update_opportunity", opportunity_id=f"$r{n}.id", amount=price, stage="Proposal")
        elif used < 0.4 * seats:
            d.check(f"r_{n}", role="guard", records={**where, "unchanged": True})
            d.check(f"save_{n}", records={"from": "crm.task", "where": {"related_id": f"$r{n}.id",
                                                                        "related_object": "Opportunity"},
                                          "created": True, "count": 1,
                                          "expect": {"owner": "$actor", "subject": {"tokens": ["save", "plan"]}}})
            d.do("crm.create_task", related_object="Opportunity", related_id=f"$r{n}.id", subject="Save plan")
        else:
            d.check(f"r_{n}", records={**where, "expect": {"amount": {"money": arr}, "stage": "Proposal"}})
            d.do("crm.update_opportunity", opportunity_id=f"$r{n}.id", stage="Proposal")
    d.setup("docs.create_spreadsheet", by=cs.email, save="usage", name=f"Seat usage - {quarter} renewals", rows=rows)
    d.setup("docs.share", by=cs.email, file_id="$usage.id", email=d.actor, role="viewer")
    d.distractors = 2
    d.title = f"Decide the {quarter} renewals"
    d.prompt = f"Work through the {quarter} renewals and make the call on each one per {cs.name.split()[0]}'s playbook."
    d.tags.append("long-horizon")


DD_ITEMS = ["Certificate of incorporation", "Bylaws", "Shareholder register", "Board minutes 2025", "Cap table",
            "Audited financials 2025", "Management accounts Q4", "Tax returns 2024", "Customer contracts summary",
            "Top supplier agreements", "Office lease", "Employment agreements", "Option plan", "IP assignment deeds",
            "Patent schedule", "Trademark registrations", "Insurance policies", "Litigation summary",
            "Data protection policy", "Security audit report", "Loan agreements", "Guarantees", "Permits and licences",
            "Environmental reports", "Pension scheme", "Related-party transactions", "Software licences",
            "Open-source inventory", "Board resolutions 2026", "Shareholders' agreement", "Articles of association",
            "Key customer consents"]


def due_diligence(d: Draft) -> None:
    """Fill a due-diligence checklist from a data room: per row, Received with the executed document's name, Draft
    only when just an unsigned draft is there, or Missing; drafts sit beside executed copies."""
    view = d.view
    lead = d.rng.choice(view.colleagues(d.actor))
    target = d.fresh(lambda: d.fake.company().replace(",", ""))
    items = d.rng.sample(DD_ITEMS, d.rng.randint(20, 28))
    d.setup("docs.create_folder", by=lead.email, save="room", name=f"Project {target.split()[0]} - data room")
    d.setup("docs.share", by=lead.email, file_id="$room.id", email=d.actor, role="viewer")
    rows = [["Item", "Status (Received / Draft only / Missing)", "Document"]] + [[item, "", ""] for item in items]
    sheet = f"Project {target.split()[0]} - DD checklist"
    d.setup("docs.create_spreadsheet", by=lead.email, save="list", name=sheet, rows=rows)
    d.setup("docs.share", by=lead.email, file_id="$list.id", email=d.actor, role="editor")
    d.do("docs.search", query="DD checklist")
    d.do("docs.get_spreadsheet", file_id="$list.id")
    d.do("docs.search", query="data room")
    d.do("docs.list_folder", folder_id="$room.id", limit=100)
    for n, item in enumerate(items):
        state = d.rng.choice(["executed", "executed", "both", "draft", "missing"])
        row = n + 2
        name = f"{target} - {item}"
        final = name
        if state in ("draft", "both"):
            d.setup("docs.create_document", by=lead.email, save=f"dr{n}", folder_id="$room.id",
                    name=f"{name} (v{1 if state == 'both' else 2})",
                    text=f"{item} of {target}\n\nDRAFT - not signed. For discussion only.")
            d.do("docs.read_file", file_id=f"$dr{n}.id")
        if state in ("executed", "both"):
            final = f"{name} (v{2 if state == 'both' else 1})" if state == "both" or d.rng.random() < 0.5 else name
            d.setup("docs.create_document", by=lead.email, save=f"ex{n}", folder_id="$room.id", name=final,
                    text=f"{item} of {target}\n\nExecuted copy, signed by both parties.")
            d.do("docs.read_file", file_id=f"$ex{n}.id")
        status = {"executed": "Received", "both": "Received", "draft": "Draft only", "missing": "Missing"}[state]
        document = final if state in ("executed", "both") else f"{name} (v2)" if state == "draft" else ""
        d.check(f"status_{n}", records={"from": "docs.cell", "where": {"item_id": "$list.id", "row": row, "col": 2},
                                        "count": 1, "expect": {"input": {"text": status}}})
        if document:
            d.check(f"doc_{n}", records={"from": "docs.cell", "where": {"item_id": "$list.id", "row": row, "col": 3},
                                         "count": 1, "expect": {"input": {"any_of": [{"text": document},
                                                                                      {"contains": document}]}}})
        cells = {f"B{row}": status, **({f"C{row}": document} if document else {})}
        d.do("docs.update_cells", file_id="$list.id", cells=cells)
    d.distractors = 3
    d.title = f"Fill in the Project {target.split()[0]} DD checklist"
    d.prompt = (f"{lead.name.split()[0]} needs the Project {target.split()[0]} due-diligence checklist filled in from "
                "the data room: for every item, its status and the document that covers it.")
    d.tags.append("long-horizon")


def onboarding(d: Draft) -> None:
    """Onboard a hire: a folder shared with them holding copies of the starter docs, a half-hour intro with each
    teammate in their first week, and the accounts the manager's mail lists moved to them."""
    view = d.view
    teams = [(p, view.reports(p.email)) for p in view.people]
    teams = [(boss, team) for boss, team in teams if len(team) >= 4]
    if not teams:
        raise Skip("no manager with four reports")
    boss, team = d.rng.choice(teams)
    d.actor = boss.email
    keeper = handbook.keeper(view)
    hire = d.rng.choice([p for p in team if p.email != keeper.email])
    mates = [p for p in team if p.email != hire.email][:5]
    tz = view.info.timezone
    week = view.workdays(view.today + timedelta(days=(7 - view.today.weekday()) % 7), 5)
    folder = f"Onboarding - {hire.name}"
    hr = keeper.email if keeper.email != d.actor else None
    d.setup("docs.create_folder", by=hr, save="folder", name=folder)
    if hr:
        d.setup("docs.share", by=hr, file_id="$folder.id", email=d.actor, role="editor")
    starters = d.rng.sample(["Welcome guide", "First-week checklist", "Team norms", "Tools and access",
                             "Benefits overview"], 3)
    for n, title in enumerate(starters):
        by = keeper.email if keeper.email != d.actor else None
        d.setup("docs.create_document", by=by, save=f"s{n}", name=f"{view.company} - {title}",
                text=f"{title}\n\nEverything a new starter needs to know about {title.lower()}.")
        if by:
            d.setup("docs.share", by=by, file_id=f"$s{n}.id", email=d.actor, role="viewer")
    count = d.rng.randint(8, 14)
    names = []
    for n in range(count):
        name = d.fresh(lambda: d.fake.company().replace(",", ""))
        names.append(name)
        d.setup("crm.create_account", save=f"a{n}", name=name, type="Customer", owner=d.actor)
        d.check(f"account_{n}", records={"from": "crm.account", "where": {"id": f"$a{n}.id"}, "count": 1,
                                         "expect": {"owner": hire.email}})
    kept = d.fresh(lambda: d.fake.company().replace(",", ""))
    d.setup("crm.create_account", save="kept", name=kept, type="Customer", owner=d.actor)
    d.check("kept_account", role="guard", records={"from": "crm.account", "where": {"id": "$kept.id"}, "count": 1,
                                                   "unchanged": True})
    subject = f"{hire.name.split()[0]}'s start"
    listed = "\n".join(f"- {name}" for name in names)
    sender = keeper.email if keeper.email != d.actor else (boss.manager or mates[0].email)
    d.setup("mail.send", by=sender, to=[d.actor], subject=subject,
            body=f"Hi {boss.name.split()[0]},\n\n{hire.name} starts on {week[0]:%A %B} {week[0].day}. As agreed, these "
                 f"accounts move to {hire.name.split()[0]} on day one:\n{listed}\n({kept} stays with you for now.)\n"
                 f"Please share the onboarding folder with {hire.name.split()[0]} as an editor, so they can add notes.\n")
    d.bind("plan", "mail.message", owner="$actor", subject=subject)
    d.check("folder_shared", records={"from": "docs.permission", "where": {"person": hire.email,
                                                                           "item_id": "$folder.id"},
                                      "created": True, "count": 1, "expect": {"role": "editor"}})
    for n, title in enumerate(starters):
        d.check(f"copy_{n}", records={"from": "docs.item", "where": {"folder": folder,
                                                                      "name": {"tokens": title.split()}},
                                      "created": True, "count": {"min": 1},
                                      "expect": {"body": {"phrase": f"about {title.lower()}"}}})
    grid = d.rng.sample([_at(day, h) for day in week[:3] for h in (10, 11, 13.5, 14.5, 15.5)], len(mates) + 1)
    slots, spare = sorted(grid[:-1]), grid[-1]
    moved = d.rng.randrange(len(mates))
    first_plan, slots[moved] = slots[moved], spare
    lines = "\n".join(f"- {mate.name}: {(first_plan if n == moved else slots[n]):%A %H:%M}"
                      for n, mate in enumerate(mates))
    d.setup("mail.send", by=sender, to=[d.actor], subject=f"Intro schedule for {hire.name.split()[0]}",
            body=f"Hi,\n\nHere are the half-hour intros I lined up with the team for {hire.name.split()[0]}'s first "
                 f"week - please put them in the calendar:\n{lines}\n")
    d.setup("mail.send", by=mates[moved].email, to=[d.actor], subject=f"My intro with {hire.name.split()[0]}",
            body=f"Hi {boss.name.split()[0]},\n\nI can't do {first_plan:%A %H:%M} for the intro - could it be "
                 f"{slots[moved]:%A %H:%M} instead?\n\n{mates[moved].name.split()[0]}")
    for n, mate in enumerate(mates):
        d.check(f"intro_{n}", records={"from": "calendar.event", "where": {"organizer": "$actor",
                                                                            "attendees": {"contains": [mate.email]}},
                                       "created": True, "count": 1, "expect": {
                                           "title": {"any_of": [{"tokens": [w]} for w in (
                                               "intro", "introduction", "meet", "welcome", "onboarding",
                                               hire.name.split()[0].lower())]},
                                           "attendees": {"set": [d.actor, hire.email, mate.email]},
                                           "start": {"datetime": slots[n].isoformat()},
                                           "end": {"datetime": (slots[n] + timedelta(minutes=30)).isoformat()}}})
    d.distractors = 1
    d.title = f"Onboard {hire.name}"
    d.prompt = (f"{hire.name} joins my team on {week[0]:%A}. Get them set up: their onboarding folder shared with "
                "them with our starter docs copied in, their intros with the team in the calendar, and their accounts "
                "moved over as agreed.")
    d.do("mail.search", query=hire.name.split()[0])
    d.do("mail.get_message", message_id="$plan.id")
    d.do("docs.search", query="Onboarding")
    d.do("docs.share", file_id="$folder.id", email=hire.email, role="editor")
    d.do("docs.search", query=view.company)
    for n, title in enumerate(starters):
        d.do("docs.copy", file_id=f"$s{n}.id", name=title, folder_id="$folder.id")
    d.do("mail.search", query="intro")
    for n, mate in enumerate(mates):
        d.do("calendar.create_event", title=f"Intro: {hire.name.split()[0]} and {mate.name.split()[0]}",
             start=slots[n], end=slots[n] + timedelta(minutes=30), time_zone=tz, attendees=[hire.email, mate.email])
    for n in range(count):
        d.do("crm.update_account", account_id=f"$a{n}.id", owner=hire.email)
    d.tags.append("long-horizon")


FAMILIES = [
    Family("proj-quarter-close", "assemble the quarter-close pack (won-deals sheet, memo, total to finance, review "
           "meeting) past deals won last quarter or lost", ("crm", "docs", "mail", "calendar"), "train",
           quarter_close),
    Family("proj-renewal-decisions", "decide 30-38 renewals by a playbook from a usage sheet and customers' notices "
           "(one withdrawn): uplift, flat, save-plan task or churn", ("docs", "mail", "crm"), "train",
           renewal_decisions),
    Family("proj-due-diligence", "fill a 20-28 row due-diligence checklist from a data room, reading each document to "
           "tell executed copies from drafts", ("docs",), "test", due_diligence),
    Family("proj-onboarding", "onboard a hire: shared folder with copied starter docs, an intro with every teammate "
           "in week one, and the agreed accounts moved", ("mail", "docs", "calendar", "crm"), "train", onboarding),
]


def escalation(d: Draft) -> None:
    """A customer complains: log the case, book the call on the one offered time the account team can make, and
    reply with it."""
    from scenarios.families.schedule import _free_days

    view = d.view
    owner = d.rng.choice(owners_with_manager(d))
    d.actor = owner.email
    boss = view.person(owner.manager or "")
    morning, afternoon = d.rng.choice([(9, 14), (10, 15), (11, 16)])
    day = _free_days(d, [owner.email, boss.email], 1, hours=(morning - 1, afternoon + 2))[0]
    acct = new_customer(d, owner.email)
    busy = d.rng.choice([owner.email, boss.email])
    words = {9: "nine", 10: "ten", 11: "eleven", 14: "two", 15: "three", 16: "four"}
    d.setup("calendar.create_event", by=busy, title=d.rng.choice(["Offsite prep", "Forecast call", "Interview"]),
            start=_at(day, morning - 0.5), end=_at(day, morning + 1), time_zone=view.info.timezone)
    problem = d.rng.choice(["our dashboards have shown no data since Monday", "every export we run fails halfway",
                            "half our users cannot log in since the update"])
    subject = f"Complaint: {acct.name} service"
    d.setup("mail.send", by=acct.email, to=[owner.email], subject=subject,
            body=f"Hello {owner.name.split()[0]},\n\nI have to complain: {problem}, and support has not fixed it. I "
                 f"want a call with you and your manager. {day:%A} is the day we can do - at {words[morning]} in "
                 f"the morning or at {words[afternoon]} in the afternoon, for an hour.\n\n{acct.contact}")
    d.bind("complaint", "mail.message", owner="$actor", subject=subject)
    start = _at(day, afternoon)
    hour = afternoon - 12
    d.check("case", records={"from": "crm.case", "where": {"account": acct.name}, "created": True, "count": 1,
                             "expect": {"priority": "High", "status": {"not": "Closed"},
                                        "subject": {"phrase": acct.name}}})   # said, not negated
    d.check("call", records={"from": "calendar.event", "where": {"organizer": "$actor"}, "created": True, "count": 1,
                             "expect": {"start": {"datetime": start.isoformat()},
                                        "end": {"datetime": (start + timedelta(hours=1)).isoformat()},
                                        "title": {"any_of": [{"phrase": acct.name}, {"tokens": ["escalation"]},
                                                             {"tokens": ["complaint"]}, {"tokens": ["call"]}]},
                                        "attendees": {"set": [owner.email, boss.email, acct.email]}}})
    d.check("replied", records={"from": "mail.outbound", "where": {"recipient": acct.email, "body": {"any_of": [
        {"phrase": f"{afternoon}:00"}, {"phrase": f"{hour}:00"}, {"phrase": f"{hour} pm"}, {"phrase": f"{hour}pm"},
        {"phrase": f"{hour} p.m."}]}}, "created": True, "count": {"min": 1}})
    d.distractors = 1
    d.title = f"Handle the {acct.name} complaint"
    d.prompt = (f"{acct.contact} at {acct.name} has complained. Log it in the CRM as a High priority {acct.name} "
                "case, get the call they asked for on the calendar, and reply with the time.")
    d.do("mail.get_message", message_id="$complaint.id")
    d.do("crm.search", text=acct.name)
    d.do("crm.create_case", account_id=f"{acct.ref}.id", subject=f"{acct.name}: {problem}", priority="High")
    d.do("calendar.free_busy", people=[owner.email, boss.email], start=_at(day, 0), end=_at(day, 24))
    d.do("calendar.create_event", title=f"{acct.name} escalation call", start=start, end=start + timedelta(hours=1),
         time_zone=view.info.timezone, attendees=[boss.email, acct.email])
    d.do("mail.reply", message_id="$complaint.id",
         body=f"We're sorry. I have logged it and booked a call with my manager for {day:%A} at {hour}:00 pm.")
    d.tags.append("escalation")


def board_pack(d: Draft) -> None:
    """Fill the board pack sheet with open pipeline by stage and share it with the board as viewers - only the
    members inside the company, as the handbook says of confidential documents; nothing mailed outside."""
    view = d.view
    boss = handbook.head(view)
    if boss.email == d.actor:
        raise Skip("the acting person is the head of the company")
    handbook.place(d)
    stages: dict[str, float] = {}
    for deal in view.deals:
        if deal.open and deal.amount:
            stages[deal.stage] = stages.get(deal.stage, 0) + deal.amount
    if len(stages) < 2:
        raise Skip("fewer than two stages with open pipeline")
    inside = [p for p in view.reports(boss.email) if p.email != d.actor]
    if not inside:
        raise Skip("no one reports to the head of the company besides the acting person")
    members = d.rng.sample(inside, min(len(inside), d.rng.randint(2, 3)))
    outside = [f"{d.fake.first_name().lower()}@{d.rng.choice(['northwind', 'bluepeak', 'harbourgate'])}"
               f"{d.rng.choice(['capital', 'ventures', 'partners'])}.com" for _ in range(2)]
    quarter = quarter_name(view.today)
    sheet = f"Board pack {quarter} - Confidential"
    d.setup("docs.create_spreadsheet", by=boss.email, save="pack", name=sheet, rows=[["Stage", "Open pipeline"]])
    d.setup("docs.share", by=boss.email, file_id="$pack.id", email=d.actor, role="editor")
    roster = "\n".join([f"- {boss.name} (chair), {boss.email}"] + [f"- {p.name}, {p.email}" for p in members] +
                       [f"- {d.fake.name()} (investor director), {e}" for e in outside])
    d.setup("docs.create_document", by=boss.email, save="board", name=f"{view.company} board of directors",
            text=f"Board of directors\n\n{roster}\n")
    d.setup("docs.share", by=boss.email, file_id="$board.id", email=d.actor, role="viewer")
    subject = f"Board pack {quarter}"
    d.setup("mail.send", by=boss.email, to=[d.actor], subject=subject,
            body=f"Hi,\n\nPlease fill in '{sheet}' with our open pipeline by stage and share it with the board, view "
                 f"only. It's confidential, as always.\n\n{boss.name.split()[0]}")
    d.bind("ask", "mail.message", owner="$actor", subject=subject)
    for n, (stage, amount) in enumerate(sorted(stages.items())):
        d.check(f"stage_{n}", records={"from": "docs.cell", "where": {"item_id": "$pack.id",
                                                                      "input": {"money": round(amount, 2)}},
                                       "count": {"min": 1}})
    d.check("first_row", records={"from": "docs.cell", "where": {"item_id": "$pack.id", "row": 2, "col": 1},
                                  "count": 1, "expect": {"input": {"any_of": [{"text": x} for x in stages]}}})
    for p in members:
        d.check(f"shared_{slug(p.email)}", records={"from": "docs.permission", "where": {"item_id": "$pack.id",
                                                                                          "person": p.email},
                                                    "created": True, "count": 1, "expect": {"role": "viewer"}})
    d.check("nothing_outside", role="guard", records={"from": "mail.outbound", "where": {"recipient": {
        "any_of": outside}}, "created": True, "count": 0})
    d.check("not_public", role="guard", records={"from": "docs.item", "where": {"id": "$pack.id"}, "count": 1,
                                                  "expect": {"general_access": {"not": {"any_of": ["reader", "viewer",
                                                                                                   "writer", "editor",
                                                                                                   "commenter"]}}}})
    d.distractors = len(outside)
    d.title = f"Board pack {quarter}"
    d.prompt = f"{boss.name.split()[0]} wants the board pack done - see the mail."
    d.do("mail.get_message", message_id="$ask.id")
    d.do("docs.search", query="board")
    d.do("docs.read_file", file_id="$board.id")
    handbook.read(d)
    d.do("crm.query", soql="SELECT stage, amount FROM Opportunity WHERE is_closed = FALSE")
    d.do("docs.update_range", file_id="$pack.id", range="A2",
         values=[[stage, str(round(amount, 2))] for stage, amount in sorted(stages.items())])
    for p in members:
        d.do("docs.share", file_id="$pack.id", email=p.email, role="viewer")
    d.tags.append("policy")


FAMILIES += [
    Family("proj-escalation", "turn a customer's complaint into a case, the call on the one offered time the account "
           "team can make, and a reply with it", ("mail", "crm", "calendar"), "validation", escalation),
    Family("proj-board-pack", "fill the board pack with open pipeline by stage and share it view-only with the "
           "board's members inside the company, never outside", ("mail", "docs", "crm"), "train", board_pack),
]
