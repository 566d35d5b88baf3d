"""Email-search question answering in the style of ART·E, written from a world's mail.

Each question is about one message of the acting person's mailbox, chosen so that it identifies the
message unambiguously, and its answer is known by construction: the task binds the message by its
Message-ID over the initial state and reads the expected value from that binding. So a suite of
thousands costs nothing to write, and every answer is checkable. Kinds of question:

- ``date``: on what day a person sent a message with a given subject (a date answer);
- ``sender``: who sent a message with a given subject on a given day (one person among everyone);
- ``attachment``: the file name attached to a message (exact text);
- ``recipients``: how many people a message went to (a number).

A question whose prompt gives its answer away is refused (``gives_away``): the sender named in the
subject ("The Revenue Brief: ..."), the day or the count written in it, the file name quoted in it.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import yaml

from tasks.answers import mentioned
from tasks.parse import dates_in, numbers_in, parse_datetime, tokens
from tasks.records import State

KINDS = ("date", "sender", "attachment", "recipients")


def questions(state: State, world: str, actor: str, tz: str, names: dict[str, str], count: int,
              seed: int = 0) -> list[dict]:
    """Up to ``count`` task definitions (dicts in the task format) over ``actor``'s mailbox."""
    mailbox = [m for m in state.records("mail.message") if m["owner"] == actor and "SPAM" not in m["labels"]
               and "DRAFT" not in m["labels"] and m["sender"] != actor and m["sender"] in names]
    for m in mailbox:
        m["_day"] = _sent(m).astimezone(ZoneInfo(tz)).date()
    keys = {kind: Counter(_key(kind, m) for m in mailbox) for kind in KINDS}
    rng = random.Random(seed)
    order = list(mailbox)
    rng.shuffle(order)
    out: list[dict] = []
    used: set[str] = set()
    for index, message in enumerate(order):
        for kind in KINDS[index % len(KINDS):] + KINDS[:index % len(KINDS)]:
            if keys[kind][_key(kind, message)] == 1:
                task = _question(kind, message, world, tz, names)
                if task is not None and task["id"] not in used:
                    used.add(task["id"])
                    out.append(task)
                    break
        if len(out) >= count:
            break
    return out


def _key(kind: str, m: dict) -> tuple:
    """What the question names about its message: it must name only one message of the mailbox."""
    if kind == "sender":
        return m["subject"], m["_day"]
    if kind == "recipients":
        return m["sender"], m["subject"], m["_day"]
    return m["sender"], m["subject"]


def write(tasks: list[dict], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for task in tasks:
        path = out / f"{task['id']}.yaml"
        path.write_text("# Written by `officeworld tasks generate`; edit the generator, not this file.\n"
                        + yaml.safe_dump(task, sort_keys=False, allow_unicode=True, width=120))
        paths.append(path)
    return paths


def _sent(m: dict) -> datetime:
    sent = parse_datetime(m["date"])
    assert sent is not None  # every message of a mailbox has its date
    return sent


def _question(kind: str, m: dict, world: str, tz: str, names: dict[str, str]) -> dict | None:
    sender = names[m["sender"]]
    subject = m["subject"]
    day = _sent(m).astimezone(ZoneInfo(tz)).strftime("%B %-d, %Y")
    ref = {"from": "mail.message", "where": {"owner": "$actor", "rfc_id": m["rfc_id"]}}
    if kind == "date":
        prompt = f"On what date did {sender} send the email \"{subject}\"? Answer with the date."
        check: dict[str, Any] = {"type": "date", "expect": "$msg.date"}
        answer = day
    elif kind == "sender":
        prompt = f"Who sent the email with the subject \"{subject}\" on {day}? Answer with the person's full name."
        check = {"type": "entity", "expect": sender, "candidates": sorted(set(names.values()))}
        answer = sender
    elif kind == "attachment":
        if len(m["attachments"]) != 1:
            return None
        prompt = f"What is the file name of the attachment on {sender}'s email \"{subject}\"? Answer with the file name."
        check = {"type": "text", "expect": "$msg.attachments.0"}
        answer = m["attachments"][0]
    else:
        prompt = (f"How many addresses (To and Cc together) did {sender}'s email \"{subject}\" of {day} go to? "
                  "Answer with the number.")
        check = {"type": "number", "expect": len(set(m["to"]) | set(m["cc"]))}
        answer = str(check["expect"])
    if gives_away(kind, prompt, subject, answer, m["_day"], sorted(set(names.values()))):
        return None
    slug = re.sub(r"[^a-z0-9]+", "-", f"{m['sender'].split('@')[0]} {subject}".lower()).strip("-")[:48].strip("-")
    return {
        "id": f"emailqa-{world}-{kind}-{slug}", "title": f"Email search: {kind}", "world": world, "outcome": "answer",
        "prompt": prompt, "bindings": {"msg": ref},
        "criteria": [{"id": kind, "answer": check},
                     {"id": "read_only", "role": "guard", "trajectory": {"max_writes": 0}}],
        "oracle": [{"op": "mail.search", "args": {"query": " ".join(re.findall(r"[A-Za-z0-9]+", _clean(subject))[:6])}},
                   {"op": "mail.get_message", "args": {"message_id": "$msg.id"}},
                   {"op": "task.submit_answer", "args": {"answer": answer}}],
        "tags": ["mail", "search", "email-qa", kind], "difficulty": "easy",
    }


def gives_away(kind: str, prompt: str, subject: str, answer: str, day, people: list[str]) -> bool:
    """Whether ``prompt`` holds the answer: an agent copying from it would be right without searching."""
    if kind == "sender":
        return _norm(answer) in mentioned(subject, people)
    if kind == "date":
        return day in dates_in(prompt, year=day.year)
    if kind == "recipients":
        return float(answer) in numbers_in(_clean(subject))
    words = tokens(prompt)
    return any(part and any(words[i:i + len(part)] == part for i in range(len(words) - len(part) + 1))
               for part in (tokens(answer), tokens(answer.rsplit(".", 1)[0])))


def _norm(name: str) -> str:
    return " ".join(tokens(name))


def _clean(subject: str) -> str:
    return re.sub(r"^((re|fwd?):\s*)+", "", subject, flags=re.IGNORECASE).strip().replace('"', "")
