"""Sales (CRM) families: account hygiene, lead routing, pipeline hygiene and a departing rep's handover, each by
rules that live in a colleague's mail or sheet, over records the family places beside the world's own."""

from __future__ import annotations

from datetime import timedelta

from scenarios.draft import Draft
from scenarios.families.common import crm_owners, new_customer, quarter_end, round_to, slug
from scenarios.family import Family, Skip

EARLY = ["Prospecting", "Qualification", "Needs Analysis"]
LATE = ["Value Proposition", "Proposal", "Negotiation"]
INDUSTRIES = ["Healthcare", "Retail", "Manufacturing", "Financial Services", "Logistics", "Education", "Energy",
              "Media", "Hospitality", "Construction"]


def _company(d: Draft) -> str:
    return d.fresh(lambda: d.fake.company().replace(",", "").replace(" and ", " & "))


def _person(d: Draft, domain: str) -> tuple[str, str, str]:
    first, last = d.fake.first_name(), d.fake.last_name()
    return first, last, f"{first.lower()}.{slug(last)}@{domain}"


def _about_handover(heir, company: str) -> dict:
    """A subject that says what the mail is about (the account manager, the company or the successor)."""
    return {"any_of": [{"tokens": ["account"]}, {"tokens": ["manager"]}, {"tokens": ["contact"]},
                       {"phrase": heir.name.split()[0]}, {"phrase": company.split()[0].strip(",")},
                       {"tokens": ["handover"]}, {"tokens": ["introduction"]}, {"tokens": ["change"]}]}


def dedupe_accounts(d: Draft) -> None:
    """Merge customers entered twice: keep the account with the deals, move the other's contacts onto it and
    delete it, past a separate legal entity with a near-identical name that must stay."""
    view = d.view
    helpers = [p for p in view.colleagues(d.actor)]
    if not helpers:
        raise Skip("nobody to flag the duplicates")
    ops = d.rng.choice(helpers)
    pairs = d.rng.randint(3, 5)
    names, moved = [], []
    for n in range(pairs):
        base = _company(d)
        variant = d.fresh(lambda: d.rng.choice([f"{base} Inc.", f"{base.upper()}", f"{base} (new)", f"The {base}"]))
        entity = d.fresh(lambda: f"{base} {d.rng.choice(['Holdings', 'Foundation', 'Capital'])}")
        keep_base = d.rng.random() < 0.5
        keep, dup = (base, variant) if keep_base else (variant, base)
        domain = f"{slug(base)[:20]}.com"
        d.setup("crm.create_account", save=f"k{n}", name=keep, type="Customer", industry="Technology", owner=d.actor)
        d.setup("crm.create_account", save=f"d{n}", name=dup, type="Customer", owner=d.actor)
        d.setup("crm.create_account", save=f"e{n}", name=entity, type="Prospect", owner=d.actor)
        d.setup("crm.create_opportunity", account_id=f"$k{n}.id", name=f"{keep} - platform", stage=d.rng.choice(LATE),
                amount=round_to(d.rng.randint(20, 200) * 1000), close_date=quarter_end(view.today), owner=d.actor)
        first, last, email = _person(d, domain)
        d.setup("crm.create_contact", account_id=f"$k{n}.id", first_name=first, last_name=last, email=email)
        for m in range(d.rng.randint(1, 3)):
            first, last, email = _person(d, domain)
            d.setup("crm.create_contact", save=f"c{n}_{m}", account_id=f"$d{n}.id", first_name=first,
                    last_name=last, email=email, title=d.rng.choice(["CFO", "IT Director", "Buyer", "COO"]))
            moved.append((n, m, keep))
        first, last, email = _person(d, f"{slug(entity)[:20]}.com")
        d.setup("crm.create_contact", save=f"x{n}", account_id=f"$e{n}.id", first_name=first, last_name=last,
                email=email)
        names.append(base)
        d.check(f"dup_{n}_gone", records={"from": "crm.account", "where": {"id": f"$d{n}.id"}, "count": 0})
        d.check(f"kept_{n}", role="guard", records={"from": "crm.account", "where": {"id": f"$k{n}.id"}, "count": 1,
                                                     "expect": {"name": keep}})
        d.check(f"entity_{n}", role="guard", records={"from": "crm.account", "where": {"id": f"$e{n}.id"},
                                                       "count": 1, "unchanged": True})
        d.check(f"entity_contact_{n}", role="guard", records={"from": "crm.contact", "where": {"id": f"$x{n}.id"},
                                                               "count": 1, "unchanged": True})
    for n, m, keep in moved:
        d.check(f"contact_{n}_{m}", records={"from": "crm.contact", "where": {"id": f"$c{n}_{m}.id"}, "count": 1,
                                             "expect": {"account": keep}})
    subject = "Duplicate accounts in the CRM"
    listed = "\n".join(f"- {name}" for name in names)
    d.setup("mail.send", by=ops.email, to=[d.actor], subject=subject,
            body=f"Hi,\n\nThe data audit found these customers entered twice under slightly different names:\n"
                 f"{listed}\n\nOur hygiene rule: keep the record that has the deals, move every contact from the "
                 "other record onto it, then delete the empty one. Related companies with their own legal entity "
                 "(holdings, foundations, capital arms) are separate customers - leave those alone.\n\n"
                 f"Thanks,\n{ops.name.split()[0]}")
    d.bind("flag", "mail.message", owner="$actor", subject=subject)
    d.distractors = pairs
    d.title = "Merge the duplicate accounts the audit found"
    d.prompt = f"{ops.name.split()[0]} sent over the duplicate accounts from the data audit. Sort them out."
    d.do("mail.search", query="duplicate accounts")
    d.do("mail.get_message", message_id="$flag.id")
    for n, base in enumerate(names):
        d.do("crm.search", text=base)
        d.do("crm.query", soql=f"SELECT id, name, account_id FROM Contact WHERE account_id = ${{d{n}.id}}")
        for k, m, _ in moved:
            if k == n:
                d.do("crm.update_contact", contact_id=f"$c{n}_{m}.id", account_id=f"$k{n}.id")
        d.do("crm.delete_record", object="Account", record_id=f"$d{n}.id")
    d.tags.append("hygiene")


