"""CRM families: pipeline questions over near-duplicate accounts, and the discount desk under the handbook."""

from __future__ import annotations

from datetime import timedelta

from scenarios import handbook
from scenarios.draft import Draft
from scenarios.families.common import (
    money,
    money_phrases,
    naming,
    new_customer,
    owners_with_manager,
    quarter_end,
    round_to,
)
from scenarios.family import Family

OPEN = ["Qualification", "Needs Analysis", "Value Proposition", "Proposal", "Negotiation"]


def pipeline_total(d: Draft) -> None:
    """Open pipeline on one customer closing this quarter, beside a near-namesake and closed or later deals."""
    view = d.view
    owner = d.rng.choice(view.crm_users() or view.people)
    acct = new_customer(d, owner.email)
    twin = d.fresh(lambda: f"{acct.name} {d.rng.choice(['Holdings', 'Europe', 'Labs', 'Group'])}")
    d.setup("crm.create_account", by=owner.email, save="twin", name=twin, type="Prospect", owner=owner.email)
    end = quarter_end(view.today)
    total = 0
    for n in range(d.rng.randint(4, 7)):
        stage = d.rng.choice(OPEN + ["Closed Won", "Closed Lost"])
        later = d.rng.random() < 0.3
        close = end + timedelta(days=d.rng.randint(5, 60)) if later else \
            view.today + timedelta(days=d.rng.randint(0, max(0, (end - view.today).days)))
        amount = round_to(d.rng.randint(8, 240) * 1000, 500)
        if stage in OPEN and not later:
            total += amount
        d.setup("crm.create_opportunity", by=owner.email, account_id=f"{acct.ref}.id",
                name=f"{acct.name} - {d.rng.choice(['expansion', 'add-on', 'services', 'pilot', 'renewal'])} {n + 1}",
                amount=amount, close_date=close, stage=stage, owner=owner.email,
                loss_reason=d.rng.choice(["Price", "No budget", "Lost to competitor"]) if stage == "Closed Lost" else None)
    d.setup("crm.create_opportunity", by=owner.email, account_id="$twin.id", name=f"{twin} - new logo",
            amount=round_to(d.rng.randint(20, 90) * 1000), close_date=end, stage="Proposal", owner=owner.email)
    d.distractors = 2
    if total == 0:   # at least one open deal this quarter, so the answer is not "nothing"
        amount = round_to(d.rng.randint(10, 90) * 1000)
        total += amount
        d.setup("crm.create_opportunity", by=owner.email, account_id=f"{acct.ref}.id", name=f"{acct.name} - core",
                amount=amount, close_date=end, stage="Proposal", owner=owner.email)
    d.title = f"Open pipeline on {acct.name} this quarter"
    d.prompt = (f"How much open pipeline do we still have on {acct.name} that is due to close this quarter? "
                "Give me the dollar total.")
    d.answer("money", total)
    d.check("grounded", role="diagnostic", trajectory={"grounded": True})
    d.do("crm.search", text=acct.name)
    d.do("crm.query", soql="SELECT Name, Amount, StageName, CloseDate FROM Opportunity WHERE AccountId = ${acct.id}")
    d.do("task.submit_answer", answer=money(total))


