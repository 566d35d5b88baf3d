"""Does a dumped result hold NaN or Infinity? Asked of every result, so asked only where one can be.

``finder(schema)`` reads an operation's result schema once and returns a function that looks only at
the places of a dumped result where a float may stand (``number`` fields, untyped values), or ``None``
when the schema has no such place. Untyped values (``Any``, ``dict[str, Any]``) and anything the schema
does not describe (a key it does not name, a recursive type) are walked whole, looking only at each
value's type (encoding them as JSON, as before, cost three times as much on a CRM query's rows). A false
positive costs only a rebuild (``limits.finite``); a miss is impossible: every value is described or walked.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable

Finder = Callable[[Any], bool]
_ENCODE = json.JSONEncoder(allow_nan=False, check_circular=False).encode
_PLAIN = {"integer", "string", "boolean", "null"}
_SCALARS = {str, int, bool, type(None)}


def untyped(value: Any) -> bool:
    """True when ``value`` (any dumped JSON value) holds a non-finite number or a value JSON cannot hold."""
    try:
        return _walk(value)
    except RecursionError:
        return True


def _walk(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        return not math.isfinite(value)
    if kind is dict:
        values: Any = value.values()
    elif kind is list:
        values = value
    else:
        return kind not in _SCALARS and _unencodable(value)
    for item in values:   # rows of scalars are the common case: looked at here, without a call each
        kind = type(item)
        if kind is float:
            if not math.isfinite(item):
                return True
        elif kind is dict or kind is list:
            if _walk(item):
                return True
        elif kind not in _SCALARS and _unencodable(item):
            return True
    return False


def _unencodable(value: Any) -> bool:
    try:
        _ENCODE(value)
    except (ValueError, TypeError, RecursionError):
        return True
    return False


def _number(value: Any) -> bool:
    return type(value) is float and not math.isfinite(value)


def finder(schema: dict) -> Finder | None:
    """A function telling whether a dumped value of ``schema`` holds a non-finite number; ``None`` when
    no value of it can."""
    return _build(schema, schema.get("$defs", {}), frozenset())


def _build(schema: Any, defs: dict, seen: frozenset) -> Finder | None:
    if not isinstance(schema, dict):
        return untyped
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name in seen or name not in defs:
            return untyped   # a recursive type: encoded whole
        return _build(defs[name], defs, seen | {name})
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            found = [f for f in (_build(s, defs, seen) for s in schema[key]) if f is not None]
            if not found:
                return None
            return found[0] if len(found) == 1 else _either(found)
    if "const" in schema or "enum" in schema:
        return None
    kind = schema.get("type")
    if isinstance(kind, list):
        return _build({"anyOf": [{**schema, "type": k} for k in kind]}, defs, seen)
    if kind in _PLAIN:
        return None
    if kind == "number":
        return _number
    if kind == "array" and "prefixItems" not in schema:
        return _array(_build(schema.get("items", {}), defs, seen))
    if kind == "object" and ("properties" in schema or "additionalProperties" in schema):
        return _object(schema, defs, seen)
    return untyped


def _either(found: list[Finder]) -> Finder:
    return lambda value: any(f(value) for f in found)


def _array(item: Finder | None) -> Finder | None:
    if item is None:
        return None
    if item is untyped:
        return untyped
    return lambda v: type(v) is list and any(item(x) for x in v)


def _object(schema: dict, defs: dict, seen: frozenset) -> Finder | None:
    props = {name: _build(sub, defs, seen) for name, sub in schema.get("properties", {}).items()}
    extra = schema.get("additionalProperties")
    declared = _build(extra, defs, seen) if isinstance(extra, dict) else (untyped if extra is True else None)
    if declared is None and all(f is None for f in props.values()):
        return None   # a model's fields, none of them a number: nothing to look at
    if declared is untyped and not props:
        return untyped
    # A key the schema does not name (an alias, say) is encoded, unless the schema says what other keys hold.
    other = untyped if extra is None else declared

    def find(value: Any) -> bool:
        if type(value) is not dict:
            return untyped(value)
        for key, item in value.items():
            f = props.get(key, other)
            if f is not None and f(item):
                return True
        return False
    return find
