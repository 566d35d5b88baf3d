"""Co-workers who answer: the format of ``worlds/<w>/people.yaml`` and of a task's ``npcs:``.

A world declares some of its people as NPCs in ``people.yaml`` beside ``world.yaml``::

    seed: 7                      # the stream reply delays are drawn from
    npcs:
      - email: ravi@small.test
        mail:                    # on a mail to them that matches, first rule wins
          - id: discount
            body: '(?P<pct>\\d+)\\s*%'
            decide: {group: pct, max: 15, approve: "Approved: {pct}% is fine.", refuse: "No: {pct}% is over 15%."}
            delay: {min_seconds: 600, max_seconds: 3600}
          - id: ack
            reply: "Thanks {sender_name}, noted."
        invitations: {delay: {min_seconds: 300, max_seconds: 900}}   # accept when free, else decline

A task's ``npcs:`` list adds NPCs or replaces a world's NPC of the same email whole. Templates name
``{sender}``, ``{sender_name}``, ``{subject}``, ``{body}``, ``{me}``, ``{my_name}`` and the named groups
of the rule's patterns; nothing else is expanded. An NPC with a ``model:`` block
(``scenarios.people.persona``) answers mail by a model when an endpoint is configured, its rules otherwise.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field, model_validator

from scenarios.people.persona import Persona
from worlds.model import Strict

NAME = r"^[a-z0-9][a-z0-9_.-]*$"


class Delay(Strict):
    """How long after the mail the answer comes: drawn per mail from the world's seeded stream."""

    min_seconds: float = Field(600, ge=1)
    max_seconds: float = Field(3600, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> "Delay":
        if self.max_seconds < self.min_seconds:
            raise ValueError("max_seconds is less than min_seconds")
        return self


class Decide(Strict):
    """Approve or refuse by a number the mail names (group ``group`` of the rule's patterns) against ``max``."""

    group: str
    max: float
    approve: str = Field(description="The reply when the number is at most max")
    refuse: str = Field(description="The reply when it is over max, or absent")


class Action(Strict):
    """An operation the NPC runs as themself when the rule fires (a record they own): its text
    arguments are templates."""

    op: str = Field(pattern=r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")
    args: dict[str, Any] = Field(default_factory=dict)


class Change(Strict):
    """One change a reviewer asks for: the passage of the draft it is about (``quote``) and what to do."""

    quote: str = Field(min_length=1)
    comment: str = Field(min_length=1)


class Review(Strict):
    """Review the document named ``document`` (``scenarios.people.coworking.review``): when the NPC cannot open
    it, reply ``missing``; when every change's passage is gone from it, ``done``; else, with comment access,
    comment each outstanding change on its passage and reply ``reply``; with view access only, reply ``listed``
    (``{changes}``: the outstanding changes, one a line). Templates also name ``{document}``."""

    document: str = Field(min_length=1)
    changes: list[Change] = Field(min_length=1)
    reply: str = "I've left my comments on {document} - please make those changes."
    listed: str = "I can only view {document}, so here are my changes:\n{changes}"
    missing: str = "I can't open {document} - could you share it with me?"
    done: str = "{document} looks good to me now."


class MailRule(Strict):
    """On a mail to the NPC whose sender, subject and body match these patterns (case-insensitive regular
    expressions; an absent one matches anything): reply (``reply``, ``decide`` or ``review``) and run ``do``.
    With ``reminded_after``, only a reminder is answered: a mail that came at least that many seconds after an
    earlier one from the same sender about the same matter (``scenarios.people.coworking.reminded``), since
    ``reminded_since`` when given; the first goes unanswered."""

    id: str = Field(pattern=NAME)
    sender: str | None = None
    subject: str | None = None
    body: str | None = None
    reply: str | None = None
    decide: Decide | None = None
    review: Review | None = None
    reminded_after: float | None = Field(None, ge=1)
    reminded_since: datetime | None = Field(None, description="With reminded_after: only requests sent at or after "
                                            "this time count (a task's start), not older mail on the same matter")
    do: list[Action] = Field(default_factory=list)
    delay: Delay = Field(default_factory=Delay)

    @model_validator(mode="after")
    def _acts(self) -> "MailRule":
        answers = [k for k in ("reply", "decide", "review") if getattr(self, k) is not None]
        if len(answers) > 1:
            raise ValueError(f"a rule replies by one of reply, decide or review, not {' and '.join(answers)}")
        if not answers and not self.do:
            raise ValueError("a rule needs reply, decide, review or do")
        return self


class Invitations(Strict):
    """Answer invitations by the NPC's calendar: accept when no other busy event overlaps, else decline."""

    delay: Delay = Field(default_factory=lambda: Delay(min_seconds=300, max_seconds=1800))
    decline_comment: str = "I have a conflict at that time."


class Npc(Strict):
    email: str
    mail: list[MailRule] = Field(default_factory=list)
    invitations: Invitations | None = None
    model: Persona | None = Field(None, description="Answer mail by a model within limits (scenarios.people.persona)")

    @model_validator(mode="after")
    def _unique(self) -> "Npc":
        ids = [r.id for r in self.mail]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{self.email}: rule ids must be unique")
        return self


class People(Strict):
    """A world's ``people.yaml``."""

    seed: int = 0
    npcs: list[Npc] = Field(default_factory=list)


Persona.model_rebuild(_types_namespace={"Delay": Delay})
Npc.model_rebuild()
