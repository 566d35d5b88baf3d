"""Read the parts of a Google-style docstring that the kit publishes: summary, description, Args."""

from __future__ import annotations

import inspect
import re

_SECTION = re.compile(r"^(Args|Arguments|Returns|Raises|Yields|Examples?|Notes?):\s*$")
_ARG = re.compile(r"^(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")


def parse(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into (description without sections, {argument: description})."""
    lines = inspect.cleandoc(doc or "").splitlines()
    description: list[str] = []
    args: dict[str, str] = {}
    section = None
    current = None
    for line in lines:
        head = _SECTION.match(line.strip()) if not line.startswith(" ") else None
        if head:
            section, current = head.group(1), None
            continue
        if section is None:
            description.append(line)
        elif section in ("Args", "Arguments"):
            current = _add_arg_line(args, line, current)
    return "\n".join(description).strip(), args


def _add_arg_line(args: dict[str, str], line: str, current: str | None) -> str | None:
    stripped = line.strip()
    if not stripped:
        return current
    indent = len(line) - len(line.lstrip())
    match = _ARG.match(stripped)
    if match and (current is None or indent <= 4):
        name = match.group(1).lstrip("*")
        args[name] = match.group(3).strip()
        return name
    if current is not None:
        args[current] = f"{args[current]} {stripped}".strip()
    return current
