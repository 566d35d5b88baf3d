"""The errors an operation may raise, and nothing else reaches a caller.

    OpError                    a tool error: reported to the agent, never ends the episode
     ├── NotFound   (404)      the id or name does not exist for this user
     ├── Forbidden  (403)      it exists, but the acting user may not do this
     ├── Invalid    (422)      an argument is wrong; ``field`` names it
     ├── Conflict   (409)      the request is valid but the current state forbids it
     └── Unavailable (503)     the app's service cannot be reached; the call did nothing

Each surface translates them: an HTTP status and JSON body, an MCP result with ``isError``,
a CLI message on stderr with exit code ``exit_code``.
"""

from __future__ import annotations


class OpError(Exception):
    status = 400
    kind = "error"
    exit_code = 1

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field

    def to_dict(self) -> dict:
        return {"type": self.kind, "message": self.message, "field": self.field}

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


class NotFound(OpError):
    status, kind, exit_code = 404, "not_found", 4


class LostEpisode(NotFound):
    """An app service no longer holds the episode's state (it restarted): the gateway rebuilds it."""


class Forbidden(OpError):
    status, kind, exit_code = 403, "forbidden", 5


class Invalid(OpError):
    status, kind, exit_code = 422, "invalid", 2


class Conflict(OpError):
    status, kind, exit_code = 409, "conflict", 6


class Unavailable(OpError):
    status, kind, exit_code = 503, "unavailable", 3


def from_dict(data: dict) -> OpError:
    """Rebuild an error from its JSON form (the CLI and remote apps receive errors this way)."""
    kinds: dict[str, type[OpError]] = {c.kind: c for c in (NotFound, Forbidden, Invalid, Conflict, Unavailable)}
    cls = kinds.get(data.get("type") or "", OpError)
    return cls(data.get("message", "unknown error"), data.get("field"))
