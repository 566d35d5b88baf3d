"""``ow``: the agent's command line, one command per operation, acting in one episode.

Configured by the environment:
    OW_URL       the server (default http://127.0.0.1:8000)
    OW_EPISODE   the episode id to act in (required)
    OW_SOCKET    optional unix socket to reach the server through (used inside a jail)

Results print as a table or YAML, or as JSON with ``--json``; errors go to stderr with a
non-zero exit code (2 invalid, 4 not found, 5 forbidden, 6 conflict, 3 server unreachable).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import httpx
import typer
import yaml
from rich.console import Console
from rich.table import Table

from apps.kit.cli import app_commands
from apps.kit.errors import from_dict
from apps.kit.operation import Operation
from apps.kit.rest import SURFACE_HEADER
from simulator.registry import APPS

UNREACHABLE = 3


def _client() -> httpx.Client:
    transport = httpx.HTTPTransport(uds=os.environ["OW_SOCKET"]) if os.environ.get("OW_SOCKET") else None
    base = os.environ.get("OW_URL", "http://127.0.0.1:8000")
    return httpx.Client(base_url=base, transport=transport, timeout=30, headers={SURFACE_HEADER: "cli"})


def fail(message: str, code: int) -> typer.Exit:
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(code)


def call(op: Operation, arguments: dict) -> Any:
    episode = os.environ.get("OW_EPISODE")
    if not episode:
        raise fail("OW_EPISODE is not set: export the id of the episode to act in", 2)
    try:
        with _client() as client:
            response = client.post(f"/episodes/{episode}/api/{op.app}/{op.name}", json=arguments)
    except httpx.HTTPError as exc:
        raise fail(f"cannot reach the officeworld server ({exc})", UNREACHABLE) from None
    if response.status_code >= 400:
        try:
            error = from_dict(response.json()["error"])
        except (ValueError, KeyError, TypeError):
            raise fail(f"server answered {response.status_code}: {response.text[:200]}", 1) from None
        raise fail(str(error), error.exit_code)
    return response.json()


def show(result: Any, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    rows = _rows(result)
    if rows:
        table = Table(show_lines=False)
        for column in (columns := _columns(rows[0])):
            table.add_column(column)
        for row in rows:
            table.add_row(*[_cell(row.get(c)) for c in columns])
        Console(width=None if sys.stdout.isatty() else 160).print(table)
        if isinstance(result, dict):
            rest = {k: v for k, v in result.items() if not isinstance(v, list)}
            if rest:
                print(yaml.safe_dump(rest, sort_keys=False, allow_unicode=True).strip())
        return
    print(yaml.safe_dump(result, sort_keys=False, allow_unicode=True, width=100).strip())


def _rows(result: Any) -> list[dict] | None:
    candidates = [result] if isinstance(result, list) else [v for v in result.values() if isinstance(v, list)] \
        if isinstance(result, dict) else []
    for value in candidates:
        if value and all(isinstance(item, dict) for item in value):
            return value
    return None


_PREFERRED = ("id", "name", "title", "subject", "sender", "owner", "status", "stage", "amount", "date",
              "modified", "labels", "type", "total", "unread")


def _columns(row: dict) -> list[str]:
    """At most seven columns, the ones a person scans first."""
    scalar = [k for k, v in row.items() if not isinstance(v, (dict, list)) or k == "labels"]
    ranked = sorted(scalar, key=lambda k: _PREFERRED.index(k) if k in _PREFERRED else len(_PREFERRED))
    return ranked[:7]


def _cell(value: Any) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else "" if value is None else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def build() -> typer.Typer:
    cli = typer.Typer(help="Act in an officeworld episode: ow <app> <operation> [arguments].",
                      no_args_is_help=True, add_completion=False)
    for app in APPS.values():
        cli.add_typer(app_commands(app.title, list(app.operations), call, show), name=app.name)
    return cli


def main() -> None:
    build()()


if __name__ == "__main__":
    main()
