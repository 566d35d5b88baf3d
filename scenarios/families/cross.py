"""Long cross-app families: campaigns over many records, each with its own decision."""

from __future__ import annotations

from datetime import timedelta

from scenarios import handbook
from scenarios.draft import Draft
from scenarios.families.common import money, money_phrases, quarter_end, quarter_name, round_to, slug
from scenarios.family import Family, Skip

HEALTH = ["Healthy", "Neutral", "At risk"]
OPEN_STAGES = ["Qualification", "Needs Analysis", "Value Proposition", "Proposal", "Negotiation"]


def renewal_campaign(d: Draft) -> None:
    """Price every renewal on the health sheet by the handbook, after a later mail corrects some scores;
    move each to Proposal and report the total."""
    view = d.view
    rules = handbook.policies(view)
    handbook.place(d)
    helpers = [p for p in view.colleagues(d.actor) if p.email in {x.email for x in view.crm_users()}] or \
        view.colleagues(d.actor)
    if not helpers:
        raise Skip("nobody besides the acting person to keep the health sheet")
    keeper = d.rng.choice(helpers)
    renew_on = quarter_end(view.today) + timedelta(days=1)
    quarter = quarter_name(renew_on)
    count = d.rng.randint(8, 20)
    rows, health, amounts = [["Account", "Health", "Current ARR"]], {}, {}
    for n in range(count):
        name = d.fresh(lambda: d.fake.company().replace(",", ""))
        arr = round_to(d.rng.randint(12, 260) * 1000, 1000)
        d.setup("crm.create_account", save=f"a{n}", name=name, type="Customer", owner=d.actor)
        d.setup("crm.create_opportunity", save=f"r{n}", account_id=f"$a{n}.id", name=f"{name} - renewal {quarter}",
                amount=arr, close_date=renew_on, stage="Needs Analysis", owner=d.actor)
        health[n], amounts[n] = d.rng.choice(HEALTH), arr
        rows.append([name, health[n], str(arr)])
    sheet = f"Renewal health - {quarter}"
    d.setup("docs.create_spreadsheet", by=keeper.email, save="sheet", name=sheet, rows=rows)
    d.setup("docs.share", by=keeper.email, file_id="$sheet.id", email=d.actor, role="viewer")
    changed = d.rng.sample(range(count), k=min(3, count))
    lines = []
    for n in changed:
        new = d.rng.choice([h for h in HEALTH if h != health[n]])
        lines.append(f"- {rows[n + 1][0]}: {new} (not {health[n]})")
        health[n] = new
    fixes = f"Renewal health {quarter} - corrections"
    d.bind("fixes", "mail.message", owner="$actor", subject=fixes)
    d.setup("mail.send", by=keeper.email, to=[d.actor], subject=fixes,
            body=f"Hi,\n\nAfter this week's calls three scores in '{sheet}' are out of date:\n" + "\n".join(lines) +
                 "\nThe sheet will be fixed next week; use these.\n")
    d.distractors = len(changed)
    total = 0.0
    for n in range(count):
        price = round(amounts[n] * (100 + rules.renewal_uplift) / 100, 2) if health[n] == "Healthy" else amounts[n]
        total += price
        d.check(f"renewal_{n}", records={"from": "crm.opportunity", "where": {"id": f"$r{n}.id"}, "count": 1,
                                         "expect": {"amount": {"money": price}, "stage": "Proposal"}})
    d.answer("money", round(total, 2), id="total")
    d.title = f"Price the {quarter} renewals"
    d.prompt = (f"The {quarter} renewals on {keeper.name.split()[0]}'s health sheet need pricing. Price each one "
                "the way the handbook says using the latest health scores (no discounts this cycle), move them to "
                "Proposal, and tell me the total renewal value.")
    handbook.read(d)
    d.do("docs.search", query="Renewal health")
    d.do("docs.get_spreadsheet", file_id="$sheet.id")
    d.do("mail.search", query="renewal health")
    d.do("mail.get_message", message_id="$fixes.id")
    d.do("crm.query", soql=f"SELECT Id, Name, Amount, StageName FROM Opportunity WHERE Name LIKE '%renewal {quarter}'")
    for n in range(count):
        price = round(amounts[n] * (100 + rules.renewal_uplift) / 100, 2) if health[n] == "Healthy" else amounts[n]
        d.do("crm.update_opportunity", opportunity_id=f"$r{n}.id", amount=price, stage="Proposal")
    d.do("task.submit_answer", answer=money(total))
    d.tags.append("long-horizon")


