"""Small worlds built per test: a few people, a few threads, written as a real world folder."""

from __future__ import annotations

from pathlib import Path

import yaml

PEOPLE = [
    {"name": "Dana Whitfield", "email": "dana@small.test", "title": "VP Sales", "team": "Sales", "manager": None},
    {"name": "Ravi Patel", "email": "ravi@small.test", "title": "Account Executive", "team": "Sales",
     "manager": "dana@small.test"},
    {"name": "Mei Chen", "email": "mei@small.test", "title": "Support Lead", "team": "Support",
     "manager": "dana@small.test"},
]
OUTSIDERS = [{"name": "Sam Ortiz", "email": "sam@globex.example", "organisation": "Globex", "title": "CTO"}]


def message(mid: str, sender: str, to: str, subject: str, date: str, body: str, **headers: str) -> str:
    lines = [f"From: {sender}", f"To: {to}", f"Subject: {subject}", f"Date: {date}", f"Message-ID: <{mid}>"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    return "\n".join(lines) + "\n\n" + body + "\n"


def make_world(root: Path, name: str = "small", extra_mail: dict[str, str] | None = None,
               mailboxes: dict | None = None, **info) -> Path:
    """Write a small world folder under ``root`` and return its path."""
    world = root / name
    (world / "mail" / "attachments").mkdir(parents=True)
    data = {"name": name, "company": "Small Co", "domain": "small.test", "now": "2026-03-16T09:00:00",
            "timezone": "America/New_York", "default_actor": "dana@small.test",
            "people": PEOPLE, "outsiders": OUTSIDERS, **info}
    (world / "world.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    (world / "mail" / "attachments" / "quote.csv").write_text("item,amount\nlicence,184000\n")
    mail = {
        "globex/1.eml": message("g1@globex.example", "Sam Ortiz <sam@globex.example>", "dana@small.test",
                                "Globex renewal pricing", "Tue, 10 Mar 2026 09:14:00 -0400",
                                "Hi Dana, we need the renewal quote by March 27.", X_Attachment="quote.csv"),
        "globex/2.eml": message("g2@small.test", "Dana Whitfield <dana@small.test>",
                                "sam@globex.example", "Re: Globex renewal pricing",
                                "Tue, 10 Mar 2026 11:00:00 -0400", "Sam, the quote is attached above.",
                                Cc="ravi@small.test", In_Reply_To="<g1@globex.example>",
                                References="<g1@globex.example>"),
        "support/1.eml": message("s1@small.test", "Mei Chen <mei@small.test>", "dana@small.test, ravi@small.test",
                                 "Outage postmortem for Initech", "Wed, 11 Mar 2026 15:30:00 -0400",
                                 "The dashboard outage lasted 42 minutes. Root cause: expired certificate."),
        "hiring/1.eml": message("h1@small.test", "Ravi Patel <ravi@small.test>", "mei@small.test",
                                "Interview loop for the support engineer role", "Thu, 12 Mar 2026 10:00:00 -0400",
                                "Can you take the technical interview on Friday?"),
    }
    for rel, text in {**mail, **(extra_mail or {})}.items():
        (world / "mail" / rel).parent.mkdir(parents=True, exist_ok=True)
        (world / "mail" / rel).write_text(text)
    boxes = mailboxes if mailboxes is not None else {
        "dana@small.test": {"labels": ["Deals"], "messages": {"<g1@globex.example>": ["UNREAD", "Deals", "STARRED"]}}}
    (world / "mail" / "mailboxes.yaml").write_text(yaml.safe_dump(boxes))
    return world
