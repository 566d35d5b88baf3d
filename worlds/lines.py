"""YAML read with the line of every key and item, so a problem can name ``file:line``.

``read_yaml`` parses once (the node tree carries each value's start mark) and returns the data plus
a ``Lines`` that answers "which line holds this path of keys and indexes", so every check can name
the line where it finds a problem.
"""

from __future__ import annotations

from pathlib import Path

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Lines:
    """Maps a path of keys and indexes (``("people", 3, "email")``) to a 1-based line."""

    def __init__(self, node: yaml.Node | None = None):
        self.by_path: dict[tuple, int] = {}
        if node is not None:
            self._walk(node, ())

    def _walk(self, node: yaml.Node, path: tuple) -> None:
        self.by_path[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                here = path + (key.value,)
                self._walk(value, here)
                self.by_path[here] = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._walk(item, path + (index,))

    def line(self, path: tuple) -> int | None:
        """The line of ``path``, or of its nearest ancestor that the file holds."""
        path = tuple(str(p) if not isinstance(p, int) else p for p in path)
        while path:
            if path in self.by_path:
                return self.by_path[path]
            path = path[:-1]
        return self.by_path.get(())

    def at(self, where: str, path: tuple) -> str:
        """``where:line`` for a problem in this file at ``path``."""
        line = self.line(path)
        return f"{where}:{line}" if line else where


def read_yaml(path: Path, where: str, problems: list[str]):
    """The data of a YAML file and its ``Lines``; a syntax error becomes a problem with its line."""
    try:
        loader = _Loader(path.read_text(encoding="utf-8"))
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        problems.append(f"{where}{line}: not valid YAML: {exc.problem or exc}")
        return None, Lines()
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        problems.append(f"{where}: not valid YAML: {exc}")
        return None, Lines()
    return data, Lines(node)


def pydantic_problems(where: str, lines: Lines, exc, prefix: tuple = ()) -> list[str]:
    """One problem per pydantic error, each naming the file, the line and the field."""
    found = []
    for error in exc.errors():
        loc = prefix + tuple(error["loc"])
        found.append(f"{lines.at(where, loc)}: {'.'.join(str(p) for p in loc)}: {error['msg']}")
    return found

