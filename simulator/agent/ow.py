"""``ow``: the agent's command line, one command per operation, acting in one episode.

Configured by the environment:
    OW_URL       the server (default http://127.0.0.1:8000)
    OW_EPISODE   the episode id to act in (required)
    OW_SOCKET    optional unix socket to reach the server through (used inside a jail)
    OW_CACHE     where the episode's tool list is cached (default $XDG_CACHE_HOME/officeworld/ow; "off" disables)

A thin client: it imports only the standard library (``http.client``, ``argparse``), fetches the
episode's tools from ``GET /episodes/{id}/api/tools`` once, caches them on disk per server and
episode, and builds the one command it runs from them. Results print as a table or YAML, or as JSON
with ``--json``; errors go to stderr with a non-zero exit code (2 invalid, 4 not found, 5 forbidden,
6 conflict, 3 server unreachable).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
import zlib

from simulator.agent.output import show

SURFACE_HEADER = "x-officeworld-surface"  # apps.kit.rest.SURFACE_HEADER; a test keeps the two equal
UNREACHABLE = 3
EXIT_CODES = {"invalid": 2, "not_found": 4, "forbidden": 5, "conflict": 6, "unavailable": 3}  # OpError.exit_code
_CACHE_DAYS = 2
TIMEOUT = 60


class Failure(Exception):
    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def request(method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
    """One HTTP/1.1 request to the server (over ``OW_SOCKET`` when set); status and body.

    A few lines of socket code rather than ``http.client``, whose imports (the email package) cost
    more than the rest of ``ow``.
    """
    base = os.environ.get("OW_URL") or "http://127.0.0.1:8000"
    scheme, _, rest = base.partition("://")
    netloc, _, prefix = rest.partition("/")
    target = "/" + "/".join(part for part in (prefix.strip("/"), path.lstrip("/")) if part)
    data = b"" if body is None else json.dumps(body).encode()
    head = (f"{method} {target} HTTP/1.1\r\nHost: {netloc}\r\n{SURFACE_HEADER}: cli\r\nConnection: close\r\n"
            + (f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n" if body is not None else "")
            + "\r\n")
    try:
        if scheme != "http":
            raise OSError(f"only http:// is supported, not {scheme}://")
        with _connect(netloc) as sock:
            sock.sendall(head.encode("latin-1") + data)
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return _parse(b"".join(chunks))
    except (OSError, ValueError) as exc:
        raise Failure(f"cannot reach the officeworld server at {base} ({exc})", UNREACHABLE) from None


def _connect(netloc: str) -> socket.socket:
    if os.environ.get("OW_SOCKET"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(TIMEOUT)
        sock.connect(os.environ["OW_SOCKET"])
        return sock
    host, port = (netloc.rsplit(":", 1) if netloc.rsplit(":", 1)[-1].isdigit() else (netloc, "80"))
    # As bytes, an address skips the IDNA codec (and its imports) that a str host goes through.
    # typeshed reads the host as str only; socket takes bytes (getaddrinfo does).
    return socket.create_connection((host.strip("[]").encode("idna" if not host.isascii() else "ascii"),  # type: ignore[arg-type]
                                     int(port)), timeout=TIMEOUT)


def _parse(raw: bytes) -> tuple[int, bytes]:
    """Status and body of a whole HTTP/1.1 response (``Content-Length``, chunked, or up to the close)."""
    head, sep, rest = raw.partition(b"\r\n\r\n")
    if not sep:
        raise ValueError("the connection closed before a whole response came")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    if "chunked" in headers.get("transfer-encoding", ""):
        body = b""
        while True:
            line, _, rest = rest.partition(b"\r\n")
            size = int(line.split(b";")[0], 16)
            if size == 0:
                return status, body
            body, rest = body + rest[:size], rest[size + 2:]
    length = headers.get("content-length")
    return status, rest[:int(length)] if length else rest


def _error(status: int, content: bytes) -> Failure:
    try:
        error = json.loads(content)["error"]
        message, code = error["message"], EXIT_CODES.get(error["type"], 1)
    except (ValueError, KeyError, TypeError):
        return Failure(f"server answered {status}: {content[:200].decode(errors='replace')}", 1)
    return Failure(f"{error['type']}: {message}", code)


def episode() -> str:
    value = os.environ.get("OW_EPISODE")
    if not value:
        raise Failure("OW_EPISODE is not set: export the id of the episode to act in", 2)
    if not (value.isascii() and value.isprintable()) or " " in value:   # e.g. the README's ep_… copied as is
        raise Failure(f"OW_EPISODE is {value!r}, not an episode id: export the id `officeworld up` printed "
                      f"(ep_ and 16 hex digits, e.g. ep_0c7b0b4df5001993), not the README's placeholder", 2)
    return value


def _cache_file(episode_id: str) -> str | None:
    """Where this server's episode's tools are kept: ``<episode>-<crc of the server address>.json``."""
    setting = os.environ.get("OW_CACHE")
    if setting == "off":
        return None
    root = setting or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "officeworld", "ow")
    server = f"{os.environ.get('OW_URL') or 'http://127.0.0.1:8000'} {os.environ.get('OW_SOCKET', '')}"
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in episode_id)[:80]
    return os.path.join(root, f"{safe}-{zlib.crc32(f'{server} {episode_id}'.encode()):08x}.json")


def catalogue(episode_id: str) -> dict:
    """The episode's apps and tools: from the cache, or fetched once and cached."""
    path = _cache_file(episode_id)
    try:
        if path:
            with open(path, "rb") as cached:
                return json.loads(cached.read())
    except (OSError, ValueError):
        pass
    return _fetch(episode_id, path)


