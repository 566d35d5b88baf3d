"""What happens in a task's world by itself: its ``events`` and its co-workers (``scenarios.people``).

``install`` gives an episode a ``WorldReactor`` (``apps.kit.reactor``) after the task's setup: timed
events go on the episode's queue, conditional ones wait for their condition. The invoker then settles
after every step; this reactor turns each new step into what it sets off (an NPC's reply, a condition
now true) and fires what falls due: each call runs through the invoker as the event's or NPC's person,
stamped at the time it was due, recorded as an ``event`` or ``npc`` step with its cause. An event's call
that fails is recorded with its error and the rest of the event goes on.

A world's own co-workers live in ``worlds/<w>/people.yaml`` (``scenarios.people.model.People``) and its
own events in ``worlds/<w>/events.yaml`` (``events:``, the list a task file holds); they apply to every
episode of the world, a task's or not (``EpisodeStore`` installs them). A task adds to them and replaces
an NPC of the same email, or an event of the same name, whole (``Task.npcs``, ``Task.events``). Timed
events count from the episode's start (after a task's setup).

Conditions are read from the episode's local databases: a world whose apps run as separate services
cannot have conditional events yet.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field

from apps.kit.clock import EventQueue
from apps.kit.episode import Episode
from apps.kit.invoker import invoke
from apps.kit.reactor import goes_on
from apps.kit.trajectory import Step, Surface
from scenarios.people.llm import ModelCast, ModelError, Replies, user_answer
from scenarios.people.model import People
from scenarios.people.rules import Cast
from tasks.comparators import matches
from tasks.model import Condition, Event, Task, User
from tasks.records import State
from tasks.refs import UnboundReference, resolve
from worlds.model import Strict


class EventsError(Exception):
    """A world's people.yaml or a task's events cannot be used as written."""


class _WorldEvents(Strict):
    events: list[Event] = Field(default_factory=list)


def world_files(root: Path) -> tuple[People, list[Event]]:
    """The world's ``people.yaml`` and ``events.yaml`` (none when absent), read again only when they change."""
    stamps = tuple(_stamp(root / name) for name in ("people.yaml", "events.yaml"))
    return _read_world_files(str(root), stamps)


_OF_WORLD: dict[int, tuple[object, tuple[People, list[Event]]]] = {}


def _of_world(world) -> tuple[People, list[Event]]:
    """``world_files`` once per compiled world (a changed world folder is compiled again, a new object):
    two stats per episode were ~70 µs on this machine's file system, 4% of creating an episode."""
    kept = _OF_WORLD.get(id(world))
    if kept is None or kept[0] is not world:
        if len(_OF_WORLD) >= 64:
            _OF_WORLD.pop(next(iter(_OF_WORLD)))
        kept = _OF_WORLD[id(world)] = (world, world_files(world.root))
    return kept[1]


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=64)
def _read_world_files(root: str, stamps: tuple) -> tuple[People, list[Event]]:
    people = _read(Path(root) / "people.yaml", People) if stamps[0] else People()
    events = _read(Path(root) / "events.yaml", _WorldEvents) if stamps[1] else _WorldEvents()
    return people, events.events


def _read(path: Path, model):
    try:
        return model.model_validate(yaml.safe_load(path.read_text()) or {})
    except (yaml.YAMLError, ValueError) as exc:
        raise EventsError(f"{path}: {exc}") from None


def install(episode: Episode, task: Task | None = None, scope: dict[str, Any] | None = None) -> None:
    """Give ``episode`` its world's and task's events and co-workers, if there are any; the steps so far
    (a task's setup) set nothing off. The task's events' arguments may name what setup saved (``scope``)."""
    people, world_events = _of_world(episode.world)
    if task is None and not people.npcs and not world_events:
        return   # the common case, at each episode's creation: nobody acts but the agent
    episode.events, episode.reactor = EventQueue(), None   # a task's episode starts over from its world's
    npcs = {n.email.lower(): n for n in [*people.npcs, *(task.npcs if task else [])]}
    try:
        mine = [_resolved(e, scope or {}) for e in task.events] if task else []
    except UnboundReference as exc:
        raise EventsError(f"{task.id if task else ''}: {exc}") from None
    events = list({e.name: e for e in [*world_events, *mine]}.values())
    user = task.user if task else None
    if not npcs and not events and user is None:
        return
    owner = task.id if task else episode.world.name
    known = {p.email.lower(): p.name for p in episode.world.info.people}
    strangers = sorted(set(npcs) - set(known))
    if strangers:
        raise EventsError(f"{owner}: NPCs must be people of the world: {strangers}")
    for event in events:
        for call in event.do:
            if episode.operation(call.app, call.name) is None:
                raise EventsError(f"{owner}: event {event.name}: no operation {call.op}")
    cast = People(seed=people.seed, npcs=list(npcs.values()))
    modelled = any(n.model for n in cast.npcs)
    replies = Replies.from_env() if modelled or (user is not None and user.model is not None) else None
    models = ModelCast(cast.npcs, cast.seed, replies) if modelled and replies is not None else None
    reactor = WorldReactor(events, Cast(cast, known), user, models, replies)
    queue = episode.events
    start = episode.clock.now()
    for event in events:
        if event.at is not None or event.after_seconds is not None:
            at = episode.world.info.utc(event.at) if event.at is not None else start + timedelta(seconds=event.after_seconds or 0)
            queue.push(at, {"kind": "event", "name": event.name})
        else:
            queue.waiting.append({"kind": "event", "name": event.name})
    queue.observed = len(episode.trajectory)
    episode.reactor = reactor


