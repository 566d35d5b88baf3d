"""CLI surface, server side: what the thin client ``ow`` needs to build one command per operation.

The server serves it per episode (``GET /episodes/{id}/api/tools``) and ``ow`` builds its
commands from it, so the client imports no app. Each tool carries the operation's app, name,
command (``reply_all`` -> ``reply-all``), summary, description, whether it changes state, its JSON
input schema (the one REST and MCP validate against) and its positional argument: the only
required argument (or, when none is required, the first) if it is a scalar. Every other argument
is an option (``message_ids`` -> ``--message-ids``, repeatable for lists of scalars); structured
arguments (objects, lists of objects) take JSON.
"""

from __future__ import annotations

import types
import typing
from datetime import date, datetime
from typing import Any

from apps.kit.operation import Operation

_SCALARS = (str, int, float, bool)


def _plain(annotation) -> Any:
    """The type a value is typed as on a command line: choices and dates are typed as text."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else annotation
    if typing.get_origin(annotation) is typing.Literal and all(isinstance(a, str) for a in typing.get_args(annotation)):
        return str
    return str if annotation in (date, datetime) else annotation


def kind(annotation) -> str:
    """'scalar', 'list' (of scalars) or 'json': how a command line takes an argument of this type."""
    annotation = _plain(annotation)
    if annotation in _SCALARS:
        return "scalar"
    if typing.get_origin(annotation) is list and _plain(typing.get_args(annotation)[0]) in _SCALARS:
        return "list"
    return "json"


def positional(op: Operation) -> str | None:
    """The one argument given without an option name: the only required one, or else the first."""
    required = [p for p in op.params if p.required]
    candidates = required if required else op.params[:1]
    if len(candidates) == 1 and kind(candidates[0].annotation) == "scalar":
        return candidates[0].name
    return None


def tool(op: Operation) -> dict:
    return {"app": op.app, "name": op.name, "command": op.name.replace("_", "-"), "summary": op.summary,
            "description": op.description, "mutates": op.mutates, "positional": positional(op),
            "input_schema": op.input_schema()}


def catalogue(apps: dict) -> dict:
    """``{"apps": [{name, title}], "tools": [...]}`` for the ``App`` objects ``apps`` (by name)."""
    return {"apps": [{"name": app.name, "title": app.title} for app in apps.values()],
            "tools": [tool(op) for app in apps.values() for op in app.operations]}