def _fetch(episode_id: str, path: str | None) -> dict:
    status, content = request("GET", f"/episodes/{episode_id}/api/tools")
    if status != 200:
        raise _error(status, content)
    data = json.loads(content)
    if path is not None:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            _prune(os.path.dirname(path))
            partial = f"{path}.{os.getpid()}.tmp"
            with open(partial, "wb") as out:
                out.write(content)
            os.replace(partial, path)
        except OSError:
            pass  # an unwritable cache only costs a fetch next time
    return data


def _prune(directory: str) -> None:
    """Drop the tool lists of episodes not used for a while (a training run makes thousands)."""
    cutoff = time.time() - _CACHE_DAYS * 86400
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.endswith(".json") and max(entry.stat().st_atime, entry.stat().st_mtime) < cutoff:
                os.unlink(entry.path)


# The grammar: from a tool's JSON input schema to argparse arguments.

_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool}


def _unwrap(schema: dict) -> dict:
    """``X | None`` is X on a command line (leaving an option out sends nothing)."""
    options = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
    return {**schema, **options[0]} if len(options) == 1 and "type" not in schema else schema


def kind(schema: dict) -> tuple[str, type | None]:
    """('scalar', type) | ('list', item type) | ('json', None), as ``apps.kit.cli.kind`` has it."""
    schema = _unwrap(schema)
    if schema.get("type") in _TYPES:
        return "scalar", _TYPES[schema["type"]]
    if schema.get("type") == "array":
        items = _unwrap(schema.get("items", {}))
        if items.get("type") in _TYPES:
            return "list", _TYPES[items["type"]]
    return "json", None


