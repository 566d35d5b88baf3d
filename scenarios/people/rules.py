"""Rule-based co-workers: what a step sets off (``Cast.observe``) and what they then do (``Cast.fire``).

Everything an NPC does goes through the apps' own operations as the NPC (``Acts``), so it is recorded,
replayed and graded like any step. Their replies come after a delay drawn from a stream seeded by the
world's seed, the NPC, the rule and the message (never by the order of steps, which a replay that
skips reads would change), so no two answer at once by chance and a replay draws the same delays.
An NPC answers only mail that no NPC sent (two co-workers would otherwise thank each other forever)
and that a person wrote (not an invitation an app mailed for them: invitations have their own rule),
and a step that could not be done is recorded as a failed step, never dropped.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from hashlib import sha256
from typing import Any, Protocol

from scenarios.people import coworking
from scenarios.people.model import Delay, MailRule, Npc, People

SENDING = {"send", "reply", "reply_all", "forward", "send_draft"}
_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


class Acts(Protocol):
    """How an NPC acts: ``act`` runs an operation as them and returns its step (its ``error`` set when it
    failed); ``fail`` records a step that could not be attempted, with the reason."""

    def act(self, op: str, args: dict[str, Any], actor: str) -> Any: ...
    def fail(self, op: str, args: dict[str, Any], actor: str, message: str) -> Any: ...


def render(template: str, values: dict[str, Any]) -> str:
    """``{name}`` replaced by ``values[name]``; an unknown name is left as written."""
    return _FIELD.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template)


def draw(seed: int, *parts: Any, delay: Delay) -> timedelta:
    """A delay in [min, max] seconds (whole seconds) from the seeded stream of ``parts``."""
    digest = sha256("|".join(str(p) for p in (seed, *parts)).encode()).digest()
    fraction = int.from_bytes(digest[:8], "big") / 2 ** 64
    return timedelta(seconds=round(delay.min_seconds + fraction * (delay.max_seconds - delay.min_seconds)))


class Cast:
    """An episode's NPCs: ``names`` maps an email to the person's name (for templates)."""

    def __init__(self, people: People, names: dict[str, str]):
        self.seed = people.seed
        self.npcs = {n.email.lower(): n for n in people.npcs}
        self.names = names

    def observe(self, step: Any) -> list[tuple[datetime, dict]]:
        """The reactions ``step`` schedules: (when, item)."""
        if step.error is not None or step.surface == "npc" or not isinstance(step.result, dict):
            return []
        if step.requested_by is not None:   # mail an app sent for someone (an invitation, its answer)
            return []
        if step.app == "mail" and step.operation in SENDING:
            return self._mail(step)
        if step.app == "calendar" and step.operation in ("create_event", "update_event"):
            return self._invited(step)
        return []

    def _mail(self, step: Any) -> list[tuple[datetime, dict]]:
        message = step.result
        sender = str(message.get("sender", "")).lower()
        out = []
        for email in sorted({a.lower() for k in ("to", "cc", "bcc") for a in message.get(k) or []}):
            npc = self.npcs.get(email)
            if npc is None or email == sender:
                continue
            for rule in npc.mail:
                groups = _match(rule, message)
                if groups is None:
                    continue
                values = {"sender": sender, "sender_name": self.names.get(sender, sender), "me": email,
                          "my_name": self.names.get(email, email), "subject": message.get("subject", ""),
                          "body": message.get("body", ""), **groups}
                item = {"kind": "npc.mail", "npc": email, "rule": rule.id, "message": message.get("message_id"),
                        "values": values, "cause": f"step {step.index}: rule {rule.id}"}
                out.append((step.virtual_time + draw(self.seed, email, rule.id, item["message"], delay=rule.delay), item))
                break
        return out

    def _invited(self, step: Any) -> list[tuple[datetime, dict]]:
        event = step.result
        out = []
        for attendee in event.get("attendees") or []:
            npc = self.npcs.get(str(attendee.get("email", "")).lower())
            if npc is None or npc.invitations is None or attendee.get("response") != "needsAction":
                continue
            item = {"kind": "npc.invitation", "npc": npc.email.lower(), "event": event["id"],
                    "cause": f"step {step.index}: invitation"}
            when = step.virtual_time + draw(self.seed, npc.email, "invitation", event["id"], event.get("start"),
                                            delay=npc.invitations.delay)
            out.append((when, item))
        return out

    def fire(self, item: dict, acts: Acts) -> None:
        npc = self.npcs.get(item["npc"])
        if npc is None:
            acts.fail("mail.reply", {}, item["npc"], f"{item['npc']} is no longer an NPC of this episode")
        elif item["kind"] == "npc.mail":
            self._answer_mail(npc, item, acts)
        elif item["kind"] == "npc.invitation":
            self._answer_invitation(npc, item, acts)

    def _answer_mail(self, npc: Npc, item: dict, acts: Acts) -> None:
        rule = next((r for r in npc.mail if r.id == item["rule"]), None)
        found = acts.act("mail.search", {"query": f"rfc822msgid:{item['message']}", "limit": 1}, npc.email)
        messages = (found.result or {}).get("messages") if found.error is None else None
        if rule is None or not messages:
            why = "the rule is gone" if rule is None else "the message is no longer in their mailbox"
            acts.fail("mail.reply", {"rfc_id": item["message"]}, npc.email, f"{npc.email} cannot answer: {why}")
            return
        values = item["values"]
        if rule.reminded_after is not None and not coworking.reminded(
                messages[0], rule.reminded_after, npc.email, acts, lambda m: _match(rule, m) is not None,
                rule.reminded_since):
            return   # a first request waits for a reminder (its search is the recorded trace)
        text = rule.reply if rule.reply is not None else _decision(rule, values)
        if rule.review is not None:
            text = coworking.review(rule.review, npc.email, values, acts)
        if text is not None:
            acts.act("mail.reply", {"message_id": messages[0]["id"], "body": render(text, values)}, npc.email)
        for action in rule.do:
            acts.act(action.op, _fill(action.args, values), npc.email)

    def _answer_invitation(self, npc: Npc, item: dict, acts: Acts) -> None:
        got = acts.act("calendar.get_event", {"event_id": item["event"]}, npc.email)
        if got.error is not None:
            acts.fail("calendar.respond", {"event_id": item["event"]}, npc.email,
                      f"{npc.email} cannot see the event any more: {got.error.get('message')}")
            return
        event = got.result
        busy = acts.act("calendar.free_busy", {"people": [npc.email], "start": event["start"], "end": event["end"]},
                        npc.email)
        others = _busy_besides(busy.result, event) if busy.error is None else []
        args: dict[str, Any] = {"event_id": item["event"], "response": "declined" if others else "accepted"}
        if others:
            args["comment"] = npc.invitations.decline_comment if npc.invitations else ""
        acts.act("calendar.respond", args, npc.email)


def _match(rule: MailRule, message: dict) -> dict[str, str] | None:
    groups: dict[str, str] = {}
    for field, pattern in (("sender", rule.sender), ("subject", rule.subject), ("body", rule.body)):
        if pattern is None:
            continue
        found = re.search(pattern, str(message.get(field) or ""), re.IGNORECASE | re.DOTALL)
        if found is None:
            return None
        groups.update({k: v for k, v in found.groupdict().items() if v is not None})
    return groups


def _decision(rule: MailRule, values: dict[str, Any]) -> str | None:
    decide = rule.decide
    if decide is None:
        return None
    try:
        number = float(str(values.get(decide.group, "")).replace(",", ""))
    except ValueError:
        return decide.refuse
    return decide.approve if number <= decide.max else decide.refuse


def _fill(value: Any, values: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return render(value, values)
    if isinstance(value, dict):
        return {k: _fill(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, values) for v in value]
    return value


def _busy_besides(free_busy: Any, event: dict) -> list[dict]:
    """Busy intervals that are not this event's own time (free_busy counts the invitation itself)."""
    out = []
    for person in free_busy or []:
        for interval in person.get("busy", []):
            if (interval["start"], interval["end"]) != (event["start"], event["end"]):
                out.append(interval)
    return out