def _resolved(event: Event, scope: dict[str, Any]) -> Event:
    if not scope:
        return event
    calls = [call.model_copy(update={"args": resolve(call.args, scope)}) for call in event.do]
    return event.model_copy(update={"do": calls})


class WorldReactor:
    """Events and NPCs of one task (shared by the episode's forks: all it holds is configuration)."""

    def __init__(self, events: list[Event], cast: Cast, user: User | None = None, models: ModelCast | None = None,
                 replies: Replies | None = None):
        self.events = {e.name: e for e in events}
        self.cast = cast
        self.user = user
        self.models = models     # the model-backed NPCs (scenarios.people.llm), when any
        self.replies = replies   # where model replies come from, when an NPC or the user has a model

    def answer(self, episode: Episode, question: str) -> str | None:
        """The task's user's answer by rule (``tasks.model.User``); ``None`` without a user."""
        user = self.user
        if user is None:
            return None
        earlier = [s for s in episode.trajectory if asked_user(s)]
        if len(earlier) >= user.max_questions:
            return user.enough
        fact = next((f for f in user.facts if re.search(f.about, question, re.IGNORECASE)), None)
        ruled = fact.answer if fact is not None else user.otherwise
        if user.model is None or self.replies is None or episode.models == "off":
            return ruled
        asked = [_question_and_answer(s) for s in earlier]
        try:
            return user_answer(self.replies, user.model, [(f.about, f.answer) for f in user.facts], asked, question,
                               episode.salt, episode.models)
        except ModelError as exc:   # recorded (before the question's own step), then the rule answers
            _Acts(episode, episode.clock.now(), "the user's model").fail(
                "task.ask_user", {"question": question}, "user", f"the user's model gave no answer: {exc}")
            return ruled

    def observe(self, episode: Episode, step: Step) -> None:
        scheduled = self.cast.observe(step)
        if self.models is not None:
            scheduled = self.models.observe(episode.models, step, scheduled)
        for at, item in scheduled:
            episode.events.push(at, item)
        if step.state_changed and episode.events.waiting:
            self._conditions(episode, step)

    def _conditions(self, episode: Episode, step: Step) -> None:
        queue = episode.events
        for item in list(queue.waiting):
            event = self.events.get(item["name"])
            if event is not None and event.when is not None and _holds(episode, event.when):
                queue.waiting.remove(item)
                queue.push(step.virtual_time, item)

    def fire(self, episode: Episode, at: datetime, item: dict) -> None:
        if item["kind"] == "event":
            self._event(episode, at, item["name"])
        elif item["kind"] == "npc.model" and self.models is not None:
            acts = _Acts(episode, at, item["cause"])
            self.models.fire(episode.models, episode.salt, item, acts, lambda rule: self.cast.fire(rule, acts))
        else:
            self.cast.fire(item, _Acts(episode, at, item["cause"]))

    def _event(self, episode: Episode, at: datetime, name: str) -> None:
        event = self.events.get(name)
        if event is None:
            return
        timed = event.at is not None or event.after_seconds is not None
        if timed and event.when is not None and not _holds(episode, event.when):
            return   # the guard does not hold: the event does not happen (nothing to record)
        acts = _Acts(episode, at, f"event {name}", surface="event")
        for call in event.do:
            acts.act(call.op, call.args, call.actor or episode.actor)


class _Acts:
    """Runs a reactor's calls in ``episode`` stamped ``at`` with ``cause`` (``scenarios.people.rules.Acts``)."""

    def __init__(self, episode: Episode, at: datetime, cause: str, surface: Surface = "npc"):
        self.episode, self.at, self.cause, self.surface = episode, at, cause, surface

    def act(self, op: str, args: dict[str, Any], actor: str) -> Step:
        app, name = op.split(".", 1)
        operation = self.episode.operation(app, name)
        if operation is None:
            return self.fail(op, args, actor, f"this episode has no operation {op}")
        return invoke(self.episode, operation, args, self.surface, actor=actor, at=self.at, cause=self.cause)

    def fail(self, op: str, args: dict[str, Any], actor: str, message: str) -> Step:
        app, name = op.split(".", 1)
        step = Step(index=len(self.episode.trajectory), surface=self.surface, app=app, operation=name, actor=actor,
                    arguments=args, error={"type": "conflict", "message": message}, mutates=True,
                    state_changed=False, virtual_time=self.at, wall_time=datetime.now(timezone.utc),
                    duration_ms=0.0, cause=self.cause)
        self.episode.trajectory.append(step)
        if self.episode.recorder is not None:
            self.episode.recorder(step)
        return step


def _question_and_answer(step: Step) -> list:
    if step.operation == "ask_user":
        return [step.arguments.get("question"), (step.result or {}).get("answer")]
    return [step.arguments.get("answer"), (step.result or {}).get("reply")]


def asked_user(step: Step) -> bool:
    """Whether ``step`` put a question to the user: ``task.ask_user``, or a final answer with status
    ``needs_input`` that the user answered (``apps.kit.reactor.goes_on``)."""
    if step.app != "task" or step.error is not None:
        return False
    return step.operation == "ask_user" or (step.operation == "submit_answer" and goes_on(step.result))


def _holds(episode: Episode, condition: Condition) -> bool:
    app = condition.from_.split(".", 1)[0]
    state = State({app: episode.read_db(app).conn})
    tz = episode.world.info.timezone
    found = any(matches(r, condition.where, tz) for r in state.records(condition.from_, condition.where))
    return not found if condition.none else found
