"""Time that moves and a world that answers: the episode's event queue, fired at the invoker's choke point.

An episode may carry a ``Reactor`` (``tasks.events`` builds one from a task's ``events:`` and its
world's co-workers). After every step the invoker calls ``settle``: the reactor looks at the steps it
has not seen yet (``observe``: a mail to a co-worker schedules their reply; a condition over the state
that now holds schedules its event), then every item due at or before the clock's now is fired in
(virtual time, sequence) order. Firing runs operations through the same invoker as the agent's calls,
recorded as steps of surface ``event`` or ``npc`` with their actor and ``cause``, stamped at the
item's own virtual time and without moving the clock: so the state before each agent step holds
exactly the events due by then, whichever steps (reads or writes) came before, and a replay that re-runs
only writes derives the same steps again.

Two operations are completed by the episode rather than by their app (``complete``), as the answer
lies outside any app's state: one whose result type is ``Waited`` (``task.wait``) moves the clock (the
invoker asks ``wait_target`` where to, records the step with that time, and settles up to it after the
step); one whose result type is ``Asked`` (``task.ask_user``) gets its answer from the reactor's user
(``Reactor.answer``), or a null answer where the episode has nobody to ask; the final answer
(``Submitted``, ``task.submit_answer``) with status ``needs_input`` is put to that user the same way, and
when they answer (``reply``) it is not final: the episode goes on (``goes_on``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import Field

from worlds.model import Strict

if TYPE_CHECKING:
    from apps.kit.episode import Episode
    from apps.kit.trajectory import Step

# The longest one wait may move the clock, and the most items one settle fires (a chain of reactions
# that never ends is a rule's bug; what is left stays queued and fires at the next step).
MAX_WAIT = timedelta(days=14)
MAX_FIRED = 500


class Waited(Strict):
    """Where a wait left the clock (the result of ``task.wait``)."""

    now: datetime | None = Field(None, description="The virtual time after the wait")
    until: datetime | None = Field(None, description="The latest time asked for")
    for_event: bool = Field(False, description="Whether the wait stopped at the next event")
    events_due: int = Field(0, description="How many scheduled things are due by then")


class Asked(Strict):
    """The user's answer to a question (the result of ``task.ask_user``)."""

    question: str
    answer: str | None = Field(None, description="What the user answered; null when nobody can be asked here")


class Submitted(Strict):
    """The agent's answer was received (the result of ``task.submit_answer``)."""

    received: bool
    status: Literal["done", "refused", "needs_input"]
    reply: str | None = Field(None, description="The user's answer to what you asked with status needs_input; "
                                                "when there is one, the episode goes on (null: it is over)")


def goes_on(result) -> bool:
    """Whether a final answer's result leaves the episode going on: a question (``needs_input``) the user answered."""
    return isinstance(result, dict) and result.get("reply") is not None


class Reactor(Protocol):
    def observe(self, episode: Episode, step: Step) -> None:
        """Schedule (``episode.events.push``) what ``step`` sets off."""

    def fire(self, episode: Episode, at: datetime, item: dict) -> None:
        """Do one due item: its operations through the invoker, stamped ``at``, recorded with actor and cause."""

    def answer(self, episode: Episode, question: str) -> str | None:
        """The user's answer to ``question``; ``None`` when the episode has no user to ask."""


COMPLETED = frozenset({Waited, Asked, Submitted})   # result types the invoker completes (``complete``)


def complete(episode: Episode, result_type: type, outcome, arguments: dict) -> None:
    """Fill in what the episode knows of a successful ``Waited``, ``Asked`` or ``Submitted`` outcome (an
    ``apps.kit.host.Outcome``; ``arguments`` are the call's): a final answer that asks (``needs_input``)
    is put to the user like ``ask_user``, and when the user answers, the episode goes on."""
    if outcome.error is not None:
        return
    if result_type is Waited:
        outcome.result = wait_target(episode, outcome.result)
        return
    reactor = episode.reactor
    if result_type is Submitted:
        if outcome.result.get("status") == "needs_input" and reactor is not None:
            outcome.result = {**outcome.result, "reply": reactor.answer(episode, arguments.get("answer") or "")}
        return
    answer = reactor.answer(episode, outcome.result["question"]) if reactor is not None else None
    outcome.result = {**outcome.result, "answer": answer}


def settle(episode: Episode) -> int:
    """Fire everything due by the clock's now, in order; returns how many items fired."""
    reactor = episode.reactor
    if reactor is None or episode.settling:
        return 0
    episode.settling = True
    fired = 0
    try:
        now = episode.clock.now()
        while fired < MAX_FIRED:
            _observe(episode, reactor)
            due = episode.events.pop_due(now)
            if due is None:
                break
            reactor.fire(episode, *due)
            fired += 1
        _observe(episode, reactor)
    finally:
        episode.settling = False
    return fired


def _observe(episode: Episode, reactor: Reactor) -> None:
    queue = episode.events
    while queue.observed < len(episode.trajectory):
        step = episode.trajectory[queue.observed]
        queue.observed += 1
        reactor.observe(episode, step)


def wait_target(episode: Episode, result: dict) -> dict:
    """The result of a wait with where it ends: at ``until``, at the next event when ``for_event``
    (whichever comes first), never further than ``MAX_WAIT`` and never back. Waiting only for the
    next event when nothing is scheduled ends at once."""
    now = episode.clock.now() + episode.clock.tick_size   # the step itself takes a tick
    until = result.get("until")
    target = min(datetime.fromisoformat(until) if until else now + MAX_WAIT, now + MAX_WAIT)
    if result.get("for_event"):
        upcoming = episode.events.next_time()
        if upcoming is not None:
            target = min(target, upcoming)
        elif not until:   # nothing is coming: waiting for it would only burn the cap
            target = now
    target = max(target, now)
    due = sum(1 for at, _ in episode.events.pending() if at <= target)
    return {**result, "now": target.isoformat(), "events_due": due}
