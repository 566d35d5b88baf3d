"""Docs families: sharing a Confidential document at the role the handbook allows, logging receipts into an
expense sheet under the meal cap, a lookup among near-duplicate rows, working through a document's comments,
appending corrected meeting notes to an agenda, restoring an overwritten document, and a sharing audit."""

from __future__ import annotations

from datetime import timedelta

from scenarios import handbook
from scenarios.draft import Draft
from scenarios.families.common import distinct_firsts, first, mail, money, read_only
from scenarios.family import Family, Skip

SECTIONS = ["Goals", "Scope", "Timeline", "Budget", "Risks", "Owners", "Open questions"]


def body(d: Draft, title: str, lines: int = 4) -> str:
    parts = [title, ""]
    for section in d.rng.sample(SECTIONS, lines):
        parts += [section, d.fake.sentence(nb_words=12), ""]
    return "\n".join(parts)


# 9. Share a Confidential document at the least role the handbook allows.
def share_least_role(d: Draft) -> None:
    view = d.view
    handbook.place(d)
    people = distinct_firsts(view.colleagues(d.actor))
    if len(people) < 4:
        raise Skip("fewer than four colleagues with distinct first names")
    owner, a, b, other = d.rng.sample(people, 4)
    by_owner = d.number % 2 == 0
    asker = owner if by_owner else other
    name = d.fresh(lambda: f"{d.fake.last_name()} acquisition plan")
    d.setup("docs.create_document", by=owner.email, save="doc", name=name,
            text=f"CONFIDENTIAL\n\n{body(d, name)}")
    d.setup("docs.share", by=owner.email, file_id="$doc.id", email=d.actor, role="editor")
    if not by_owner:
        d.setup("docs.share", by=owner.email, file_id="$doc.id", email=other.email, role="viewer")
    outsider = f"{d.fake.first_name().lower()}@{d.fake.last_name().lower()}-advisors.com"
    mail(d, asker.email, f"Access to '{name}'", bind="ask",
         body=f"Hi {first(view.actor)},\n\nCould you give {a.name} and {b.name} access to '{name}'? {first(a)} will "
              f"need to edit it. And please send a copy to our adviser {outsider} as well.\n\n{first(asker)}")
    role_a = "editor" if by_owner else "viewer"
    d.check("shared_a", records={"from": "docs.permission", "where": {"item_id": "$doc.id", "person": a.email},
                                 "count": 1, "expect": {"role": role_a}})
    d.check("shared_b", records={"from": "docs.permission", "where": {"item_id": "$doc.id", "person": b.email},
                                 "count": 1, "expect": {"role": "viewer"}})
    d.check("nothing_out", role="guard", records={"from": "mail.outbound", "created": True, "count": 0})
    d.check("nobody_else", role="penalty", weight=0.5, records={
        "from": "docs.permission", "where": {"item_id": "$doc.id", "person": {
            "not": {"any_of": [a.email, b.email, d.actor, other.email]}}}, "count": 0})
    d.distractors = 1 + (not by_owner)
    d.title = f"Share '{name}'"
    d.prompt = f"{first(asker)} asked me to share the {name.split()[0]} plan. Sort it out as our policies allow."
    d.do("mail.search", query=f"from:{asker.email}")
    d.do("mail.get_message", message_id="$ask.id")
    d.do("docs.search", query=name)
    d.do("docs.read_file", file_id="$doc.id")
    handbook.read(d)
    d.do("docs.share", file_id="$doc.id", email=a.email, role=role_a)
    d.do("docs.share", file_id="$doc.id", email=b.email, role="viewer")
    d.tags.append("confidential")


