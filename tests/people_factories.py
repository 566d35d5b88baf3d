"""Tasks over the small world (``factories.make_world``) with events and co-workers, written per test."""

from __future__ import annotations

from pathlib import Path

DANA = "dana@small.test"
RAVI = "ravi@small.test"
MEI = "mei@small.test"
SAM = "sam@globex.example"

DANA_APPROVES = {
    "email": DANA,
    "mail": [{"id": "discount", "body": r"(?P<pct>\d+)\s*%",
              "decide": {"group": "pct", "max": 15, "approve": "Approved: {pct}% is fine for Globex.",
                         "refuse": "No, {pct}% is over my 15% limit."},
              "delay": {"min_seconds": 600, "max_seconds": 3600}},
             {"id": "ack", "reply": "Thanks {sender_name}, noted."}],
}


def approval_task(world: Path, pct: int = 12) -> dict:
    """Ravi asks Dana (an NPC) to approve a discount, waits for her answer, then tells Sam."""
    return {
        "id": f"approval-{pct}", "world": str(world), "as": RAVI, "npcs": [DANA_APPROVES],
        "prompt": f"Get Dana's approval for a {pct}% Globex discount, then tell Sam it is approved.",
        "criteria": [{"id": "told_sam", "records": {
            "from": "mail.outbound", "created": True, "count": 1, "where": {"recipient": {"email": SAM}},
            "expect": {"body": {"phrase": f"{pct}%"}, "subject": {"tokens": ["discount"]}}}},
                     {"id": "after_approval", "role": "guard", "trajectory": {
                         "called": "mail.send", "args": {"to": {"contains": SAM}},
                         "after": {"actor": DANA, "op": "mail.reply", "args": {"body": {"regex": "(?s)Approved.*"}}}}}],
        "oracle": [{"op": "mail.send", "args": {"to": [DANA], "subject": "Globex discount",
                                                "body": f"Can I give Globex {pct}% off the renewal?"}},
                   {"op": "task.wait", "args": {"for_event": True}},
                   {"op": "mail.search", "args": {"query": "from:dana approved"}},
                   {"op": "mail.send", "args": {"to": [SAM], "subject": "Your discount",
                                                "body": f"Sam, your {pct}% discount is approved."}}],
    }


def po_task(world: Path) -> dict:
    """A customer's mail arrives an hour in (a timed event); the agent must wait for it and forward it."""
    return {
        "id": "po-arrives", "world": str(world), "as": RAVI,
        "events": [
            {"name": "sam-sends-po", "after_seconds": 3600,
             "do": [{"op": "mail.send", "as": SAM, "args": {"to": [RAVI], "subject": "PO for the renewal",
                                                             "body": "Our PO number is 4471."}}]},
            {"name": "mei-thanks", "when": {"from": "mail.message", "where": {"owner": MEI, "subject": "PO"}},
             "do": [{"op": "mail.send", "as": MEI, "args": {"to": [RAVI], "subject": "Got it",
                                                             "body": "Thanks, PO filed."}}]},
            {"name": "nudge", "after_seconds": 7200, "when": {"from": "mail.message", "none": True,
                                                             "where": {"owner": MEI, "subject": "PO"}},
             "do": [{"op": "mail.send", "as": DANA, "args": {"to": [RAVI], "subject": "PO?",
                                                              "body": "Did the PO come in?"}}]},
        ],
        "prompt": "Sam will send the PO number this morning: forward it to Mei when it comes.",
        "criteria": [{"id": "forwarded", "records": {
            "from": "mail.message", "created": True, "count": 1, "where": {"owner": MEI, "subject": "PO"},
            "expect": {"body": {"phrase": "4471"}}}},
                     {"id": "after_it_came", "role": "guard", "trajectory": {
                         "called": "mail.send", "after": {"actor": SAM, "op": "mail.send"}}}],
        "oracle": [{"op": "task.wait", "args": {"for_event": True, "seconds": 7000}},
                   {"op": "mail.send", "args": {"to": [MEI], "subject": "PO", "body": "Sam's PO number: 4471."}}],
    }


def ask_task(world: Path) -> dict:
    """The prompt leaves out the discount; the user knows it and tells when asked."""
    return {
        "id": "ask-discount", "world": str(world), "as": RAVI,
        "user": {"facts": [{"about": r"discount|percent|%", "answer": "We agreed 15% with Sam."},
                           {"about": r"deadline|when", "answer": "By Friday."}]},
        "prompt": "Tell Sam the discount we agreed for the Globex renewal.",
        "criteria": [
            {"id": "told_sam", "records": {"from": "mail.outbound", "created": True, "count": 1,
                                           "where": {"recipient": {"email": SAM}},
                                           "expect": {"body": {"phrase": "15%"}}}},
            {"id": "asked_first", "role": "guard", "trajectory": {
                "read_before_write": {"read": "task.ask_user", "write": "mail.send"}}}],
        "oracle": [{"op": "task.ask_user", "args": {"question": "What discount did we agree for Globex?"}},
                   {"op": "mail.send", "args": {"to": [SAM], "subject": "Globex renewal",
                                                "body": "Sam, the agreed discount is 15%."}}],
    }