def lead_routing(d: Draft) -> None:
    """Assign every new lead to its owner by the routing sheet's industry table, after a later mail moves one
    industry to someone else; leads already being worked stay as they are."""
    view = d.view
    reps = view.crm_users()
    if len(reps) < 3:
        raise Skip("fewer than three CRM users to route leads to")
    keeper = d.rng.choice(view.colleagues(d.actor))
    industries = d.rng.sample(INDUSTRIES, 5)
    table = {ind: d.rng.choice(reps).email for ind in industries}
    default = d.rng.choice(reps).email
    rows = [["Industry", "Owner"]] + [[ind, table[ind]] for ind in industries] + [["Anything else", default]]
    sheet = f"Lead routing - {view.company}"
    d.setup("docs.create_spreadsheet", by=keeper.email, save="sheet", name=sheet, rows=rows)
    d.setup("docs.share", by=keeper.email, file_id="$sheet.id", email=d.actor, role="viewer")
    moved = d.rng.choice(industries)
    new_owner = d.rng.choice([r.email for r in reps if r.email != table[moved]])
    table[moved] = new_owner
    subject = f"Routing change: {moved}"
    d.setup("mail.send", by=keeper.email, to=[d.actor], subject=subject,
            body=f"Hi,\n\nStarting today {moved} leads go to {view.person(new_owner).name}, not to whoever the "
                 f"routing sheet says. I'll update '{sheet}' at month end.\n\n{keeper.name.split()[0]}")
    count = d.rng.randint(35, 48)
    routed: list[tuple[str, str]] = []   # (lead reference, its owner by the rules)
    for n in range(count):
        ind = d.rng.choice(industries + ["Agriculture", "Government"]) if d.rng.random() < 0.9 else None
        company = _company(d)
        first, last, email = _person(d, f"{slug(company)[:20]}.com")
        d.setup("crm.create_lead", save=f"l{n}", first_name=first, last_name=last, company=company, email=email,
                industry=ind, status="New", source=d.rng.choice(["Web", "Trade Show", "Partner Referral"]),
                owner=d.actor)
        owner = table.get(ind or "", default)
        routed.append((f"$l{n}", owner))
        d.check(f"lead_{n}", records={"from": "crm.lead", "where": {"id": f"$l{n}.id"}, "count": 1,
                                      "expect": {"owner": owner, "status": "Working"}})
    crm = view.world.sections.get("crm")
    for n, (key, lead) in enumerate(crm.leads.items() if crm is not None else ()):   # the world's own, in my queue
        if lead.owner == d.actor and lead.status == "New":
            owner = table.get(lead.industry or "", default)
            d.bind(f"old{n}", "crm.lead", key=key)
            d.check(f"old_lead_{n}", records={"from": "crm.lead", "where": {"id": f"$old{n}.id"}, "count": 1,
                                              "expect": {"owner": owner, "status": "Working"}})
            routed.append((f"$old{n}", owner))
    for n in range(d.rng.randint(1, 3)):   # already in someone's hands: not new, not to be routed again
        company = _company(d)
        first, last, email = _person(d, f"{slug(company)[:20]}.com")
        d.setup("crm.create_lead", save=f"w{n}", first_name=first, last_name=last, company=company, email=email,
                industry=moved, status="Working", owner=d.actor)
        d.check(f"worked_{n}", role="guard", records={"from": "crm.lead", "where": {"id": f"$w{n}.id"}, "count": 1,
                                                       "unchanged": True})
    d.bind("change", "mail.message", owner="$actor", subject=subject)
    d.distractors = 2
    d.title = "Route this week's new leads"
    d.prompt = ("The new leads in my queue need to go to their owners by the routing rules - assign them and mark "
                "them as being worked.")
    d.do("docs.search", query="Lead routing")
    d.do("docs.get_spreadsheet", file_id="$sheet.id")
    d.do("mail.search", query="routing")
    d.do("mail.get_message", message_id="$change.id")
    d.do("crm.query", soql="SELECT id, company, industry, status FROM Lead WHERE status = 'New'")
    for ref, owner in routed:
        d.do("crm.update_lead", lead_id=f"{ref}.id", owner=owner, status="Working")
    d.tags.append("long-horizon" if len(routed) + 5 >= 40 else "campaign")


