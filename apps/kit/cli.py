"""CLI surface: a typer command per operation (``<app> <operation>``), calling a REST endpoint.

Arguments map from the signature: the only required argument (or, when none is required, the
first) is positional if it is a scalar; every other
argument is an option (``message_ids`` -> ``--message-ids``, repeatable for lists); structured
arguments (objects, lists of objects) take JSON. Every command has ``--json``.
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from datetime import date, datetime
from typing import Any, Callable

import typer

from apps.kit.operation import Operation, Param

_SCALARS = (str, int, float, bool)
Caller = Callable[[Operation, dict], Any]
Printer = Callable[[Any, bool], None]


def _unwrap_optional(annotation) -> tuple[Any, bool]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _plain(annotation) -> Any:
    """The type a value is typed as on a command line: choices and dates are typed as text."""
    if typing.get_origin(annotation) is typing.Literal and all(isinstance(a, str) for a in typing.get_args(annotation)):
        return str
    if annotation in (date, datetime):
        return str
    return annotation


def _kind(annotation) -> tuple[str, Any]:
    """('scalar', type) | ('list', item type) | ('json', None)."""
    annotation = _plain(_unwrap_optional(annotation)[0])
    if annotation in _SCALARS:
        return "scalar", annotation
    if typing.get_origin(annotation) is list and _plain(typing.get_args(annotation)[0]) in _SCALARS:
        return "list", _plain(typing.get_args(annotation)[0])
    return "json", None


def _cli_param(p: Param, positional: bool) -> inspect.Parameter:
    kind, typ = _kind(p.annotation)
    help_text = p.description + (" (JSON)" if kind == "json" else "")
    default = None if not p.required or positional else ...
    if positional:
        info = typer.Argument(... if p.required else p.default, help=help_text, show_default=not p.required)
    elif kind == "list":
        info = typer.Option(None if not p.required else ..., help=help_text + " (repeat, or separate with commas)")
    else:
        info = typer.Option(default, help=help_text)
    annotation = {"scalar": typ, "list": list[typ] if kind == "list" else None, "json": str}[kind]
    if not positional and not p.required:
        annotation = annotation | None
    return inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=annotation)


def _positional(op: Operation) -> str | None:
    """The one argument given without an option name: the only required one, or else the first."""
    required = [p for p in op.params if p.required]
    candidates = required if required else op.params[:1]
    if len(candidates) == 1 and _kind(candidates[0].annotation)[0] == "scalar":
        return candidates[0].name
    return None


def _arguments(op: Operation, given: dict[str, Any]) -> dict[str, Any]:
    """CLI values to operation arguments; options left out are not sent, so defaults apply."""
    out = {}
    for p in op.params:
        value = given.get(p.name)
        if value is None:
            continue
        kind, typ = _kind(p.annotation)
        if kind == "json":
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise typer.BadParameter(f"not valid JSON ({exc.msg})", param_hint=f"--{p.name}") from None
        elif kind == "list" and typ is str:
            value = [part.strip() for item in value for part in item.split(",") if part.strip()]
        out[p.name] = value
    return out


def command(op: Operation, call: Caller, show: Printer) -> Callable:
    positional = _positional(op)

    def run(**given):
        as_json = given.pop("json_output")
        show(call(op, _arguments(op, given)), as_json)

    params = [_cli_param(p, p.name == positional) for p in op.params]
    params.append(inspect.Parameter("json_output", inspect.Parameter.KEYWORD_ONLY, annotation=bool,
                                    default=typer.Option(False, "--json", help="Print the result as JSON")))
    run.__signature__ = inspect.Signature(params)
    run.__doc__ = op.description
    return run


def app_commands(title: str, operations: list[Operation], call: Caller, show: Printer) -> typer.Typer:
    group = typer.Typer(help=title, no_args_is_help=True, add_completion=False)
    for op in operations:
        group.command(op.name.replace("_", "-"), help=op.description, short_help=op.summary)(command(op, call, show))
    return group

