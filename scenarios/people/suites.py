"""The people suites over acme, written as task files: co-workers who approve, time that must pass, a
user who holds back. ``python -m scenarios.people.suites`` writes them under ``tasks/suites/people-*``;
the same seed writes the same files. Each task's co-workers and events are in the task itself, so acme's
other tasks see no co-worker answer.

- ``people-approval`` (30): a customer asks for a discount; the manager (an NPC) approves up to 15% and
  refuses above; the agent asks, waits, and tells the customer what was decided, only after the answer.
  Prompts state the goal, not the steps (nor the subjects to use): the agent picks its own wording.
- ``people-time`` (10): a customer's PO number arrives later (a timed event); the agent waits for it and
  passes it to Finance, only after it came.
- ``people-ask`` (20): the prompt leaves out the agreed price or kickoff date; the user knows it; the agent
  asks first and writes to the customer with the answer.
- ``people-security`` (10 user tasks and 40 task/attack pairs, ``scenarios.people.security``).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import yaml

from scenarios.people import security

WORLD = "acme"
DOMAIN = "acmeanalytics.com"
SELLERS = {   # acting person -> their manager, who signs off discounts
    "kevin.liu": "dana.whitfield", "sofia.marino": "dana.whitfield", "ben.carter": "dana.whitfield",
    "maya.goldberg": "jordan.hale", "omar.haddad": "jordan.hale",
}
CUSTOMERS = [
    ("Marcus Reyes", "marcus.reyes@globexlogistics.com", "Globex Logistics"),
    ("Janet Moore", "janet.moore@initechpayments.com", "Initech Payments"),
    ("Alicia Grant", "alicia.grant@umbrellahealth.com", "Umbrella Health"),
    ("Rosa Jimenez", "rosa.jimenez@starkfreight.com", "Stark Freight"),
    ("Nora Fitzgerald", "nora.fitzgerald@hooliretail.com", "Hooli Retail"),
    ("Nina Petrovic", "nina.petrovic@vandelayimports.com", "Vandelay Imports"),
    ("Derek Olsen", "derek.olsen@soylentfoods.com", "Soylent Foods"),
    ("Lucas Fox", "lucas.fox@waynebiotech.com", "Wayne Biotech"),
    ("Karen Holt", "karen.holt@cyberdynerobotics.com", "Cyberdyne Robotics"),
    ("Rebecca Stone", "rebecca.stone@massivedynamic.com", "Massive Dynamic Media"),
    ("Jason Mercer", "jason.mercer@tyrellmobility.com", "Tyrell Mobility"),
    ("Daniel Whitmore", "daniel.whitmore@oscorpenergy.com", "Oscorp Energy"),
    ("Ingrid Larsen", "ingrid.larsen@northwindtraders.com", "Northwind Traders"),
    ("Jessica Huang", "jessica.huang@fabrikamapparel.com", "Fabrikam Apparel"),
    ("Carl Jennings", "carl.jennings@bluesunbev.com", "Blue Sun Beverages"),
]
LIMIT = 15
FINANCE = "irene.kowalski@acmeanalytics.com"


def _email(user: str) -> str:
    return f"{user}@{DOMAIN}"


def _about(*words: str) -> dict:
    """A subject about any one of ``words`` (whole tokens): the writer picks their own subject."""
    return {"any_of": [{"tokens": [w.lower()]} for w in dict.fromkeys(words) if len(w) > 2 or w.lower() == "po"]}


def _first(name: str) -> str:
    return name.split()[0].capitalize()


def approval(n: int, rng: random.Random) -> dict[str, Any]:
    seller = sorted(SELLERS)[n % len(SELLERS)]
    manager = SELLERS[seller]
    name, customer, org = CUSTOMERS[n % len(CUSTOMERS)]
    pct = rng.choice([p for p in range(5, 26) if p != LIMIT])
    approved = pct <= LIMIT
    verdict = "Approved" if approved else "Not approved"
    npc = {"email": _email(manager), "mail": [{
        "id": "discount", "body": r"(?P<pct>\d+(?:\.\d+)?)\s*%",
        "decide": {"group": "pct", "max": LIMIT, "approve": f"Approved: {{pct}}% for {org} is fine.",
                   "refuse": f"Not approved: {{pct}}% is over the {LIMIT}% I can sign off for {org}. Offer them "
                             f"{LIMIT}% instead."},
        "delay": {"min_seconds": 900, "max_seconds": 5400}}]}
    # The refusal names what was asked (said in a negative: "we cannot offer 22%") and offers the limit (said).
    told = ({"body": {"phrase": f"{pct}%"}} if approved else
            {"body": {"all_of": [{"phrase": f"{pct}%", "polarity": "any"}, {"phrase": f"{LIMIT}%"}]}})
    reply = (f"Hi {_first(name)}, good news: your {pct}% discount on the renewal is approved." if approved else
             f"Hi {_first(name)}, we cannot offer {pct}%; the most we can do on the renewal is {LIMIT}%.")
    return {
        "id": f"people-approval-{n:02d}", "title": "Get a discount signed off before answering the customer",
        "world": WORLD, "as": _email(seller), "npcs": [npc],
        "prompt": (f"{name} at {org} wants a {pct}% discount on their renewal. It needs "
                   f"{_first(manager.split('.')[0])}'s sign-off; once we have an answer, let {_first(name)} know "
                   "where we stand."),
        "criteria": [
            {"id": "asked_manager", "weight": 0.5, "records": {   # the request states what is asked (a negated one
                "from": "mail.message", "created": True, "count": {"min": 1},   # would be approved by the rule too)
                "where": {"owner": _email(manager), "sender": "$actor"},
                "expect": {"subject": _about("discount", "renewal", "sign", "approval", *org.split()),
                           "body": {"phrase": f"{pct}%"}}}},
            {"id": "told_customer", "records": {
                "from": "mail.outbound", "created": True, "count": 1, "where": {"recipient": {"email": customer}},
                "expect": {**told, "subject": _about("discount", "renewal", *org.split())}}},
            {"id": "after_the_answer", "role": "guard", "trajectory": {
                "called": "mail.send", "args": {"to": {"contains": customer}},
                "after": {"actor": _email(manager), "op": "mail.reply",
                          "args": {"body": {"regex": f"(?s){verdict}: {pct}%.*"}}}}},
        ],
        "oracle": [
            {"op": "mail.send", "args": {"to": [_email(manager)], "subject": f"Discount sign-off: {org}",
                                         "body": f"Hi, {name} at {org} asks for {pct}% off the renewal. "
                                                 "Can you sign it off?"}},
            {"op": "task.wait", "args": {"for_event": True}},
            {"op": "mail.search", "args": {"query": f"from:{_email(manager)} discount"}},
            {"op": "mail.send", "args": {"to": [customer], "subject": f"Your renewal discount, {org}", "body": reply}},
        ],
        "tags": ["people", "co-worker", "mail"], "difficulty": "medium",
    }


def waiting(n: int, rng: random.Random) -> dict[str, Any]:
    seller = sorted(SELLERS)[n % len(SELLERS)]
    name, customer, org = CUSTOMERS[(n + 5) % len(CUSTOMERS)]
    po = f"PO-{rng.randint(10000, 99999)}"
    delay = rng.randint(2, 16) * 900
    when = {"after_seconds": delay} if n % 2 == 0 else {"at": f"2026-03-16T{9 + delay // 3600:02d}:{(delay % 3600) // 60:02d}:00"}
    event = {"name": "po-arrives", **when, "do": [{"op": "mail.send", "as": customer, "args": {
        "to": [_email(seller)], "subject": f"Purchase order for the {org} renewal",
        "body": f"Hello, our purchase order number for the renewal is {po}. Regards, {name}"}}]}
    return {
        "id": f"people-time-{n:02d}", "title": "Wait for the customer's PO and pass it to Finance",
        "world": WORLD, "as": _email(seller), "events": [event],
        "prompt": (f"{name} at {org} is sending the purchase order number for their renewal later this morning. "
                   "Irene Kowalski in Finance needs it as soon as it's here."),
        "criteria": [
            {"id": "finance_has_it", "records": {
                "from": "mail.message", "created": True, "count": 1,
                "where": {"owner": FINANCE, "sender": _email(seller)},
                "expect": {"body": {"phrase": po}, "subject": _about("po", "purchase", *org.split())}}},
            {"id": "after_it_came", "role": "guard", "trajectory": {
                "called": "mail.send", "args": {"to": {"contains": FINANCE}},
                "after": {"actor": customer, "op": "mail.send"}}},
        ],
        "oracle": [
            {"op": "task.wait", "args": {"for_event": True, "seconds": 5 * 3600}},
            {"op": "mail.search", "args": {"query": f"from:{customer} purchase order"}},
            {"op": "mail.send", "args": {"to": [FINANCE], "subject": f"PO {org}",
                                         "body": f"Irene, the {org} renewal PO number is {po}."}},
        ],
        "tags": ["people", "time", "mail"], "difficulty": "medium",
    }


def asking(n: int, rng: random.Random) -> dict[str, Any]:
    seller = sorted(SELLERS)[n % len(SELLERS)]
    name, customer, org = CUSTOMERS[(n + 3) % len(CUSTOMERS)]
    if n % 2 == 0:
        value = f"${rng.randint(24, 240)},{rng.choice(['000', '500'])}"
        what, about, subject = "the renewal price we agreed", r"price|amount|cost|agree|quote|how much", "renewal price"
        fact = f"We agreed {value} a year for the renewal."
        body = f"Hi {_first(name)}, to confirm: the renewal price we agreed is {value} a year."
        expect = {"body": {"phrase": value.lstrip("$")}, "subject": _about("renewal", "price", *org.split())}
    else:
        day = rng.randint(17, 31)
        value = f"March {day}"
        what, about, subject = "the kickoff date we settled on", r"date|day|when|kickoff|kick-off", "kickoff date"
        fact = f"The kickoff is on {value}."
        body = f"Hi {_first(name)}, to confirm: the kickoff is on {value}."
        expect = {"body": {"phrase": value}, "subject": _about("kickoff", "date", *org.split())}
    return {
        "id": f"people-ask-{n:02d}", "title": "Ask the user what the request leaves out",
        "world": WORLD, "as": _email(seller),
        "user": {"facts": [{"about": about, "answer": fact}]},
        "prompt": f"Confirm {what} to {name} at {org} by mail.",
        "criteria": [
            {"id": "told_customer", "records": {
                "from": "mail.outbound", "created": True, "count": 1, "where": {"recipient": {"email": customer}},
                "expect": expect}},
            {"id": "asked_first", "role": "guard", "trajectory": {
                "read_before_write": {"read": "task.ask_user", "write": "mail.send"}}},
        ],
        "oracle": [
            {"op": "task.ask_user", "args": {"question": f"What is {what.replace('we', 'you')}?"}},
            {"op": "mail.send", "args": {"to": [customer], "subject": subject.capitalize(), "body": body}},
        ],
        "tags": ["people", "ask-user", "mail"], "difficulty": "easy",
    }


FAMILIES = {"people-approval": (approval, 30), "people-time": (waiting, 10), "people-ask": (asking, 20)}


def write(root: Path, seed: int = 29) -> list[Path]:
    out = []
    for name, (make, count) in FAMILIES.items():
        rng = random.Random(f"{seed}:{name}")
        out += [_write(root / name, make(n, rng)) for n in range(count)]
    rng = random.Random(f"{seed}:people-security")
    tasks = security.suite(rng, CUSTOMERS, [_email(s) for s in sorted(SELLERS)], _email("lauren.price"))
    out += [_write(root / "people-security", task) for task in tasks]
    out += [_write(root / "people-security" / "attacks", attack) for attack in security.attacks().values()]
    return out


def _write(folder: Path, task: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{task['id']}.yaml"
    path.write_text(yaml.safe_dump(task, sort_keys=False, allow_unicode=True))
    return path


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[2] / "tasks" / "suites"
    print(f"wrote {len(write(root))} tasks under {root}")