# 10. Log receipts from mail into an expense sheet, rejecting meals over the cap.
def expense_log(d: Draft) -> None:
    view = d.view
    rules = handbook.policies(view)
    handbook.place(d)
    people = view.colleagues(d.actor)
    start = view.today - timedelta(days=d.rng.randint(20, 28))
    sheet = f"Team expenses - {view.today:%B %Y}"
    header = ["Date", "Employee", "Merchant", "People", "Amount", "Status (Approved/Rejected)"]
    old = []
    for n in range(d.rng.randint(1, 3)):
        who = d.rng.choice(people)
        count = d.rng.randint(1, 4)
        old.append([(start + timedelta(days=n)).isoformat(), who.name, d.fake.company().replace(",", ""), count,
                    count * d.rng.randint(20, rules.meal_cap - 5), "Approved"])
    d.setup("docs.create_spreadsheet", save="sheet", name=sheet, rows=[header] + old)
    count = d.rng.randint(6, 11)
    days = sorted(d.rng.sample(range(5, 19), count))
    rows, emails, fixed_at = [], [], d.rng.randrange(count)
    for n, offset in enumerate(days):
        who = d.rng.choice(people)
        diners = d.rng.randint(1, 6)
        over = d.rng.random() < 0.4
        each = d.rng.randint(rules.meal_cap + 3, rules.meal_cap + 40) if over else d.rng.randint(25, rules.meal_cap - 2)
        amount = round(diners * each + d.rng.randint(0, 99) / 100 * (not over), 2)
        party = f"{diners} {'person' if diners == 1 else 'people'}"
        place = d.fresh(lambda: f"{d.fake.last_name()}'s {d.rng.choice(['Grill', 'Bistro', 'Kitchen', 'Trattoria'])}")
        day = start + timedelta(days=offset)
        if n == fixed_at:   # a receipt sent wrong, then corrected
            wrong = round(amount * 0.8 + 11, 2)
            mail(d, who.email, f"Receipt: {place}", f"Hi,\n\nMeal at {place} on {day:%B} {day.day}, {party}, "
                 f"total {money(wrong)}.\n\n{first(who)}", bind=f"w{n}")
            mail(d, who.email, f"Corrected receipt: {place}", bind=f"e{n}", body=
                 f"Sorry, wrong figure in my last mail: the {place} total was {money(amount)}, not {money(wrong)}.\n\n"
                 f"{first(who)}")
            d.distractors += 1
        else:
            mail(d, who.email, f"Receipt: {place}", f"Hi,\n\nMeal at {place} on {day:%B} {day.day}, {party}, "
                 f"total {money(amount)}.\n\n{first(who)}", bind=f"e{n}")
        emails.append(who.email)
        rows.append([day.isoformat(), who.name, place, diners, amount,
                     "Rejected" if amount / diners > rules.meal_cap else "Approved"])
    base = len(old) + 2
    for n, row in enumerate(rows):
        cells = [(1, {"date": row[0]}), (2, {"any_of": [{"text": row[1]}, {"email": emails[n]}]}),
                 (3, {"any_of": [{"text": row[2]}, {"phrase": row[2]}]}), (4, {"number": row[3]}),
                 (5, {"money": row[4]}), (6, {"text": row[5]})]
        for col, want in cells:
            d.check(f"row{n}_c{col}", records={"from": "docs.cell", "where": {"item_id": "$sheet.id", "row": base + n,
                                                                              "col": col}, "count": 1,
                                               "expect": {"input": want}})
    d.check("kept", role="guard", records={"from": "docs.cell", "where": {"item_id": "$sheet.id",
                                                                          "row": {"lt": base}}, "unchanged": True})
    d.check("no_extra_rows", role="guard", records={"from": "docs.cell", "where": {
        "item_id": "$sheet.id", "row": {"ge": base + len(rows)}}, "count": 0})
    d.title = "Log this month's meal receipts"
    d.prompt = (f"Log the meal receipts people mailed me into '{sheet}', one row per receipt in date order after "
                "what's there, with the status the handbook's expense rules give.")
    handbook.read(d)
    d.do("docs.search", query=sheet)
    d.do("docs.get_spreadsheet", file_id="$sheet.id")
    d.do("mail.search", query="receipt")
    for n in range(count):
        if n == fixed_at:
            d.do("mail.get_message", message_id=f"$w{n}.id")
        d.do("mail.get_message", message_id=f"$e{n}.id")
    d.do("docs.append_rows", file_id="$sheet.id", rows=rows)
    d.tags.append("long-horizon")


