"""What an argument may hold, checked once at the kit boundary for every operation and every surface.

    numbers   finite (no NaN, Infinity or 1e999); integers within SQLite's signed 64-bit range
    text      valid Unicode (no lone surrogates), no NUL, at most ``TEXT_LIMIT`` characters per string
              unless the operation declares more (``@ops.write(text_limit=...)``)
    nesting   lists and objects at most ``DEPTH_LIMIT`` deep (deeper, pydantic and the trajectory
              file's JSON give up: the step could not be recorded)

``check`` walks the raw JSON arguments before pydantic sees them, so a bad value nested in a list
or an object is named by its path (``attachments.0.text``). ``bounded`` puts the same bounds in the
input schema. ``recordable`` is the JSON-safe form a Step records, and ``finite`` the form a result
leaves in. ``last_defence`` turns what SQLite or Python still refuse (an expression tree too large,
a LIKE pattern too complex, recursion too deep) into an ``Invalid`` instead of a crash.
"""

from __future__ import annotations

import math
import re
import sqlite3
import types
import typing
from typing import Annotated, Any

from pydantic import BaseModel, Field
from sqlalchemy.exc import DBAPIError

from apps.kit.errors import Invalid

INT_MIN, INT_MAX = -(2**63), 2**63 - 1
TEXT_LIMIT = 100_000
DEPTH_LIMIT = 64   # far past any argument's shape; well inside what pydantic validates and serialises (~250)
_SURROGATE = re.compile("[\ud800-\udfff]")
# Generic aliases built at run time: typed Any, since a checker reads ``list[x]`` with a variable x as a type.
_Union: Any = typing.Union
_list: Any = list
_dict: Any = dict
_NON_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}
# SQLite and Python errors that mean "this input is too big or too deep", never a bug in the app.
_TOO_COMPLEX = ("expression tree is too large", "like or glob pattern too complex", "too many sql variables",
                "parser stack overflow", "string or blob too big", "too many terms", "too many columns")


def check(arguments: dict[str, Any], text_limit: int = TEXT_LIMIT) -> None:
    """Raise ``Invalid`` naming the first value in ``arguments`` that no operation may receive."""
    for name, value in arguments.items():
        _check(value, str(name) or '""', text_limit)   # an argument named "" is named too


def checked(value: Any, where: str, text_limit: int = TEXT_LIMIT) -> Any:
    """``value`` when ``check`` would let it through as the argument ``where`` (for what is not an operation's
    argument but is recorded with it: an episode's ``meta``, an acting person); else ``Invalid``."""
    _check(value, where, text_limit)
    return value


def _check(value: Any, where: str, text_limit: int, depth: int = 0) -> None:
    if isinstance(value, str):
        _check_text(value, where, text_limit)
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise Invalid(f"{where}: {value} is outside the 64-bit integer range [{INT_MIN}, {INT_MAX}]", field=where)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise Invalid(f"{where}: must be a finite number, not {_number_name(value)}", field=where)
    elif isinstance(value, (list, tuple, dict)):
        if depth >= DEPTH_LIMIT:
            top = where.split(".", 1)[0]
            raise Invalid(f"{top}: lists and objects nested more than {DEPTH_LIMIT} deep; flatten it", field=top)
        if isinstance(value, dict):
            for key, item in value.items():
                _check_text(str(key), where, text_limit)
                _check(item, f"{where}.{key}", text_limit, depth + 1)
        else:
            for i, item in enumerate(value):
                _check(item, f"{where}.{i}", text_limit, depth + 1)


def check_finite(validated: dict[str, Any]) -> None:
    """Raise ``Invalid`` naming a non-finite number in arguments pydantic made: text such as ``"1e999"`` or
    ``"inf"`` passes ``check`` as text and becomes Infinity in lax mode wherever a float is asked for."""
    for name, value in validated.items():
        _check_finite(value, name)