def _typed(typ: type):
    """argparse's ``type=``: text to ``typ``, with an error in words."""
    name = {str: "text", int: "integer", float: "number", bool: "boolean"}[typ]

    def convert(text: str):
        if typ is bool:
            if text.lower() in ("true", "yes", "1"):
                return True
            if text.lower() in ("false", "no", "0"):
                return False
            raise argparse.ArgumentTypeError(f"{text!r} is not true or false")
        try:
            return typ(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a valid {name}") from None
    convert.__name__ = name
    return convert


def parser(tool: dict) -> argparse.ArgumentParser:
    """The argparse parser of one operation's command."""
    schema = tool["input_schema"]
    required = set(schema.get("required", []))
    cmd = argparse.ArgumentParser(prog=f"ow {tool['app']} {tool['command']}", description=tool["description"],
                                  formatter_class=_formatter, allow_abbrev=False)
    for name, prop in schema.get("properties", {}).items():
        what, typ = kind(prop)
        help_text = (prop.get("description", "") + (" (JSON)" if what == "json" else "")).replace("%", "%%")
        item = _unwrap(prop) if what == "scalar" else _unwrap(prop.get("items", {})) if what == "list" else {}
        choices = f" One of: {', '.join(map(str, item['enum']))}." if "enum" in item else ""
        convert = _typed(typ) if typ else str
        if name == tool.get("positional") and what == "scalar":
            # Given by position or, as every other argument, by its option (``ow crm get-lead 3`` and
            # ``ow crm get-lead --lead-id 3`` alike); ``arguments`` takes whichever came and asks for a
            # required one. Left out, it is not sent (the server's default applies), as with options: the
            # step then records the arguments as REST and MCP would.
            cmd.add_argument(name, type=convert, help=help_text + choices + _default(prop), metavar=name.upper(),
                             nargs="?", default=None)
            cmd.add_argument(_flag(name), dest=_BY_FLAG + name, type=convert, metavar=name.upper(),
                             help=f"The same as {name.upper()}")
        elif what == "scalar" and typ is bool:
            cmd.add_argument(_flag(name), dest=name, action=argparse.BooleanOptionalAction, default=None,
                             help=help_text + _default(prop))
        elif what == "list":
            cmd.add_argument(_flag(name), dest=name, action="append", required=name in required,
                             metavar=name.upper(), help=help_text + choices + " (repeat, or separate with commas)")
        else:
            cmd.add_argument(_flag(name), dest=name, type=convert, required=name in required, metavar=name.upper(),
                             help=help_text + choices + _default(prop))
    cmd.add_argument("--json", dest="json_output", action="store_true", help="Print the result as JSON")
    return cmd


def _formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's formatter, told the width (it would import shutil, a tenth of ow's start, to ask)."""
    try:
        width = os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        width = 100
    return argparse.RawDescriptionHelpFormatter(prog, width=max(width - 2, 40))


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _default(prop: dict) -> str:
    return f" [default: {prop['default']}]" if prop.get("default") not in (None, [], "") else ""


_BY_FLAG = "by_flag__"   # the namespace's name for the positional argument given as an option


def _positional(tool: dict, parsed: argparse.Namespace, cmd: argparse.ArgumentParser) -> None:
    """The positional argument from its place or its option, once; an error when required and given neither."""
    name = tool.get("positional")
    if name is None:
        return
    placed, flagged = getattr(parsed, name, None), getattr(parsed, _BY_FLAG + name, None)
    if placed is not None and flagged is not None and placed != flagged:
        cmd.error(f"argument {_flag(name)}: given twice, as {placed!r} and as {flagged!r}")
    value = placed if placed is not None else flagged
    if value is None and name in tool["input_schema"].get("required", []):
        cmd.error(f"the following arguments are required: {name.upper()} (or {_flag(name)})")
    setattr(parsed, name, value)


def arguments(tool: dict, parsed: argparse.Namespace, cmd: argparse.ArgumentParser) -> dict:
    """Parsed values to operation arguments; options left out are not sent, so defaults apply."""
    out = {}
    _positional(tool, parsed, cmd)
    for name, prop in tool["input_schema"].get("properties", {}).items():
        value = getattr(parsed, name)
        if value is None:
            continue
        what, typ = kind(prop)
        if what == "json":
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                cmd.error(f"argument {_flag(name)}: not valid JSON ({exc.msg})")
        elif what == "list":
            assert typ is not None  # a list's items have a scalar type
            convert = _typed(typ)
            try:
                value = [convert(part.strip()) for item in value for part in item.split(",") if part.strip()]
            except argparse.ArgumentTypeError as exc:
                cmd.error(f"argument {_flag(name)}: {exc}")
        out[name] = value
    return out


def _help(data: dict | None, app: str | None = None) -> str:
    if data is None:
        return ("usage: ow <app> <operation> [arguments] [--json]\n\nActs in one officeworld episode. Set OW_EPISODE "
                "(and OW_URL) to list the apps and operations of your episode: ow --help, ow <app> --help.\n")
    if app is None:
        lines = [f"  {a['name']:<8} {a['title']}" for a in data["apps"]]
        return ("usage: ow <app> <operation> [arguments] [--json]\n\nAct in an officeworld episode: ow <app> "
                "<operation> [arguments]. ow <app> --help lists an app's operations; ow <app> <operation> --help "
                "its arguments.\n\napps:\n" + "\n".join(lines) + "\n")
    tools = [t for t in data["tools"] if t["app"] == app]
    width = max(len(t["command"]) for t in tools)
    title = next(a["title"] for a in data["apps"] if a["name"] == app)
    return (f"usage: ow {app} <operation> [arguments] [--json]\n\n{title}\n\noperations:\n"
            + "\n".join(f"  {t['command']:<{width}}  {t['summary']}" for t in tools) + "\n")


def run(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        try:  # help works without a server (a container's health check runs ow --help)
            print(_help(catalogue(episode())))
        except Failure as failure:
            print(_help(None) + (f"\n({failure})" if os.environ.get("OW_EPISODE") else ""))
        return 0 if argv else 2
    episode_id = episode()
    data = catalogue(episode_id)
    apps = {a["name"] for a in data["apps"]}
    if argv[0] not in apps:
        print(_help(data), file=sys.stderr)
        print(f"error: no app {argv[0]!r}; the apps are {', '.join(sorted(apps))}", file=sys.stderr)
        return 2
    app, rest = argv[0], argv[1:]
    tools = {t["command"]: t for t in data["tools"] if t["app"] == app}
    if not rest or rest[0] in ("-h", "--help") or rest[0] not in tools:
        print(_help(data, app), file=sys.stdout if not rest or rest[0] in ("-h", "--help") else sys.stderr)
        if rest and rest[0] not in ("-h", "--help"):
            print(f"error: no operation {rest[0]!r} in {app}; ow {app} --help lists them", file=sys.stderr)
            return 2
        return 0 if rest else 2
    tool = tools[rest[0]]
    cmd = parser(tool)
    parsed = cmd.parse_args(rest[1:])
    status, content = request("POST", f"/episodes/{episode_id}/api/{app}/{tool['name']}",
                              arguments(tool, parsed, cmd))
    if status >= 400:
        raise _error(status, content)
    show(json.loads(content), parsed.json_output)
    return 0


def main(argv: list[str] | None = None) -> None:
    try:
        code = run(sys.argv[1:] if argv is None else argv)
    except Failure as failure:
        print(f"error: {failure}", file=sys.stderr)
        code = failure.code
    except BrokenPipeError:  # ow ... | head: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    main()