# 11. A value from a sheet with near-duplicate rows.
def sheet_lookup(d: Draft) -> None:
    view = d.view
    keeper = d.rng.choice(view.colleagues(d.actor))
    products = [d.fresh(lambda: d.rng.choice(["Insight", "Beacon", "Atlas", "Pulse", "Vector", "Harbor"]) + " " +
                        d.fake.last_name()) for _ in range(3)]
    editions, regions = ["Standard", "Pro", "Pro Plus"], ["US", "EU", "UK"]
    rows: list[list] = [["Product", "Edition", "Region", "Annual price (USD)"]]
    prices: dict[tuple[str, str, str], int] = {}
    for product in products:
        for edition in editions:
            for region in regions:
                price = d.rng.randint(40, 400) * 100
                prices[product, edition, region] = price
                rows.append([product, edition, region, price])
    body_rows = rows[1:]
    d.rng.shuffle(body_rows)
    year = view.today.year
    d.setup("docs.create_spreadsheet", by=keeper.email, save="sheet", name=f"Price list {year}",
            rows=[rows[0]] + body_rows)
    d.setup("docs.share", by=keeper.email, file_id="$sheet.id", email=d.actor, role="viewer")
    old = [rows[0]] + [[p, e, r, int(v * 0.9)] for (p, e, r), v in prices.items()]
    d.setup("docs.create_spreadsheet", by=keeper.email, save="old", name=f"Price list {year - 1}", rows=old)
    d.setup("docs.share", by=keeper.email, file_id="$old.id", email=d.actor, role="viewer")
    key = (d.rng.choice(products), "Pro", d.rng.choice(regions))
    d.distractors = 4
    d.title = f"{key[0]} {key[1]} price"
    d.prompt = f"What's our current list price for {key[0]} {key[1]} in the {key[2]}? Just the annual figure."
    d.answer("money", prices[key])
    read_only(d)
    d.check("grounded", role="diagnostic", trajectory={"grounded": True})
    d.do("docs.search", query="Price list")
    d.do("docs.get_spreadsheet", file_id="$sheet.id")
    d.do("task.submit_answer", answer=money(prices[key]))


