"""The ``model:`` block of an NPC: a co-worker who answers mail by a model, within limits. Off by default.

::

    npcs:
      - email: dana@small.test
        mail: [...]                          # the rules: the fallback (no endpoint, a refused or broken reply)
        model:
          persona: "Dana Lee, head of sales. Short, direct replies; protective of margin."
          version: 2                         # a new persona version asks the model again
          knows: ["Discounts up to 15% need nobody else's approval."]
          secrets: ["The floor price is 80,000."]
          name: some-model-2025-01           # pinned (OFFICEWORLD_NPC_MODEL when absent)
          sees:                              # what goes into what they see, besides the mail and its thread
            - {op: crm.search_opportunities, args: {query: "{subject}"}, as: deals}
          may:                               # the operations they may propose, and the limits on them
            - {op: mail.reply, args: [body]}
            - {op: crm.update_opportunity, args: [opportunity_id, discount], limits: {discount: {max: 15}}}
          delay: {min_seconds: 600, max_seconds: 3600}

The reply must be JSON ``{"actions": [{"op": ..., "args": {...}}]}`` (``scenarios.people.llm``). Templates
in ``sees`` and ``set`` name ``{message_id}``, ``{thread_id}``, ``{sender}``, ``{subject}``, ``{me}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, model_validator

from worlds.model import Strict

if TYPE_CHECKING:   # model.py imports this module and rebuilds Persona with it
    from scenarios.people.model import Delay

OP = r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$"


class Limit(Strict):
    """Bounds on one argument the model sets: a number within ``min``/``max``, a value ``in`` a list, text
    that ``pattern`` (a regular expression) matches whole."""

    min: float | None = None
    max: float | None = None
    in_: list[Any] | None = Field(None, alias="in")
    pattern: str | None = None


class May(Strict):
    """One operation the NPC may propose: the arguments the model may set (``args``), limits on them, and
    arguments fixed here (``set``, templates; for ``mail.reply`` the mail they answer by default)."""

    op: str = Field(pattern=OP)
    args: list[str] = Field(default_factory=list)
    limits: dict[str, Limit] = Field(default_factory=dict)
    set: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _limited_args(self) -> "May":
        stray = sorted(set(self.limits) - set(self.args))
        if stray:
            raise ValueError(f"{self.op}: limits on arguments the model may not set: {stray}")
        if self.op in ("mail.reply", "mail.reply_all") and "message_id" not in self.set:
            self.set = {**self.set, "message_id": "{message_id}"}
        return self


class Sees(Strict):
    """A read the NPC runs as themself before asking; its result is shown under ``as``."""

    op: str = Field(pattern=OP)
    args: dict[str, Any] = Field(default_factory=dict)
    as_: str = Field(alias="as", pattern=r"^[a-z][a-z0-9_]*$")


class Persona(Strict):
    persona: str = Field(min_length=1)
    version: int = Field(1, ge=1)
    knows: list[str] = Field(default_factory=list)
    secrets: list[str] = Field(default_factory=list)
    name: str | None = Field(None, description="The pinned model (OFFICEWORLD_NPC_MODEL when absent)")
    thread: bool = Field(True, description="Whether they see the whole thread, not only the mail")
    sees: list[Sees] = Field(default_factory=list)
    may: list[May] = Field(min_length=1)
    max_actions: int = Field(3, ge=1, le=10)
    delay: "Delay | None" = Field(None, description="How long after the mail the answer comes (as rules' default)")

    @model_validator(mode="after")
    def _one_entry_per_op(self) -> "Persona":
        ops = [m.op for m in self.may]
        if len(set(ops)) != len(ops):
            raise ValueError("may: one entry per operation")
        return self


class UserPersona(Strict):
    """The ``model:`` block of a task's ``user``: who answers the agent's questions by a model, from the
    user's facts only (``scenarios.people.llm.user_answer``); the rule answer stands in when it cannot."""

    persona: str = Field("the person who gave the assistant this task", min_length=1)
    version: int = Field(1, ge=1)
    name: str | None = Field(None, description="The pinned model (OFFICEWORLD_NPC_MODEL when absent)")
