"""Form fields derived from an operation's signature, so a page never describes an operation twice."""

from __future__ import annotations

import types
import typing
from datetime import date, datetime
from typing import Any, Literal

from starlette.datastructures import FormData

from simulator.gui.page import form_value


def lf_lines(form: FormData) -> FormData:
    """The form with every text value's line endings as LF. Browsers submit a text area's lines ending in CRLF
    (the HTML standard's form encoding); Gmail, Salesforce and Google Docs store what was typed with LF, as the
    other surfaces do, so a body typed in the GUI is the same text as one sent over MCP. Uploads are untouched."""
    return FormData([(k, v.replace("\r\n", "\n").replace("\r", "\n") if isinstance(v, str) else v)
                     for k, v in form.multi_items()])


def _inner(annotation: Any) -> Any:
    """``X | None`` -> ``X``; ``Annotated[X, ...]`` -> ``X``."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = rest[0] if len(rest) == 1 else annotation
    return annotation


def kind_of(annotation: Any) -> tuple[str, list[str]]:
    """How a form shows an argument: (text | number | date | datetime-local | choice | area | check, options)."""
    inner = _inner(annotation)
    if typing.get_origin(inner) is Literal:
        return "choice", [str(v) for v in typing.get_args(inner)]
    return {int: ("number", []), float: ("number", []), date: ("date", []), datetime: ("datetime-local", []),
            bool: ("check", [])}.get(inner, ("text", []))


def fields(op, skip: tuple[str, ...] = (), areas: tuple[str, ...] = ("description", "body")) -> list[dict]:
    """One field per argument of ``op`` (but ``skip``), labelled from its name, typed from its annotation."""
    out = []
    for p in op.params:
        if p.name in skip:
            continue
        kind, options = kind_of(p.annotation)
        out.append({"name": p.name, "label": p.name.replace("_id", "").replace("_", " ").capitalize(),
                    "kind": "area" if p.name in areas else kind, "options": options, "required": p.required,
                    "help": p.description})
    return out


def arguments(op, form, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The form's values for ``op``'s arguments; blank fields are left out (the operation's default)."""
    args = {}
    for p in op.params:
        if p.name in skip:
            continue
        if kind_of(p.annotation)[0] == "check":
            args[p.name] = form.get(p.name) in ("on", "true", "1")
        else:
            args[p.name] = form_value(form, p.name)
    return args