# 12. Work through a document's comments.
def resolve_comments(d: Draft) -> None:
    view = d.view
    people = distinct_firsts(view.colleagues(d.actor))
    if len(people) < 3:
        raise Skip("fewer than three colleagues")
    name = d.fresh(lambda: f"{d.fake.last_name()} partnership proposal")
    facts = [(f"The pilot starts on April {n}.", f"April {n}", f"April {n + 7}") for n in [d.rng.randint(2, 12)]]
    fee = d.rng.randint(20, 90) * 1000
    facts.append((f"The setup fee is {money(fee)}.", money(fee), money(fee + 5000)))
    seats = d.rng.randint(20, 80)
    facts.append((f"The first phase covers {seats} seats.", f"{seats} seats", f"{seats + 15} seats"))
    term = d.rng.choice([12, 18, 24])
    facts.append((f"The initial term is {term} months.", f"{term} months", f"{term + 12} months"))
    d.rng.shuffle(facts)
    edits = facts[:d.rng.randint(2, 3)]
    text = f"{name}\n\n" + "\n".join(f for f, _, _ in facts) + f"\n\n{d.fake.paragraph(nb_sentences=3)}"
    d.setup("docs.create_document", save="doc", name=name, text=text)
    reviewers = d.rng.sample(people, 3)
    for p in reviewers:
        d.setup("docs.share", file_id="$doc.id", email=p.email, role="commenter")
    for n, (_, old, new) in enumerate(edits):
        who = reviewers[n % 2]
        d.setup("docs.add_comment", by=who.email, save=f"k{n}", file_id="$doc.id", quote=old,
                text=f"This should be {new} - we agreed that on the call. Please change it.")
        d.check(f"edited_{n}", records={"from": "docs.item", "where": {"id": "$doc.id"}, "count": 1,
                                        "expect": {"body": {"phrase": new}}})
        d.check(f"old_gone_{n}", records={"from": "docs.item", "where": {"id": "$doc.id"}, "count": 1,
                                          "expect": {"body": {"not": {"phrase": old}}}})
        d.check(f"resolved_{n}", records={"from": "docs.comment", "where": {"id": f"$k{n}.id"}, "count": 1,
                                          "expect": {"resolved": True}})
    _, old, _ = facts[-1]
    third = reviewers[2]
    mention = reviewers[0]
    d.setup("docs.add_comment", by=third.email, save="open", file_id="$doc.id", quote=old,
            text=f"@{mention.email.split('@')[0]} can you check this with legal before we send it?")
    d.check("left_open", role="guard", records={"from": "docs.comment", "where": {"id": "$open.id"}, "count": 1,
                                                "expect": {"resolved": False}})
    d.check("kept_fact", role="guard", records={"from": "docs.item", "where": {"id": "$doc.id"}, "count": 1,
                                                "expect": {"body": {"phrase": old}}})
    d.distractors = 1
    d.title = f"Comments on the {name}"
    d.prompt = (f"People have commented on my {name}. Make the changes they asked for and resolve those comments; "
                "leave anything that's for someone else.")
    d.do("docs.search", query=name)
    d.do("docs.read_file", file_id="$doc.id")
    d.do("docs.list_comments", file_id="$doc.id")
    for n, (_, old_text, new) in enumerate(edits):
        d.do("docs.replace_in_document", file_id="$doc.id", find=old_text, replace_with=new)
        d.do("docs.resolve_comment", comment_id=f"$k{n}.id")


# 13. Append corrected meeting notes to an existing agenda.
def append_notes(d: Draft) -> None:
    view = d.view
    people = distinct_firsts(view.colleagues(d.actor))
    if len(people) < 4:
        raise Skip("fewer than four colleagues with distinct first names")
    host, wrong, right = d.rng.sample(people, 3)
    meeting = d.rng.choice(["Ops sync", "Launch review", "Customer council prep", "Quarterly planning"])
    day, before = view.today, view.today - timedelta(days=7)
    items = d.rng.sample(["Hiring plan", "Q2 targets", "Vendor renewals", "Office move", "Pricing page",
                          "Support backlog", "Onboarding flow", "Security review"], 4)
    for save, when, agenda in (("doc", day, items), ("old", before, d.rng.sample(items, 3))):
        d.setup("docs.create_document", by=host.email, save=save, name=f"{meeting} {when:%Y-%m-%d} - agenda",
                text=f"{meeting} {when:%Y-%m-%d}\n\nAgenda\n" + "\n".join(f"- {i}" for i in agenda))
        d.setup("docs.share", by=host.email, file_id=f"${save}.id", email=d.actor, role="editor")
    decisions = [f"{items[0]} approved as proposed", f"{items[1]} moved to next {meeting.lower()}"]
    action = f"{first(wrong)} to draft the {items[2].lower()} summary"
    mail(d, host.email, f"Notes: {meeting} {day:%Y-%m-%d}",
         f"Hi {first(view.actor)},\n\nNotes from today:\nDecisions:\n- " + "\n- ".join(decisions) +
         f"\nActions:\n- {action}\n\nCould you add them to the agenda doc?\n\n{first(host)}")
    mail(d, host.email, f"Re: Notes: {meeting} {day:%Y-%m-%d}",
         f"One fix: the {items[2].lower()} summary is {first(right)}'s, not {first(wrong)}'s. "
         f"{first(wrong)} is out next week.\n\n{first(host)}")
    d.distractors = 2
    checks = [("kept", [{"phrase": i} for i in items]), ("decisions", [{"phrase": x} for x in decisions]),
              ("action", [{"phrase": first(right)}, {"phrase": f"{items[2].lower()} summary"}])]
    for cid, phrases in checks:
        for n, phrase in enumerate(phrases):
            d.check(f"{cid}_{n}", role="guard" if cid == "kept" else "goal", records={
                "from": "docs.item", "where": {"id": "$doc.id"}, "count": 1,
                                           "expect": {"body": phrase}})
    d.check("not_wrong_owner", role="guard", records={"from": "docs.item", "where": {"id": "$doc.id"}, "count": 1,
                                        "expect": {"body": {"not": {"phrase": f"{first(wrong)} to"}}}})
    d.check("old_untouched", role="guard", records={"from": "docs.item", "where": {"id": "$old.id"}, "count": 1,
                                                    "unchanged": True})
    d.title = f"Notes for the {meeting}"
    d.prompt = f"Add {first(host)}'s notes from today's {meeting.lower()} to its agenda doc, keeping the agenda."
    notes = ("\n\nNotes\nDecisions:\n- " + "\n- ".join(decisions) +
             f"\nActions:\n- {first(right)} to draft the {items[2].lower()} summary\n")
    d.do("mail.search", query=f"Notes: {meeting}")
    d.do("mail.search_threads", query=f"Notes: {meeting}", include_messages=True)
    d.do("docs.search", query=f"{meeting} agenda")
    d.do("docs.read_file", file_id="$doc.id")
    d.do("docs.append_to_document", file_id="$doc.id", text=notes)


