"""Results built in their dumped (JSON) form, straight from database rows, for the hottest reads.

An operation annotated ``-> Wire[X]`` declares ``X`` as its result (schemas, MCP, REST all see ``X``)
and returns ``Wire(data)``, where ``data`` is exactly what dumping an ``X`` would give
(``TypeAdapter(X).dump_python(x, mode="json")``): keys in the model's field order, times as pydantic
writes them. ``Operation.dump`` takes it as is (still looking for NaN), so a point read pays neither
pydantic's validation nor its serialisation (together most of a call's cost). Each fast path that
returns one is compared with its ORM reference, field by field and in order, on every record of a world.

``time`` turns a stored time into its dumped form; ``shape`` reads a result model's fields once and
gives the converters that turn one row of its columns into its dumped form.
"""

from __future__ import annotations

import types
from datetime import date, datetime, timezone
from typing import Any, Callable, Generic, Literal, Sequence, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter

T = TypeVar("T")
Convert = Callable[[Any], Any]
_DATETIME = TypeAdapter(datetime)


class Wire(Generic[T]):
    """A result of type ``T`` already dumped to its JSON form (see the module docstring)."""

    __slots__ = ("data",)

    def __init__(self, data: Any) -> None:
        self.data = data


M = TypeVar("M", bound=BaseModel)


def wired(result: M) -> Wire[M]:
    """A result made the ORM way, in its dumped form: for an operation answering ``Wire[X]`` whose plain-SQL path
    declined the call (``Wire(result.model_dump(mode="json"))``)."""
    return Wire(result.model_dump(mode="json"))


def time(text: str | None) -> str | None:
    """A stored UTC time (``2026-03-16 13:00:00.000000``, as SQLAlchemy writes it) in its dumped form
    (``2026-03-16T13:00:00Z``; fractions only when not zero, as pydantic writes them)."""
    if text is None:
        return None
    if len(text) == 26 and text[10] == " " and text[19] == ".":
        return f"{text[:10]}T{text[11:19]}Z" if text.endswith(".000000") else f"{text[:10]}T{text[11:]}Z"
    moment = datetime.fromisoformat(text)   # any other stored form: as pydantic dumps the aware time
    return _DATETIME.dump_python(moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc), mode="json")


def _flag(value: Any) -> Any:
    return value if value is None else bool(value)


def _day(value: Any) -> Any:
    return value if value is None or type(value) is str and len(value) == 10 else TypeAdapter(date).dump_python(
        date.fromisoformat(value), mode="json")


def converter(annotation: Any) -> Convert | None:
    """How a stored value of a field typed ``annotation`` becomes its dumped form: ``None`` when it already
    is (text, integers, floats, literals); a ``ValueError`` for a type a row cannot hold (a model, a list)."""
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        kinds = [a for a in get_args(annotation) if a is not type(None)]
        if len(kinds) != 1:
            raise ValueError(f"no stored form for {annotation!r}")
        return converter(kinds[0])
    if annotation is datetime:
        return time
    if annotation is date:
        return _day
    if annotation is bool:
        return _flag
    if annotation in (str, int, float) or origin is Literal:
        return None
    raise ValueError(f"no stored form for {annotation!r}")


class Shape(tuple):
    """``shape``'s (field, converter) pairs, with what ``row`` needs read from them once: the field names, and
    where a converter applies (most stored values are already in their dumped form)."""

    names: tuple[str, ...]
    converted: tuple[tuple[str, int, Convert], ...]

    def __new__(cls, pairs):
        made = super().__new__(cls, pairs)
        made.names = tuple(name for name, _ in made)
        made.converted = tuple((name, i, convert) for i, (name, convert) in enumerate(made) if convert is not None)
        return made


def shape(model: type[BaseModel], names: Sequence[str] | None = None) -> Shape:
    """(field, converter) for ``names`` (default: every field of ``model``), in the model's field order."""
    fields = model.model_fields
    wanted = list(fields) if names is None else [n for n in fields if n in set(names)]
    return Shape((name, converter(fields[name].annotation)) for name in wanted)


def row(spec: tuple[tuple[str, Convert | None], ...], values: Sequence[Any]) -> dict[str, Any]:
    """One row's values (in ``spec``'s order; more are left out) in their dumped form, keyed by field."""
    if type(spec) is not Shape or len(values) < len(spec):
        return {name: value if convert is None or value is None else convert(value)
                for (name, convert), value in zip(spec, values)}
    found = dict(zip(spec.names, values))   # the values, as most are already in their dumped form
    for name, i, convert in spec.converted:
        value = values[i]
        if value is not None:
            found[name] = convert(value)
    return found