def stale_deals(d: Draft) -> None:
    """Apply the pipeline-hygiene note to one rep's open deals whose close date has passed: early ones are
    closed lost, later ones pushed to quarter end with a task for the rep; current and closed deals stay."""
    view = d.view
    reps = [p for p in view.crm_users() if p.manager in view.people_by_email]
    if not reps:
        raise Skip("no CRM user with a manager")
    rep = d.rng.choice(reps)
    d.actor = rep.manager or ""
    ops = d.rng.choice([p for p in view.colleagues(d.actor) if p.email != rep.email] or [rep])
    today, end = view.today, quarter_end(view.today)
    if (end - today).days < 3:
        raise Skip("the quarter ends within three days")
    due = today + timedelta(days=7)
    note = "Pipeline hygiene"
    d.setup("docs.create_document", by=ops.email, save="note", name=note,
            text=f"{note}\n\nAn open deal whose close date has passed is stale. If it is still in Prospecting, "
                 "Qualification or Needs Analysis, close it as Closed Lost with the loss reason 'Stale'. Otherwise "
                 "move its close date to the last day of the current quarter and log a task for the deal's owner, "
                 "'Confirm close date', due one week from the day you do it. Deals closing today or later, and "
                 "closed deals, are left alone.")
    d.setup("docs.share", by=ops.email, file_id="$note.id", email=d.actor, role="viewer")
    stale: list[tuple[str, str]] = []   # (reference, stage)
    for n, deal in enumerate(x for x in view.deals if x.owner == rep.email):
        if deal.open and deal.close_date is not None and deal.close_date < today:
            d.bind(f"w{n}", "crm.opportunity", key=deal.key)
            stale.append((f"$w{n}", deal.stage))
    for n in range(d.rng.randint(12, 18)):
        name = _company(d)
        d.setup("crm.create_account", by=rep.email, save=f"a{n}", name=name, type="Customer", owner=rep.email)
        kind = d.rng.choice(["stale", "stale", "stale", "current", "today", "closed"])
        stage = d.rng.choice(EARLY + LATE) if kind != "closed" else "Closed Won"
        close = {"stale": today - timedelta(days=d.rng.randint(1, 40)), "current": today + timedelta(days=d.rng.randint(
            1, 30)), "today": today, "closed": today - timedelta(days=d.rng.randint(1, 20))}[kind]
        d.setup("crm.create_opportunity", by=rep.email, save=f"o{n}", account_id=f"$a{n}.id", name=f"{name} - new",
                stage=stage, close_date=close, amount=round_to(d.rng.randint(10, 150) * 1000), owner=rep.email)
        if kind == "stale":
            stale.append((f"$o{n}", stage))
        else:
            d.check(f"left_{n}", role="guard", records={"from": "crm.opportunity", "where": {"id": f"$o{n}.id"},
                                                         "count": 1, "unchanged": True})
    if not stale:
        raise Skip("no stale deal drawn")
    for ref, stage in stale:
        name = ref.strip("$")
        if stage in EARLY:
            d.check(f"lost_{name}", records={"from": "crm.opportunity", "where": {"id": f"{ref}.id"}, "count": 1,
                                             "expect": {"stage": "Closed Lost", "loss_reason": {"text": "Stale"}}})
            d.check(f"no_task_{name}", role="penalty", weight=0.5, records={
                "from": "crm.task", "where": {"related_id": f"{ref}.id", "related_object": "Opportunity"},
                "created": True, "count": 0})
        else:
            d.check(f"pushed_{name}", records={"from": "crm.opportunity", "where": {"id": f"{ref}.id"}, "count": 1,
                                               "expect": {"close_date": {"date": end.isoformat()}, "stage": stage}})
            d.check(f"task_{name}", records={
                "from": "crm.task", "where": {"related_id": f"{ref}.id", "related_object": "Opportunity"},
                "created": True, "count": 1, "expect": {"owner": rep.email, "due_date": {"date": due.isoformat()},
                                                        "subject": {"tokens": ["confirm", "close", "date"]}}})
    d.distractors = 3
    d.title = f"Clean up {rep.name}'s stale pipeline"
    d.prompt = (f"{rep.name.split()[0]}'s pipeline has deals with close dates in the past. Clean it up the way our "
                "pipeline hygiene note says.")
    d.do("docs.search", query=note)
    d.do("docs.read_file", file_id="$note.id")
    d.do("crm.query", soql=f"SELECT id, name, stage, close_date FROM Opportunity WHERE owner = '{rep.email}'")
    for ref, stage in stale:
        if stage in EARLY:
            d.do("crm.update_opportunity", opportunity_id=f"{ref}.id", stage="Closed Lost", loss_reason="Stale")
        else:
            d.do("crm.update_opportunity", opportunity_id=f"{ref}.id", close_date=end)
            d.do("crm.create_task", related_object="Opportunity", related_id=f"{ref}.id", subject="Confirm close date",
                 due_date=due, owner=rep.email)
    d.tags.append("policy")


