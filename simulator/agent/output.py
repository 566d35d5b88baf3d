"""How ``ow`` prints a result: JSON with ``--json``; otherwise a table of its rows and YAML for the rest.

Standard library only, like the rest of ``ow``: the YAML is written here (plain JSON data needs
little of the format) and loads back to the same data; long text prints as a ``|`` block.
"""

from __future__ import annotations

import json
import re
import sys

_PREFERRED = ("id", "name", "title", "subject", "sender", "owner", "status", "stage", "amount", "date",
              "modified", "labels", "type", "total", "unread")
_PLAIN = re.compile(r"[A-Za-z][^\n\t#]*")
_WORDS = {"yes", "no", "true", "false", "on", "off", "null", "y", "n"}


def show(result: object, as_json: bool, out=None) -> None:
    out = out or sys.stdout
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False), file=out)
        return
    rows = _rows(result)
    if rows is None:
        print(to_yaml(result), file=out)
        return
    print(table(rows), file=out)
    rest = {k: v for k, v in result.items() if not isinstance(v, list)} if isinstance(result, dict) else {}
    if rest:
        print(to_yaml(rest), file=out)


def _rows(result: object) -> list[dict] | None:
    candidates = [result] if isinstance(result, list) else [v for v in result.values() if isinstance(v, list)] \
        if isinstance(result, dict) else []
    for value in candidates:
        if value and all(isinstance(item, dict) for item in value):
            return value
    return None


def _columns(row: dict) -> list[str]:
    """At most seven columns, the ones a person scans first."""
    scalar = [k for k, v in row.items() if not isinstance(v, (dict, list)) or k == "labels"]
    ranked = sorted(scalar, key=lambda k: _PREFERRED.index(k) if k in _PREFERRED else len(_PREFERRED))
    return ranked[:7]


def _cell(value: object) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else "" if value is None else str(value)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def table(rows: list[dict]) -> str:
    columns = _columns(rows[0])
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = [columns, ["-" * w for w in widths], *cells]
    return "\n".join("  ".join(text.ljust(w) for text, w in zip(line, widths)).rstrip() for line in lines)


def to_yaml(data: object, indent: int = 0) -> str:
    """YAML for JSON data (dicts, lists, text, numbers, booleans, null)."""
    pad = " " * indent
    if isinstance(data, dict) and data:
        lines = []
        for key, value in data.items():
            key = str(key)
            head = f"{pad}{key if _plain(key) else _quoted(key)}:"
            if isinstance(value, (dict, list)) and value:
                lines.append(head + "\n" + to_yaml(value, indent + 2 if isinstance(value, dict) else indent))
            else:
                lines.append(f"{head} {_scalar(value, indent + 2)}")
        return "\n".join(lines)
    if isinstance(data, list) and data:
        lines = []
        for item in data:
            if isinstance(item, (dict, list)) and item:
                inner = to_yaml(item, indent + 2)
                lines.append(f"{pad}- {inner[indent + 2:]}")
            else:
                lines.append(f"{pad}- {_scalar(item, indent + 2)}")
        return "\n".join(lines)
    return pad + _scalar(data, indent)


def _scalar(value: object, indent: int) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    if isinstance(value, float) and "e" in repr(value) and "." not in repr(value):
        return repr(value).replace("e", ".0e")  # YAML 1.1 reads 1e-09 as text
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    text = str(value)
    if "\n" in text.strip("\n") and _blockable(text):
        chomp = "-" if not text.endswith("\n") else "" if not text.endswith("\n\n") else "+"
        body = text[:-1] if text.endswith("\n") else text
        pad = " " * (indent or 2)
        return f"|{chomp}\n" + "\n".join(pad + line if line else "" for line in body.split("\n"))
    return text if _plain(text) else _quoted(text)


def _quoted(text: str) -> str:
    """A double-quoted scalar (JSON's escapes are YAML's), escaping what YAML would not read raw."""
    inner = json.dumps(text, ensure_ascii=False)[1:-1]
    return '"' + "".join(c if c.isprintable() else _escape(c) for c in inner) + '"'


def _escape(char: str) -> str:
    return f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}"


def _plain(text: str) -> bool:
    """Whether ``text`` reads back as the same text when written bare (not a number, date, bool or null)."""
    return (bool(_PLAIN.fullmatch(text)) and text.isprintable() and ": " not in text
            and not text.endswith((":", " ")) and text.lower() not in _WORDS)


def _blockable(text: str) -> bool:
    """Whether a ``|`` block keeps ``text`` exactly: printable, no leading blank on the first line."""
    first = text.split("\n", 1)[0]
    return (first[:1] not in (" ", "\t") and first.strip() != "" and "\r" not in text
            and all(c.isprintable() or c in "\n\t" for c in text) and not text.endswith("\n\n\n"))
