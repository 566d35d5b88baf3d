"""References to bindings inside task values: ``$deal``, ``$deal.amount``, ``"Re: ${deal.name}"``.

A string that is exactly a reference resolves to the bound value with its type (a number stays a
number); references inside longer text are formatted into it. ``$$`` writes a literal dollar.
"""

from __future__ import annotations

import re
from typing import Any

_WHOLE = re.compile(r"^\$([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*)$")
_INLINE = re.compile(r"\$\{([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*)\}")


class UnboundReference(KeyError):
    """A reference names no binding (or no field of it)."""

    def __str__(self) -> str:
        return str(self.args[0])


def lookup(path: str, scope: dict[str, Any]) -> Any:
    head, *rest = path.split(".")
    if head not in scope:
        raise UnboundReference(f"${path}: no binding named {head!r}")
    value = scope[head]
    for part in rest:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise UnboundReference(f"${path}: {head} has no field {part!r}")
    return value


def resolve(value: Any, scope: dict[str, Any]) -> Any:
    """``value`` with every reference replaced by what it names in ``scope``."""
    if isinstance(value, str):
        whole = _WHOLE.match(value)
        if whole:
            return lookup(whole.group(1), scope)
        if "$" not in value:
            return value
        return _INLINE.sub(lambda m: _text(lookup(m.group(1), scope)), value).replace("$$", "$")
    if isinstance(value, dict):
        return {k: resolve(v, scope) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, scope) for v in value]
    return value


def references(value: Any) -> set[str]:
    """The binding names ``value`` refers to (to check a task before running it)."""
    if isinstance(value, str):
        whole = _WHOLE.match(value)
        names = [whole.group(1)] if whole else _INLINE.findall(value)
        return {n.split(".")[0] for n in names}
    if isinstance(value, dict):
        return set().union(*(references(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(references(v) for v in value)) if value else set()
    return set()


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