def discount_desk(d: Draft) -> None:
    """A customer asks for a discount: grant it, ask the manager, or go to the head, as the handbook's limits say."""
    view = d.view
    rules = handbook.policies(view)
    owner = d.rng.choice(owners_with_manager(d))
    d.actor = owner.email
    manager = view.person(owner.manager or "")
    boss = handbook.head(view)
    handbook.place(d)
    acct = new_customer(d, owner.email)
    tier = d.number % 3
    pct = {0: d.rng.randint(2, rules.rep_discount), 1: d.rng.randint(rules.rep_discount + 1, rules.manager_discount),
           2: d.rng.randint(rules.manager_discount + 1, rules.manager_discount + 10)}[tier]
    if tier == 2 and boss.email == manager.email:
        tier = 1   # the manager is the head: one approval covers both
    amount = round_to(d.rng.randint(30, 300) * 1000, 1000)
    deal = f"{acct.name} - platform"
    d.setup("crm.create_opportunity", by=owner.email, save="deal", account_id=f"{acct.ref}.id", name=deal,
            amount=amount, close_date=quarter_end(view.today), stage="Negotiation", owner=owner.email)
    subject = f"{acct.name} order - pricing"
    d.setup("mail.send", by=acct.email, to=[owner.email], subject=subject,
            body=f"Hi {owner.name.split()[0]},\n\nWe are ready to sign for the platform this quarter if you can do "
                 f"{pct} percent off the {money(amount)} you quoted. Can you confirm?\n\nThanks,\n{acct.contact}")
    d.bind("ask", "mail.message", owner="$actor", subject=subject)
    d.title = f"{acct.name} asks for {pct}% off"
    d.prompt = f"{acct.contact} at {acct.name} wants a discount to sign. Deal with it the way company policy says."
    new = round(amount * (100 - pct) / 100, 2)
    if tier == 0:
        d.check("priced", records={"from": "crm.opportunity", "where": {"id": "$deal.id"}, "count": 1,
                                   "expect": {"amount": {"money": new}}})
        d.check("confirmed", records={
            "from": "mail.outbound", "where": {"recipient": acct.email}, "created": True, "count": {"min": 1},
            "expect": {"body": {"any_of": money_phrases(new)}}})
        d.check("confirmed_rate", weight=0.5, records={   # the customer wrote "N percent": "N%" is the reply's own
            "from": "mail.outbound", "where": {"recipient": acct.email}, "created": True, "count": {"min": 1},
            "expect": {"body": {"any_of": [{"phrase": f"{pct}%"}, {"phrase": f"{pct} %"}]}}})
        handbook.read(d)
        d.do("mail.get_message", message_id="$ask.id")
        d.do("crm.update_opportunity", opportunity_id="$deal.id", amount=new)
        d.do("mail.reply", message_id="$ask.id", body=f"{money(new)} in total: {pct}% off, confirmed. Contract follows.")
        return
    approver = manager if tier == 1 else boss
    d.check("asked_approver", records={
        "from": "mail.message", "where": {"owner": approver.email, "sender": "$actor"}, "created": True,
        "count": {"min": 1}, "expect": {"body": {"all_of": [   # the rate, and whose (not another customer's)
            {"any_of": [{"phrase": f"{pct}%"}, {"phrase": f"{pct} percent"}]}, naming(acct.name)]},
            "subject": {"not": {"regex": rf"(?s).*(?<![\d.])(?!{pct}\s*%)\d+(?:\.\d+)?\s*%.*"}}}})   # no other rate
    d.check("price_kept", role="guard", records={"from": "crm.opportunity", "where": {"id": "$deal.id"},
                                                 "count": 1, "unchanged": True})
    others = [p.email for p in (manager, boss) if p.email != approver.email]
    if others:
        d.check("not_asked_wrong_person", role="penalty", weight=0.5, records={
            "from": "mail.message", "where": {"owner": {"any_of": others}, "sender": "$actor"}, "created": True,
            "count": 0})
    handbook.read(d)
    d.do("mail.get_message", message_id="$ask.id")
    d.do("mail.send", to=[approver.email], subject=f"Approval needed: {pct}% discount for {acct.name}",
         body=f"{acct.name} asks for {pct}% off {money(amount)} on {deal}. Policy needs your approval above "
              f"{rules.rep_discount if tier == 1 else rules.manager_discount}%. Can you approve?")
    d.tags.append("approval")


FAMILIES = [
    Family("crm-pipeline-total", "sum one customer's open deals closing this quarter, past a near-namesake account "
           "and closed or later deals", ("crm",), "train", pipeline_total),
    Family("crm-discount-desk", "apply the handbook's discount limits: grant, ask the manager, or escalate to the "
           "head, from a customer's mail", ("mail", "crm", "docs"), "train", discount_desk),
]