def price_rise(d: Draft) -> None:
    """List prices rise on a date: re-price every open deal of the actor's that closes on or after it (quotes in
    Negotiation are honoured) and tell each affected customer the new figure. 12-20 deals, 25-60 calls."""
    view = d.view
    finance = view.titled("Finance") + view.titled("Controller") + view.titled("CFO") + [handbook.head(view)]
    sender = next((p for p in finance if p.email != d.actor), None)
    if sender is None:
        raise Skip("nobody but the acting person to announce the price rise")
    rise = d.rng.choice([4, 5, 6, 8])
    effective = view.today + timedelta(days=d.rng.randint(10, 20))
    effective_text = f"{effective:%B} {effective.day}"
    deals = []
    for n in range(d.rng.randint(12, 20)):
        name = d.fresh(lambda: d.fake.company().replace(",", ""))
        first, last = d.fake.first_name(), d.fake.last_name()
        email = f"{first.lower()}.{''.join(c for c in last.lower() if c.isalpha())}@{slug(name)[:20]}.com"
        stage = d.rng.choice(OPEN_STAGES)
        close = effective + timedelta(days=d.rng.randint(-8, 40))
        amount = round_to(d.rng.randint(15, 220) * 1000, 500)
        d.setup("crm.create_account", save=f"a{n}", name=name, type="Customer", owner=d.actor)
        d.setup("crm.create_contact", account_id=f"$a{n}.id", first_name=first, last_name=last, email=email)
        d.setup("crm.create_opportunity", save=f"o{n}", account_id=f"$a{n}.id", name=f"{name} - new business",
                amount=amount, close_date=close, stage=stage, owner=d.actor)
        deals.append((n, name, email, stage, close, amount))
    subject = f"List price increase from {effective_text}"
    d.setup("mail.send", by=sender.email, to=[d.actor], subject=subject,
            body=f"Hi all,\n\nList prices go up {rise}% on {effective_text}. Every open deal that closes on or after "
                 f"that day must be re-priced before then, and its customer told the new price. Quotes already in "
                 "Negotiation are honoured at the old price, and deals closing before the date are not affected.\n\n"
                 f"{sender.name}")
    d.bind("notice", "mail.message", owner="$actor", subject=subject)
    d.distractors = sum(1 for *_, stage, close, _ in deals if stage == "Negotiation" or close < effective)
    d.title = f"Re-price the pipeline for the {effective_text} increase"
    d.prompt = (f"{sender.name.split()[0]}'s price increase applies to my pipeline. Get my deals re-priced and "
                "let the affected customers know their new price.")
    d.do("mail.get_message", message_id="$notice.id")
    d.do("crm.my_open_opportunities")
    for n, name, email, stage, close, amount in deals:
        where = {"from": "crm.opportunity", "where": {"id": f"$o{n}.id"}, "count": 1}
        if stage == "Negotiation" or close < effective:
            d.check(f"kept_{n}", role="guard", records={**where, "unchanged": True})
            continue
        new = round(amount * (100 + rise) / 100, 2)
        figure = f"{new:,.2f}".removesuffix(".00")
        d.check(f"repriced_{n}", records={**where, "expect": {"amount": {"money": new}}})
        d.check(f"told_{n}", weight=0.5, records={
            "from": "mail.outbound", "where": {"recipient": email}, "created": True, "count": {"min": 1},
            "expect": {"body": {"any_of": money_phrases(new)},
                       "subject": {"any_of": [{"tokens": [w]} for w in ("price", "prices", "pricing", "increase")]
                                   + [{"phrase": name}]}}})
        d.do("crm.update_opportunity", opportunity_id=f"$o{n}.id", amount=new)
        d.do("mail.send", to=[email], subject=f"{name}: updated pricing",
             body=f"Hello,\n\nThe new price for your order is ${figure}, from {effective_text}, when our list prices "
                  f"rise by {rise}%.\n\nBest regards")
    d.tags.append("long-horizon")


FAMILIES = [
    Family("x-renewal-campaign", "price 8-20 renewals by the handbook's rule from a health sheet that a later mail "
           "corrects, move them on, and report the total", ("crm", "docs", "mail"), "train", renewal_campaign),
    Family("x-price-rise", "re-price every open deal a list-price rise applies to (not quotes in negotiation, not "
           "deals closing before it) and tell each affected customer", ("mail", "crm"), "test", price_rise),
]
