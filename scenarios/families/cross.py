"""Long cross-app families: campaigns over many records, each with its own decision."""

from __future__ import annotations

from datetime import timedelta

from scenarios import handbook
from scenarios.draft import Draft
from scenarios.families.common import money, quarter_end, quarter_name, round_to
from scenarios.family import Family, Skip

HEALTH = ["Healthy", "Neutral", "At risk"]


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
    d.do("docs.search", query="handbook")
    d.do("docs.read_file", file_id="$handbook.id")
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


FAMILIES = [
    Family("x-renewal-campaign", "price 8-20 renewals by the handbook's rule from a health sheet that a later mail "
           "corrects, move them on, and report the total", ("crm", "docs", "mail"), "train", renewal_campaign),
]
