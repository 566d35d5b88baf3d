"""Steps: the record of every operation called in an episode, from any surface.

A step keeps its result as the bytes of its JSON (``encode``, the REST answer's own bytes), not as the
dicts and lists the operation returned: a server holding 500 episodes held their recorded results
(32 KB and 87 tracked objects for an acme mail search; 11.8 KB and 14 kept encoded) as much of its heap,
and the cyclic garbage collector walked every one of those containers at each full collection (18 of
0.2-2.4 s in a load run). ``bytes`` are not tracked by the collector. ``step.result`` decodes them at
each read, without caching, since keeping the decoded value would bring the containers back for the
episode's life, while its readers (grading, a GUI page, replay, MCP's answer) read a step once or twice.
Serialising a step (``model_dump``, ``model_dump_json``, a trajectory file, the control API) writes the
decoded result, so the JSON is what it was when the step kept the objects; a step read from a file
encodes its result.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal, cast

import orjson
import pydantic_core
from pydantic import AfterValidator, BaseModel, PlainSerializer

from apps.kit.limits import finite
from worlds.model import Strict, unchecked


def encode(content: Any) -> bytes:
    """JSON as Starlette's ``JSONResponse`` writes it, compact UTF-8, a non-finite number (which the kit refuses on
    the way in) written ``null``: by orjson, which writes JSON data byte for byte as pydantic-core does at a third
    to a quarter of its time (``tests/apps/kit/test_step_encode.py``). What orjson refuses or would write its own
    way (an integer beyond 64 bits, a key not a string, a time, a dataclass, a subclass of ``str`` or ``int``) is
    written by pydantic-core, as before."""
    try:
        return orjson.dumps(content, option=_HANDED_ON)
    except TypeError:   # orjson.JSONEncodeError is one
        return pydantic_core.to_json(content, inf_nan_mode="null")


_HANDED_ON = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def kept(result: Any) -> Any:
    """A result as a step keeps it: ``None``, or the bytes of its JSON. A result is JSON data (an
    operation's dumped result, or what a file or an app service sent), never ``bytes`` itself; its NaN and
    Infinity are written ``null``, as ``Operation.dump`` makes them (the invoker's results are not looked at
    for them before). One that cannot be encoded (it cannot be answered either) is kept as it is, NaN as ``None``."""
    if result is None or type(result) is bytes:
        return result
    try:
        return encode(result)
    except (pydantic_core.PydanticSerializationError, ValueError, TypeError):
        return finite(result)


def _decoded(stored: Any) -> Any:
    """The kept result as JSON data: the bytes decoded by pydantic-core (what ``json.loads`` makes of them, value and
    type, at under half its time: ``tests/apps/kit/test_step_encode.py``), by ``json.loads`` what it refuses (nesting
    deeper than its limit)."""
    if type(stored) is not bytes:
        return stored
    try:
        return pydantic_core.from_json(stored)
    except ValueError:
        return json.loads(stored)


# The field as pydantic sees it: any JSON in, the decoded JSON out; what ``__dict__`` holds is ``kept``'s.
Result = Annotated[Any, AfterValidator(kept), PlainSerializer(_decoded, return_type=Any)]

# ``event``: a scheduled world event's call; ``npc``: a co-worker's (``apps.kit.reactor``), each with its ``cause``.
Surface = Literal["rest", "mcp", "cli", "gui", "python", "replay", "setup", "control", "peer", "event", "npc"]


class Step(Strict):
    """One call of one operation: what was asked, what came back, and whether state changed."""

    index: int
    surface: Surface
    app: str
    operation: str
    actor: str | None = None  # who acted, when not the episode's acting person (setup steps, calls "as" someone)
    arguments: dict[str, Any]
    result: Result = None   # kept as ``kept`` keeps it; ``step.result`` decodes it (the property below)
    error: dict[str, Any] | None = None
    mutates: bool
    state_changed: bool
    virtual_time: datetime
    wall_time: datetime
    duration_ms: float
    requested_by: int | None = None  # for a "peer" step: the index of the step whose operation asked for it
    # For an "event" or "npc" step: what set it off ("event <name>", "step <index>: rule <id>"), made of
    # names without quotes, so that it never holds the ``,"mutates":`` that ``model_dump_json`` looks for.
    cause: str | None = None

    @property
    def tool(self) -> str:
        return f"{self.app}_{self.operation}"

    @property
    def result_json(self) -> bytes:
        """The result's JSON as kept (``encode``), not decoded: what REST answers with."""
        stored = self.__dict__["result"]
        return stored if type(stored) is bytes else encode(stored)

    @property
    def kept_json(self) -> bytes | None:
        """The result's JSON as kept, ``encode``'s bytes; None when the step keeps it unencoded (``kept``)."""
        stored = self.__dict__["result"]
        return stored if type(stored) is bytes else None

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> "Step":  # type: ignore[override]
        if "result" in values:
            values["result"] = kept(values["result"])
        return cast("Step", super().model_construct(_fields_set, **values))

    def model_dump_json(self, **options: Any) -> str:
        """As pydantic writes it; without options, ``json_bytes`` decoded."""
        if options:
            return super().model_dump_json(**options)
        return self.json_bytes().decode()

    def json_bytes(self, head: bytes = b"{") -> bytes:
        """``model_dump_json()`` as UTF-8 bytes, its opening brace replaced by ``head`` (a trajectory file's line puts
        its ``"kind"`` first), made without a ``str`` in between. The kept result's bytes go in as they are (not
        decoded and encoded again: a trajectory file's line, the control API's call), in one pass over the other
        fields: put back with the error (none) before ``"mutates"``, whose ``,"mutates":`` is the last one written
        (after it come only booleans, times, numbers and a string)."""
        stored = self.__dict__.get("result")
        if self.error is not None or type(stored) is not bytes:
            return head + super().model_dump_json().encode()[1:]
        rest = self.__pydantic_serializer__.to_json(self, exclude=_UNWRITTEN)   # model_dump_json's bytes
        at = rest.rindex(b',"mutates":')
        return b"".join((head, rest[1:at], b',"result":', stored, b',"error":null', rest[at:]))

    def __repr_args__(self):
        return [(k, self.result if k == "result" else v) for k, v in super().__repr_args__()]

    def __iter__(self):   # ``dict(step)`` holds the result, as ``step.result`` does
        return iter([(k, self.result if k == "result" else v) for k, v in super().__iter__()])

    @classmethod
    def built(cls, **fields: Any) -> "Step":
        """A step from values the invoker has already checked, every field given: what ``model_construct``
        makes (the same ``__dict__`` and fields set, ``tests/apps/kit/test_step_record.py``) at a seventh
        of its cost, which was a fifth of a whole in-process call."""
        if fields.keys() != _STEP_FIELDS:
            return cls.model_construct(**fields)
        return cls.complete(fields)

    @classmethod
    def complete(cls, fields: dict[str, Any]) -> "Step":
        """``built`` for a dict the caller has just written with every field, in order (the invoker's):
        taken as the step's own ``__dict__`` (its result replaced by ``kept``'s), without unpacking it or
        comparing its keys."""
        fields["result"] = kept(fields["result"])
        return unchecked(cls, fields)


_STEP_FIELDS = Step.model_fields.keys()
_UNWRITTEN = {"result", "error"}   # spliced back by model_dump_json
# ``step.result`` reads the kept result decoded; setting it keeps the new one. Added after the class is
# built, as pydantic takes a name given in the class body for a field's default; ``__setattr__`` calls a
# property's setter.
Step.result = property(lambda step: _decoded(step.__dict__["result"]),
                       lambda step, value: step.__dict__.__setitem__("result", kept(value)),
                       doc="The result, decoded afresh from the JSON the step keeps (``None`` when it failed)")


class BrowserAction(Strict):
    """One action of a browser agent on the GUI, with the indices of the Steps it caused."""

    index: int
    action: str
    arguments: dict[str, Any]
    url: str
    error: str | None = None
    steps: list[int]
    wall_time: datetime
    duration_ms: float


class Trajectory(BaseModel):
    """An episode's steps with what they happened in: what the control API serves and finished episodes leave."""

    episode: str
    world: str
    actor: str
    steps: list[Step]
    browser_actions: list[BrowserAction] = []

    @classmethod
    def of(cls, episode) -> "Trajectory":
        return cls(episode=episode.id, world=episode.world.name, actor=episode.actor, steps=list(episode.trajectory),
                   browser_actions=list(getattr(episode, "browser_actions", [])))