def book_handover(d: Draft) -> None:
    """Hand a departing rep's book to two successors by the split in their handover mail, as amended by the
    manager's later mail: every account, open deal, open case and open task, and a mail to each customer."""
    view = d.view
    owned = crm_owners(view)
    teams = [(boss, [r for r in view.reports(boss.email) if r.email not in owned]) for boss in view.people]
    teams = [(boss, free) for boss, free in teams if free and len(view.reports(boss.email)) >= 3]
    if not teams:
        raise Skip("no manager with three reports, one of whom owns no CRM records yet")
    boss, free = d.rng.choice(teams)
    d.actor = boss.email
    leaver = d.rng.choice(free)
    heirs = d.rng.sample([r for r in view.reports(boss.email) if r.email != leaver.email], 2)
    count = d.rng.randint(8, 11)
    accounts = []
    for n in range(count):
        name = _company(d)
        ind = d.rng.choice(INDUSTRIES[:4])
        accounts.append((name, ind))
    split = d.rng.choice(INDUSTRIES[:4])
    heir_of = {n: heirs[0] if ind == split else heirs[1] for n, (_, ind) in enumerate(accounts)}
    swapped = d.rng.choice(range(count))
    heir_of[swapped] = heirs[1] if heir_of[swapped] == heirs[0] else heirs[0]
    d.do("mail.search", query="handover")
    d.do("mail.search", query=accounts[swapped][0])
    d.do("crm.query", soql=f"SELECT id, name, industry FROM Account WHERE owner = '{leaver.email}'")
    d.do("crm.query", soql=f"SELECT id, name, account_id, stage FROM Opportunity WHERE owner = '{leaver.email}'")
    d.do("crm.query", soql=f"SELECT id, subject, account_id, status FROM Case WHERE owner = '{leaver.email}'")
    d.do("crm.my_open_tasks", owner=leaver.email)
    for n, (name, ind) in enumerate(accounts):
        heir = heir_of[n]
        domain = f"{slug(name)[:20]}.com"
        first, last, email = _person(d, domain)
        d.setup("crm.create_account", by=leaver.email, save=f"a{n}", name=name, industry=ind, type="Customer",
                owner=leaver.email)
        d.setup("crm.create_contact", by=leaver.email, save=f"c{n}", account_id=f"$a{n}.id", first_name=first,
                last_name=last, email=email, title="Head of Procurement")
        d.check(f"account_{n}", records={"from": "crm.account", "where": {"id": f"$a{n}.id"}, "count": 1,
                                         "expect": {"owner": heir.email}})
        d.check(f"told_{n}", records={"from": "mail.outbound", "where": {"recipient": email}, "created": True,
                                      "count": {"min": 1}, "expect": {"body": {"any_of": [{"phrase": heir.name},
                                                                                    {"contains": heir.email}]},
                                                                 "subject": _about_handover(heir, view.company)}})
        d.do("crm.update_account", account_id=f"$a{n}.id", owner=heir.email)
        for m in range(d.rng.randint(1, 2)):
            d.setup("crm.create_opportunity", by=leaver.email, save=f"o{n}_{m}", account_id=f"$a{n}.id",
                    name=f"{name} - {['expansion', 'renewal'][m]}", stage=d.rng.choice(EARLY + LATE),
                    close_date=quarter_end(view.today) + timedelta(days=30 * m),
                    amount=round_to(d.rng.randint(10, 180) * 1000), owner=leaver.email)
            d.check(f"deal_{n}_{m}", records={"from": "crm.opportunity", "where": {"id": f"$o{n}_{m}.id"},
                                              "count": 1, "expect": {"owner": heir.email}})
            d.do("crm.update_opportunity", opportunity_id=f"$o{n}_{m}.id", owner=heir.email)
        if d.rng.random() < 0.5:
            d.setup("crm.create_opportunity", by=leaver.email, save=f"won{n}", account_id=f"$a{n}.id",
                    name=f"{name} - first order", stage="Closed Won", close_date=view.today - timedelta(days=60),
                    amount=round_to(d.rng.randint(10, 90) * 1000), owner=leaver.email)
            d.check(f"won_{n}", role="guard", records={"from": "crm.opportunity", "where": {"id": f"$won{n}.id"},
                                                        "count": 1, "unchanged": True})
        if d.rng.random() < 0.5:
            d.setup("crm.create_case", by=leaver.email, save=f"case{n}", account_id=f"$a{n}.id",
                    subject=f"{d.rng.choice(['Invoice query', 'Login issue', 'Data export failing'])}",
                    status="Working", priority=d.rng.choice(["High", "Medium"]), owner=leaver.email)
            d.check(f"case_{n}", records={"from": "crm.case", "where": {"id": f"$case{n}.id"}, "count": 1,
                                          "expect": {"owner": heir.email}})
            d.do("crm.update_case", case_id=f"$case{n}.id", owner=heir.email)
        if d.rng.random() < 0.6:
            d.setup("crm.create_task", by=leaver.email, save=f"t{n}", related_object="Account",
                    related_id=f"$a{n}.id", subject=f"Quarterly check-in with {first}", status="Not Started",
                    due_date=view.today + timedelta(days=d.rng.randint(3, 20)), owner=leaver.email)
            d.check(f"task_{n}", records={"from": "crm.task", "where": {"id": f"$t{n}.id"}, "count": 1,
                                          "expect": {"owner": heir.email}})
            d.do("crm.update_task", task_id=f"$t{n}.id", owner=heir.email)
        d.do("mail.send", to=[email], subject=f"Your new account manager at {view.company}",
             body=f"Dear {first},\n\n{leaver.name} is leaving {view.company}. From today {heir.name} "
                  f"({heir.email}) looks after {name}.\n\nBest regards,\n{boss.name}")
    left = view.today - timedelta(days=5)
    d.setup("crm.create_task", by=leaver.email, save="done", related_object="Account", related_id="$a0.id",
            subject="Send onboarding pack", status="Completed", due_date=left, owner=leaver.email)
    d.check("done_task", role="guard", records={"from": "crm.task", "where": {"id": "$done.id"}, "count": 1,
                                                "unchanged": True})
    plan = "Handover of my accounts"
    d.setup("mail.send", by=leaver.email, to=[boss.email], subject=plan,
            body=f"Hi {boss.name.split()[0]},\n\nAs agreed, my accounts split like this: {split} accounts go to "
                 f"{heirs[0].name}, all the others to {heirs[1].name}. Everything I have open on them - deals, cases, "
                 f"tasks - should follow the account.\n\n{leaver.name.split()[0]}")
    fix = f"Re: {plan}"
    exception = accounts[swapped][0]
    d.setup("mail.send", by=heir_of[swapped].email, to=[boss.email], subject=fix,
            body=f"Hi {boss.name.split()[0]},\n\nOne change, as we discussed: I will take {exception}, since I "
                 f"already know their team. The rest of the split stands.\n\n{heir_of[swapped].name.split()[0]}")
    d.allow("crm_contact", "update", ["owner"])
    d.distractors = 3
    d.title = f"Hand over {leaver.name}'s book"
    d.prompt = (f"{leaver.name} has left. Hand their book over as agreed - everything still open should move - and "
                "let each customer's contact know who looks after them now.")
    d.tags.append("long-horizon")