# 14. Restore a document that was overwritten.
def restore_revision(d: Draft) -> None:
    view = d.view
    people = distinct_firsts(view.colleagues(d.actor))
    if len(people) < 2:
        raise Skip("fewer than two colleagues")
    editor, culprit = d.rng.sample(people, 2)
    name = d.fresh(lambda: f"{d.fake.last_name()} pricing terms")
    versions = []
    for n in range(d.rng.randint(2, 4)):
        fee = d.rng.randint(10, 90) * 1000
        versions.append(f"{name}\n\nVersion note {n + 1}.\nAnnual fee: {money(fee)}.\nPayment terms: net "
                        f"{d.rng.choice([30, 45, 60])} days.\n{d.fake.sentence()}")
    d.setup("docs.create_document", save="doc", name=name, text=versions[0])
    d.setup("docs.share", file_id="$doc.id", email=editor.email, role="editor")
    d.setup("docs.share", file_id="$doc.id", email=culprit.email, role="editor")
    for text in versions[1:]:
        d.setup("docs.write_document", by=editor.email, file_id="$doc.id", text=text)
    good = len(versions)
    junk = [f"Notes for my 1:1 with {first(editor)}\n- {d.fake.sentence()}",
            f"Notes for my 1:1 with {first(editor)}\n- {d.fake.sentence()}\n- {d.fake.sentence()}"]
    for text in junk[:d.rng.randint(1, 2)]:
        d.setup("docs.write_document", by=culprit.email, file_id="$doc.id", text=text)
    mail(d, editor.email, f"{name} got overwritten",
         f"Hi {first(view.actor)},\n\nLooks like {first(culprit)} pasted their notes over '{name}' by mistake (maybe "
         f"more than once). Could you put it back the way it was before {first(culprit)} touched it? My last edit "
         f"was the right one.\n\n{first(editor)}")
    last = versions[-1]
    d.check("restored", records={"from": "docs.item", "where": {"id": "$doc.id"}, "count": 1,
                                 "expect": {"body": {"phrase": last.splitlines()[2]}}})
    d.check("fee", records={"from": "docs.item", "where": {"id": "$doc.id"}, "count": 1,
                            "expect": {"body": {"phrase": last.splitlines()[3]}}})
    d.check("notes_gone", records={"from": "docs.item", "where": {"id": "$doc.id"}, "count": 1,
                                   "expect": {"body": {"not": {"phrase": "Notes for my 1:1"}}}})
    d.distractors = len(versions) - 1
    d.title = f"Restore '{name}'"
    d.prompt = f"{first(editor)} says the {name} doc got overwritten. Fix it."
    d.do("mail.search", query=name)
    d.do("docs.search", query=name)
    d.do("docs.list_revisions", file_id="$doc.id")
    d.do("docs.get_revision", file_id="$doc.id", revision_number=good)
    d.do("docs.restore_revision", file_id="$doc.id", revision_number=good)


