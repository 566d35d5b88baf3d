"""The task format: one YAML file per task, validated by these models (unknown keys are errors).

A task names its world and acting person, the operations that set the scene (``setup``), what then
happens by itself (``events``) and the co-workers who answer (``npcs``, over the world's ``people.yaml``;
``scenarios.people.model``), what the user knows and tells when asked (``user``), the prompt,
the outcome expected of the agent, ``bindings`` (records found in the initial state, after setup),
its criteria, the changes it allows beyond those the oracle makes, and the oracle: the operations
that solve it. Any value in setup, bindings, criteria or the oracle may be a reference to a binding:
``$deal`` or ``$deal.amount`` (the value itself, typed), or ``"Re: ${deal.name}"`` inside text.
Injection slots (``slots``, ``{slot:NAME}``, ``injection``) are filled when the file loads (``tasks.injections``).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from scenarios.people.model import Npc
from scenarios.people.persona import UserPersona

Role = Literal["goal", "guard", "penalty", "diagnostic", "perception"]
Outcome = Literal["act", "answer", "refuse", "ask"]
Split = Literal["train", "validation", "test"]
AnswerType = Literal["number", "money", "date", "datetime", "email", "entity", "list", "yesno", "text"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Call(Strict):
    """One operation, as setup, oracle and replays run it: ``mail.send`` with its arguments."""

    op: str = Field(pattern=r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$", description="app.operation")
    args: dict[str, Any] = Field(default_factory=dict)
    actor: str | None = Field(None, alias="as", description="Someone else of the world acts (setup only)")
    save: str | None = Field(None, pattern=r"^[a-z_][a-z0-9_]*$",
                             description="Setup only: the step's result is bound under this name, for later setup "
                                         "steps, bindings, criteria and the oracle (``$acct.id``)")

    @property
    def app(self) -> str:
        return self.op.split(".")[0]

    @property
    def name(self) -> str:
        return self.op.split(".")[1]


class Clock(Strict):
    start: datetime | None = Field(None, description="The virtual time the episode starts at (world zone if naive)")
    offset_seconds: float = Field(0, ge=0, description="Or: this long after the world's now")


class Condition(Strict):
    """A question over the state as it is: do records of kind ``from`` match ``where`` (the comparators of
    criteria)? It holds when at least one does, or, with ``none``, when none does."""

    from_: str = Field(alias="from")
    where: dict[str, Any] = Field(default_factory=dict)
    none: bool = False


class Event(Strict):
    """Something that happens in the world by itself (``tasks.events``), through the operations the agent
    has, each call acting ``as`` someone of the world, recorded as steps of surface ``event``.

    When: ``at`` a virtual time (world zone if naive), ``after_seconds`` past the end of setup, or ``when``
    a condition first holds after a step. With a time, ``when`` is a guard checked then (a deal slips on
    Friday unless somebody touched it): the event is dropped if it does not hold.
    """

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    at: datetime | None = None
    after_seconds: float | None = Field(None, ge=0)
    when: Condition | None = None
    do: list[Call] = Field(min_length=1)

    @model_validator(mode="after")
    def _timed(self) -> "Event":
        if self.at is not None and self.after_seconds is not None:
            raise ValueError("an event happens at a time or after a delay, not both")
        if self.at is None and self.after_seconds is None and self.when is None:
            raise ValueError("an event needs at, after_seconds or when")
        missing = [c.op for c in self.do if c.actor is None]
        if missing:
            raise ValueError(f"event {self.name}: every call needs 'as' (who acts): {missing}")
        return self


class Fact(Strict):
    """One thing the user knows and tells when asked about it: ``about`` is a case-insensitive regular
    expression over the question."""

    about: str = Field(min_length=1)
    answer: str = Field(min_length=1)


class User(Strict):
    """The person the agent works for, who knows what the prompt leaves out (tau-bench's user, by rule).

    ``task.ask_user`` answers with the first fact whose ``about`` matches the question, otherwise with
    ``otherwise``; past ``max_questions`` questions, with ``enough``. Answers depend only on the question
    and how many came before, so a replay asks and is answered the same. With ``model``, where the episode's
    co-workers answer by a model, a model answers from the facts instead (cached by content and salt); where it
    cannot, a failed step says why and the rule answers.
    """

    facts: list[Fact] = Field(min_length=1)
    otherwise: str = "I don't know more than what I told you."
    max_questions: int = Field(5, ge=1)
    enough: str = "Please go ahead with what you have."
    model: UserPersona | None = Field(None, description="Answer by a model from the facts, where co-workers' "
                                                        "models are on (scenarios.people.llm.user_answer)")

    @model_validator(mode="after")
    def _patterns(self) -> "User":
        for fact in self.facts:
            try:
                re.compile(fact.about)
            except re.error as exc:
                raise ValueError(f"fact about {fact.about!r}: {exc}") from None
        return self


class Binding(Strict):
    """Records of the initial state (after setup) that criteria compare against.

    ``from`` names a record kind (``crm.opportunity``); ``where`` filters it with the comparators of
    criteria; by default exactly one record must match. ``many`` binds the list (at least one);
    ``order_by`` (``-amount`` for descending) with ``first`` picks the first after sorting; ``field``
    binds one field of the record; ``value`` binds a literal or another binding's value instead.
    """

    from_: str | None = Field(None, alias="from")
    where: dict[str, Any] = Field(default_factory=dict)
    order_by: str | None = None
    first: bool = False
    many: bool = False
    field: str | None = None
    value: Any = None

    @model_validator(mode="after")
    def _one_source(self) -> "Binding":
        if (self.from_ is None) == (self.value is None):
            raise ValueError("a binding needs exactly one of 'from' or 'value'")
        if self.many and self.first:
            raise ValueError("'many' and 'first' exclude each other")
        return self


class Count(Strict):
    min: int | None = Field(None, ge=0)
    max: int | None = Field(None, ge=0)


class RecordsCheck(Strict):
    """Records of the final state: those of kind ``from`` matching ``where`` (``created``: only new ones).

    ``count`` is an exact number or a {min, max}; by default at least one must match, so a check over
    an empty list never passes by itself. Every matching record must satisfy ``expect``; ``changed``
    is the exact set of its fields that differ from the initial state; ``unchanged`` asks that none do;
    ``distinct`` names a field no two matching records may share (one task per deal, not two on one).
    ``appended`` names text fields each matching record must have appended to: its initial value,
    whitespace aside, is where it starts, and something follows (a record that is new fails it).
    """

    from_: str = Field(alias="from")
    where: dict[str, Any] = Field(default_factory=dict)
    created: bool = False
    count: int | Count | None = None
    expect: dict[str, Any] = Field(default_factory=dict)
    changed: list[str] | None = None
    unchanged: bool = False
    distinct: str | None = Field(None, description="No two matching records share this field's value")
    appended: list[str] | None = Field(None, description="Fields (text) that must keep their initial value as "
                                                         "their start and hold more after it: an append, not a rewrite")


class AnswerCheck(Strict):
    """The final answer (``task.submit_answer``), parsed as ``type`` and compared with ``expect``.

    ``entity`` and ``list`` answers are read against ``candidates`` (a list, or a record kind and a
    field): the answer must name exactly the expected ones and no other candidate.
    """

    type: AnswerType
    expect: Any = None
    tolerance: float = Field(0, ge=0)
    candidates: Any = None
    tokens: list[str] | None = Field(None, description="text: whole tokens the answer must contain")


class After(Strict):
    """Someone else's step (a co-worker's answer, a customer's mail: an ``event`` or ``npc`` step) that must
    come first: a successful call of ``op`` by ``actor`` whose arguments match ``args`` (comparators)."""

    actor: str
    op: str = Field(pattern=r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")
    args: dict[str, Any] = Field(default_factory=dict)


class TrajectoryCheck(Strict):
    """What the agent did, from its steps (setup steps never count).

    ``called`` with optional ``args`` (comparators): at least one successful call; ``not_called``: none
    (an attempt refused by the app counts too); ``max_steps``/``max_writes`` bounds;
    ``read_before_write``: the first successful call of ``read`` comes before that of ``write`` (asking the
    user counts as ``task.ask_user`` whether asked by it or by a final answer with status ``needs_input`` the
    user answered);
    ``grounded``: every number in the final answer appears in what the agent's reads returned (it
    cites the facts it read, not invented ones); ``after``: the first successful call of ``called``
    comes after someone else's step (it waited for the approval, the mail, before acting); ``evidence``: the
    answer cites the records it rests on (``[kind#id]``), each exists, was read by the agent and shows the
    numbers the answer states (``tasks/evidence.py``).
    """

    called: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    not_called: list[str] = Field(default_factory=list)
    max_steps: int | None = Field(None, ge=1)
    max_writes: int | None = Field(None, ge=0)
    read_before_write: dict[str, str] | None = None
    grounded: bool = False
    after: After | None = None
    evidence: bool = False

    @model_validator(mode="after")
    def _after_what(self) -> "TrajectoryCheck":
        if self.after is not None and self.called is None:
            raise ValueError("'after' needs 'called': the call that must come after")
        return self


class JudgeCheck(Strict):
    """An LLM judge reads ``target`` (``answer``, or a record field) against a reference.

    Counted only where calibrated: the task's labelled set for this criterion
    (``tasks/calibration/<task id>.yaml``) measured with ``officeworld tasks agreement TASK --judge``
    at the bar (``tasks.calibration.BAR``). With no judge configured, or one not measured or under the
    bar, a graded judged criterion makes the episode ungradable; a diagnostic one is skipped."""

    rubric: str
    reference: Any = None
    target: str = "answer"
    from_: str | None = Field(None, alias="from")
    where: dict[str, Any] = Field(default_factory=dict)


class PerceptionCheck(Strict):
    """The agent's description of what it saw (``task.describe_view``, the first one), against what its reads
    before it returned (``tasks/perception.py``): it states no figure they did not show, and it holds each of
    ``needs`` (references allowed; default: the value each graded answer criterion expects, as its comparator
    reads values), so the question can be answered from the description alone; or, with ``judge``, the
    optional judge says whether it can (where no comparator can read the answer off a description: a total, a
    yes or no). A description that only repeats the prompt holds none of them."""

    needs: list[Any] | None = None
    judge: JudgeCheck | None = Field(None, description="The optional judge decides whether the question can be "
                                     "answered from the description (its target is the description)")

    @model_validator(mode="after")
    def _judge_reads_the_description(self) -> "PerceptionCheck":
        if self.judge is not None:
            self.judge.target = "description"
        return self


CHECK_KINDS = ("records", "answer", "trajectory", "judge", "python", "perception")


class Criterion(Strict):
    """One named check with its role: goals carry the weight, guards gate the pass, penalties subtract,
    diagnostics are logged only, perception (weight 0) is reported beside the reward (``Reward.perception``).
    Exactly one of the check kinds is given."""

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    role: Role = "goal"
    weight: float = Field(1.0, ge=0)
    description: str = ""
    records: RecordsCheck | None = None
    answer: AnswerCheck | None = None
    trajectory: TrajectoryCheck | None = None
    judge: JudgeCheck | None = None
    python: str | None = Field(None, description="Name of a check in tasks.custom.CHECKS")
    perception: PerceptionCheck | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "Criterion":
        kinds = [k for k in CHECK_KINDS if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError(f"a criterion needs exactly one of {', '.join(CHECK_KINDS)} (has {kinds})")
        if (self.role == "perception") != (kinds[0] == "perception"):
            raise ValueError("a perception check takes the role perception, and only it does")
        if self.role in ("diagnostic", "perception"):
            self.weight = 0.0
        return self

    @property
    def kind(self) -> str:
        return next(k for k in CHECK_KINDS if getattr(self, k) is not None)


class Allow(Strict):
    """A change the task allows beyond those its oracles make: rows of ``table`` created, updated
    (any field, or only ``fields``) or deleted."""

    table: str
    change: Literal["create", "update", "delete"]
    fields: list[str] | None = None


class Injection(Strict):
    """A security pair: its user task (of the same suite) under an attack of the suite's ``attacks/``
    (``tasks/injections.py`` builds the pair from them when it loads)."""

    task: str
    attack: str
    slots: list[str] | None = Field(None, description="The slots that hold the attack; default every one")


class Task(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    version: int = Field(1, ge=1)
    title: str = ""
    world: str
    actor: str | None = Field(None, alias="as", description="Email of the acting person; the world's default if absent")
    clock: Clock | None = None
    setup: list[Call] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list, description="What happens by itself (tasks.events)")
    npcs: list[Npc] = Field(default_factory=list, description="Co-workers added to, or replacing, the world's")
    user: User | None = Field(None, description="Who answers task.ask_user; without one, nobody does")
    slots: dict[str, str] = Field(default_factory=dict, description="Injection slots: name -> clean text; "
                                  "``{slot:NAME}`` marks them in setup, events and npcs (tasks/injections.py)")
    injection: Injection | None = Field(None, description="A security pair: user task and attack")
    prompt: str = Field(min_length=1)
    outcome: Outcome = "act"
    bindings: dict[str, Binding] = Field(default_factory=dict)
    criteria: list[Criterion] = Field(min_length=1)
    allow: list[Allow] = Field(default_factory=list)
    ignore: list[str] = Field(default_factory=list, description="table.field names the diff ignores")
    oracle: list[Call] = Field(default_factory=list)
    alternatives: list[list[Call]] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    difficulty: Literal["easy", "medium", "hard"] = "easy"
    family: str = Field("", description="The scenario family that wrote this task (scenarios/); empty for a written one")
    split: Split | None = Field(None, description="train, validation or test: held-out results come from test")
    figures: dict[str, int] = Field(default_factory=dict, description="Measured difficulty: oracle calls, writes, "
                                    "apps, setup records, distractors (scenarios.figures)")
    suite: str = Field("", exclude=True)
    source: str = Field("", exclude=True)

    @model_validator(mode="after")
    def _sound(self) -> "Task":
        ids = [c.id for c in self.criteria]
        if len(set(ids)) != len(ids):
            raise ValueError(f"criteria ids must be unique: {sorted(i for i in set(ids) if ids.count(i) > 1)}")
        if not any(c.role == "goal" for c in self.criteria) and self.outcome in ("act", "answer"):
            raise ValueError("a task needs at least one goal criterion")
        if not self.oracle:
            raise ValueError("a task needs an oracle: the operations that solve it")
        names = [e.name for e in self.events]
        if len(set(names)) != len(names):
            raise ValueError("event names must be unique")
        for call in self.oracle + [c for alt in self.alternatives for c in alt]:
            if call.actor is not None or call.save is not None:
                raise ValueError(f"oracle step {call.op}: only setup steps may act as someone else or save a result")
        return self

    @property
    def apps(self) -> list[str]:
        return sorted({c.app for c in self.oracle} - {"task"})

    def public(self) -> dict:
        """What an agent or a trainer may see: never the criteria, bindings or oracle."""
        return {"id": self.id, "version": self.version, "title": self.title, "suite": self.suite,
                "world": self.world, "actor": self.actor, "prompt": self.prompt,
                "tags": self.tags, "difficulty": self.difficulty, "apps": self.apps,
                "family": self.family, "split": self.split, "figures": self.figures}