FAMILIES = [
    Family("sales-dedupe-accounts", "merge customers entered twice by the hygiene rule (keep the one with deals, "
           "move contacts, delete the other), leaving look-alike separate entities", ("mail", "crm"), "validation",
           dedupe_accounts),
    Family("sales-lead-routing", "route 35-48 new leads to owners by a routing sheet that a later mail amends, "
           "leaving leads already worked", ("docs", "mail", "crm"), "train", lead_routing),
    Family("sales-stale-deals", "apply a pipeline-hygiene note to a rep's past-due deals: close early ones, push "
           "late ones to quarter end with a task, leave the rest", ("docs", "crm"), "train", stale_deals),
    Family("sales-book-handover", "hand a departing rep's accounts, open deals, cases and tasks to two successors "
           "by a split a later mail amends, and tell every customer", ("mail", "crm"), "test", book_handover),
]


PROMISES = [("security questionnaire", "security"), ("revised pricing", "pricing"), ("customer references",
            "references"), ("statement of work", "sow"), ("integration demo", "demo"), ("ROI model", "roi"),
            ("draft contract", "contract")]


def meeting_followups(d: Draft) -> None:
    """Log a CRM task on each customer's deal for every commitment we made in this week's next-steps threads, by
    its date - not the customer's own commitments, and not the ones we took back later."""
    view = d.view
    days = view.workdays(view.today, 15)
    threads = d.rng.randint(3, 5)
    names = []
    for k in range(threads):
        acct = new_customer(d, d.actor, save=f"acct{k}")
        names.append(acct.name)
        d.setup("crm.create_opportunity", save=f"deal{k}", account_id=f"{acct.ref}.id", name=f"{acct.name} - platform",
                stage=d.rng.choice(LATE), amount=round_to(d.rng.randint(30, 250) * 1000),
                close_date=quarter_end(view.today), owner=d.actor)
        picks = d.rng.sample(PROMISES, d.rng.randint(4, 6))
        ours = [(what, key, d.rng.choice(days)) for what, key in picks[:-1]]
        theirs = picks[-1]
        dropped = ours.pop(d.rng.randrange(len(ours))) if k % 2 == 0 else None
        text = "\n".join(f"- we send you the {what} by {day:%A %B} {day.day}"
                         for what, _, day in ours + ([dropped] if dropped else []))
        subject = f"{acct.name} - next steps"
        first = acct.contact.split()[0]
        d.setup("mail.send", by=acct.email, to=[d.actor], subject=subject,
                body=f"Hi,\n\nThanks for today's meeting. On our side, we will get you our {theirs[0]} by "
                     f"{d.rng.choice(days):%A %B %d}. Can you confirm what you'll send us?\n\n{acct.contact}")
        d.setup("mail.send", to=[acct.email], subject=f"Re: {subject}",
                body=f"Hi {first},\n\nThank you. To confirm what we agreed:\n{text}\n\nBest regards")
        if dropped:
            d.setup("mail.send", to=[acct.email], subject=f"Re: {subject}",
                    body=f"Hi {first},\n\nOne correction: we won't be sending the {dropped[0]} after all - your team "
                         "said it is not needed. Everything else stands.\n\nBest regards")
        d.do("mail.search", query=f"{acct.name} next steps")
        d.do("crm.search", text=acct.name)
        for n, (what, key, day) in enumerate(ours):
            d.check(f"task_{k}_{n}", records={"from": "crm.task", "where": {
                "related_id": f"$deal{k}.id", "related_object": "Opportunity", "due_date": {"date": day.isoformat()},
                "subject": {"any_of": [{"tokens": [key]}, {"phrase": what}]}}, "created": True, "count": 1,
                "expect": {"owner": "$actor"}})
            d.do("crm.create_task", related_object="Opportunity", related_id=f"$deal{k}.id",
                 subject=f"Send the {what}", due_date=day)
        d.check(f"only_ours_{k}", records={"from": "crm.task", "where": {"related_id": f"$deal{k}.id"},
                                           "created": True, "count": len(ours)})
    d.distractors = threads + (threads + 1) // 2
    d.title = "Track what we promised customers this week"
    d.prompt = ("Make sure everything we committed to in this week's next-steps threads with customers ("
                + ", ".join(names) + ") is tracked as tasks on their deals, due when we said.")
    d.tags.append("followups")


