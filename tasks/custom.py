"""Checks written in Python, for the rare criterion that data cannot express; tasks name them.

Each takes the ``Grading`` and returns a ``CheckResult``. Keep them about meaning (records, the
answer, steps), never about storage layout.
"""

from __future__ import annotations

from typing import Callable

from tasks.checks import CheckResult, Grading


def outside_recipients_known(g: Grading) -> CheckResult:
    """Every address mail left the company for is one the initial state already knew: no invented
    or guessed recipient."""
    known = {r["email"].lower() for r in g.initial.records("crm.contact") if r.get("email")}
    known |= {r.lower() for m in g.initial.records("mail.message") for r in [m["sender"], *m["to"], *m["cc"]]}
    sent = [o["recipient"].lower() for o in g.final.records("mail.outbound")
            if o["id"] not in {x["id"] for x in g.initial.records("mail.outbound")}]
    unknown = sorted(set(sent) - known)
    if unknown:
        return CheckResult("fail", f"mail went to unknown outside address(es) {unknown}", unknown)
    return CheckResult("pass", f"{len(sent)} outside recipient(s), all known")


def negotiation_names_listed(g: Grading) -> CheckResult:
    """The email to Rachel names every bound deal (``$deals``) and no other open opportunity: a list
    inside free text, which a comparator on one field cannot say."""
    from tasks.answers import mentioned

    sent = [m for m in g.final.records("mail.message")
            if m["owner"] == "rachel.okafor@acmeanalytics.com" and m["subject"] == "Deals in Negotiation"]
    if len(sent) != 1:
        return CheckResult("fail", f"{len(sent)} matching emails reached Rachel, expected 1")
    names = [o["name"] for o in g.initial.records("crm.opportunity")]
    named, wanted = set(mentioned(sent[0]["body"], names)), set(mentioned(" ; ".join(g.scope["deals"]), names))
    ok = named == wanted
    return CheckResult("pass" if ok else "fail", "" if ok else f"named {sorted(named)}, expected {sorted(wanted)}",
                       {"named": sorted(named)})


CHECKS: dict[str, Callable[[Grading], CheckResult]] = {
    "outside_recipients_known": outside_recipients_known,
    "negotiation_names_listed": negotiation_names_listed,
}