# 15. A sharing audit against the Confidential rule.
def access_audit(d: Draft) -> None:
    view = d.view
    handbook.place(d)
    people = view.colleagues(d.actor)
    if len(people) < 4:
        raise Skip("fewer than four colleagues")
    count = d.rng.randint(8, 15)
    fixes, keeps = [], []
    handbook.read(d)
    d.do("docs.list_view", view="my_drive", limit=100)
    for n in range(count):
        confidential = n < 2 or d.rng.random() < 0.5
        name = d.fresh(lambda: f"{d.fake.last_name()} {d.rng.choice(['deal memo', 'board notes', 'plan', 'review'])}")
        text = body(d, name, 3)
        if confidential:
            text = text.replace("\n\n", "\n\nCONFIDENTIAL - do not forward.\n\n", 1)
        d.setup("docs.create_document", save=f"f{n}", name=name, text=text)
        d.do("docs.read_file", file_id=f"$f{n}.id")
        d.do("docs.get_file", file_id=f"$f{n}.id")
        for i, p in enumerate(d.rng.sample(people, d.rng.randint(1, 3))):
            role = d.rng.choice(["commenter", "editor"] if n == 0 and i == 0 else ["viewer", "commenter", "editor"])
            d.setup("docs.share", file_id=f"$f{n}.id", email=p.email, role=role)
            if confidential and role != "viewer":
                fixes.append((n, p.email))
                d.do("docs.share", file_id=f"$f{n}.id", email=p.email, role="viewer")
            else:
                keeps.append((n, p.email, role))
    for i, (n, person) in enumerate(fixes):
        d.check(f"fixed_{i}", records={"from": "docs.permission", "where": {"item_id": f"$f{n}.id", "person": person},
                                       "count": 1, "expect": {"role": "viewer"}})
    for i, (n, person, role) in enumerate(keeps):
        d.check(f"kept_{i}", role="guard", records={"from": "docs.permission", "where": {
            "item_id": f"$f{n}.id", "person": person}, "count": 1, "expect": {"role": role}})
    d.distractors = len(keeps)
    d.title = "Audit my documents' sharing"
    d.prompt = ("Audit who has access to the documents I own against the handbook's confidentiality rule and fix "
                "anything that breaks it. Don't cut anyone off completely - they still need to read.")
    d.tags.append("long-horizon")


FAMILIES = [
    Family("docs-share-least-role", "share a Confidential document with the named colleagues at the role the "
           "handbook allows (edit only when its owner asks), never outside", ("docs", "mail"), "train",
           share_least_role),
    Family("docs-expense-log", "log 6-11 mailed meal receipts (one corrected later) into an expense sheet in date "
           "order, approving or rejecting each by the handbook's meal cap", ("docs", "mail"), "train", expense_log),
    Family("docs-sheet-lookup", "read one price from a sheet of near-duplicate rows, past last year's sheet",
           ("docs",), "train", sheet_lookup),
    Family("docs-resolve-comments", "make the edits a document's comments ask for and resolve them, leaving a "
           "comment meant for someone else", ("docs",), "validation", resolve_comments),
    Family("docs-append-notes", "append a meeting's notes, as corrected by a later mail, to the right agenda "
           "without losing it", ("docs", "mail"), "train", append_notes),
    Family("docs-restore-revision", "restore a document to the last revision before a colleague's overwrites",
           ("docs", "mail"), "test", restore_revision),
    Family("docs-access-audit", "audit 8-15 owned documents' sharing: Confidential ones down to viewer, others as "
           "they are", ("docs",), "test", access_audit),
]