def _check_finite(value: Any, where: str) -> None:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Invalid(f"{where}: must be a finite number, not {_number_name(value)}", field=where)
    elif isinstance(value, BaseModel):
        for key, item in value.__dict__.items():
            _check_finite(item, f"{where}.{key}")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, f"{where}.{key}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_finite(item, f"{where}.{i}")


def _check_text(text: str, where: str, text_limit: int) -> None:
    if len(text) > text_limit:
        raise Invalid(f"{where}: text of {len(text)} characters is longer than the limit of {text_limit}", field=where)
    if "\x00" in text:
        raise Invalid(f"{where}: text may not contain a NUL character (\\u0000)", field=where)
    if not text.isascii() and not valid_unicode(text):
        found = _SURROGATE.search(text)
        assert found is not None  # valid_unicode refused it, so there is one
        at = found.start()
        raise Invalid(f"{where}: text is not valid Unicode (lone surrogate at character {at})", field=where)


def _number_name(value: float) -> str:
    return _NON_FINITE.get(value, "NaN")


def bounded(annotation: Any, text_limit: int = TEXT_LIMIT) -> Any:
    """``annotation`` with the bounds of this module in its schema (ints, floats, strings, nested in lists)."""
    if annotation is int:
        return Annotated[int, Field(ge=INT_MIN, le=INT_MAX)]
    if annotation is float:
        return Annotated[float, Field(allow_inf_nan=False)]
    if annotation is str:
        return Annotated[str, Field(max_length=text_limit)]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return _Union[tuple(bounded(a, text_limit) for a in args)]
    if origin is list and len(args) == 1:
        return _list[bounded(args[0], text_limit)]
    if origin is dict and len(args) == 2:
        return _dict[args[0], bounded(args[1], text_limit)]
    return annotation


def recordable(value: Any, text_limit: int = TEXT_LIMIT, depth: int = 0) -> Any:
    """A JSON-safe copy of raw arguments for the Step: non-finite numbers as their names, invalid
    Unicode replaced, text past the limit cut, nesting past ``DEPTH_LIMIT`` cut (the call was refused;
    the record must still serialise)."""
    if isinstance(value, (dict, list, tuple)) and depth > DEPTH_LIMIT:
        return f"…[nested more than {DEPTH_LIMIT} deep, cut]"
    if isinstance(value, str):
        if len(value) > text_limit:
            value = f"{value[:1000]}…[{len(value)} characters, cut]"
        return value if value.isascii() or valid_unicode(value) else _SURROGATE.sub("\ufffd", value)
    if isinstance(value, float) and not math.isfinite(value):
        return _number_name(value)
    if isinstance(value, dict):
        return {recordable(str(k), text_limit): recordable(v, text_limit, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [recordable(v, text_limit, depth + 1) for v in value]
    return value


def valid_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def finite(data: Any) -> Any:
    """``data`` (a dumped result) with non-finite numbers as ``None``: JSON has no NaN or Infinity."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, list):
        return [finite(v) for v in data]
    return data


def last_defence(exc: BaseException, kwargs: dict[str, Any]) -> Invalid | None:
    """An ``Invalid`` for an input SQLite or Python could not handle, or ``None`` when ``exc`` is a bug."""
    field = _largest_argument(kwargs)
    if isinstance(exc, RecursionError):
        return Invalid(f"{field}: nested too deeply to evaluate; simplify it", field=field)
    if isinstance(exc, OverflowError):
        return Invalid(f"{field}: a number is too large ({exc})", field=field)
    cause = exc.orig if isinstance(exc, DBAPIError) else exc
    if isinstance(cause, sqlite3.Error) and any(text in str(cause).lower() for text in _TOO_COMPLEX):
        return Invalid(f"{field}: too large or complex to run ({cause}); make it shorter", field=field)
    return None


def _largest_argument(kwargs: dict[str, Any]) -> str | None:
    """The argument most likely to blame for an input too large: the one with the longest text form."""
    return max(kwargs, key=lambda name: len(repr(kwargs[name])), default=None)