def contact_changes(d: Draft) -> None:
    """Bring a customer's contacts in line with their mail: a new domain for every address (as corrected by a later
    mail), a new title, and a new contact; a namesake at another customer stays as it is."""
    acct = new_customer(d, d.actor)
    old = acct.domain
    base = slug(acct.name)[:16]
    wrong, right = f"{base}-group.com", f"{base}{d.rng.choice(['.io', '-global.com', '.co'])}"
    people: list[tuple[str, str, str, str]] = [(acct.contact.split()[0], acct.contact.split()[-1], acct.email,
                                                "$c_main")]
    for n in range(d.rng.randint(2, 4)):
        first, last, email = _person(d, old)
        d.setup("crm.create_contact", save=f"c{n}", account_id=f"{acct.ref}.id", first_name=first, last_name=last,
                email=email, title=d.rng.choice(["Buyer", "IT Manager", "Controller", "Office Manager"]))
        people.append((first, last, email, f"$c{n}"))
    d.bind("c_main", "crm.contact", email=acct.email)
    promoted = d.rng.choice(people[1:])
    new_title = d.rng.choice(["Chief Financial Officer", "VP Operations", "Head of IT"])
    other = _company(d)
    d.setup("crm.create_account", save="other", name=other, type="Customer", owner=d.actor)
    d.setup("crm.create_contact", save="namesake", account_id="$other.id", first_name=promoted[0],
            last_name=promoted[1], email=f"{promoted[0].lower()}.{slug(promoted[1])}@{slug(other)[:20]}.com",
            title="Buyer")
    nf, nl, _ = _person(d, right)
    subject = f"{acct.name}: contact updates"
    d.setup("mail.send", by=acct.email, to=[d.actor], subject=subject,
            body=f"Hello,\n\nA few updates for your records:\n- We are rebranding: from Monday all our addresses move "
                 f"from @{old} to @{wrong} (same names before the @).\n- {promoted[0]} {promoted[1]} is now our "
                 f"{new_title}.\n- {nf} {nl} joins as Head of Procurement and will be your main contact for "
                 f"orders: {nf.lower()}.{slug(nl)}@{wrong}.\n\nBest,\n{acct.contact}")
    d.setup("mail.send", by=acct.email, to=[d.actor], subject=f"Re: {subject}",
            body=f"Sorry - a typo in my last mail: the new domain is @{right}, not @{wrong}.\n\n{acct.contact}")
    d.do("mail.search", query=acct.name)
    d.do("crm.search", text=acct.name)
    for first, last, email, ref in people:
        moved = email.split("@")[0] + "@" + right
        expect: dict = {"email": {"email": moved}}
        if ref == promoted[3]:
            expect["title"] = {"text": new_title}
        d.check(f"contact_{slug(first + last)}", records={"from": "crm.contact", "where": {"id": f"{ref}.id"},
                                                          "count": 1, "expect": expect})
        d.do("crm.update_contact", contact_id=f"{ref}.id", email=moved,
             title=new_title if ref == promoted[3] else None)
    d.check("newcomer", records={"from": "crm.contact", "where": {"account": acct.name, "last_name": nl},
                                 "created": True, "count": 1, "expect": {
                                     "first_name": nf, "email": {"email": f"{nf.lower()}.{slug(nl)}@{right}"},
                                     "title": {"tokens": ["procurement"]}}})
    d.do("crm.create_contact", account_id=f"{acct.ref}.id", first_name=nf, last_name=nl,
         email=f"{nf.lower()}.{slug(nl)}@{right}", title="Head of Procurement")
    d.check("namesake_kept", role="guard", records={"from": "crm.contact", "where": {"id": "$namesake.id"},
                                                    "count": 1, "unchanged": True})
    d.distractors = 2
    d.title = f"Update the {acct.name} contacts"
    d.prompt = f"{acct.contact} sent us changes on their side. Get the CRM up to date."
    d.tags.append("hygiene")


FAMILIES += [
    Family("sales-meeting-followups", "log a dated CRM task on each deal for every commitment we made in 3-5 "
           "customer threads, not theirs and not ones we withdrew", ("mail", "crm"), "train", meeting_followups),
    Family("sales-contact-changes", "apply a customer's contact changes (new domain as corrected later, a new title, "
           "a new contact), leaving a namesake elsewhere", ("mail", "crm"), "test", contact_changes),
]
