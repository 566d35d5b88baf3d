"""The control API's bearer token: trainers and runners send it; agents' surfaces never need it.

The token comes from ``OFFICEWORLD_TOKEN``; when unset, the server makes one at start and prints it.
"""

from __future__ import annotations

import secrets
import sys

from fastapi import Request

from apps.kit.errors import OpError
from apps.kit.settings import settings

TOKEN_ENV = "OFFICEWORLD_TOKEN"


class Unauthorized(OpError):
    status, kind, exit_code = 401, "unauthorized", 7


def control_token(token: str | None = None, announce: bool = True) -> str:
    """``token``, else ``OFFICEWORLD_TOKEN``, else a new one (printed to stderr so the operator sees it)."""
    token = token or settings().token
    if token:
        return token
    token = "ow_" + secrets.token_urlsafe(24)
    if announce:
        # A line to copy as is: a new token is made at every start unless the variable is set.
        print(f"control API token, made at this start (set {TOKEN_ENV} to choose one and keep it across restarts):"
              f"\n  export {TOKEN_ENV}={token}", file=sys.stderr)
    return token


def require_bearer(token: str):
    """A FastAPI dependency that refuses a request without ``Authorization: Bearer <token>``."""
    expected = f"Bearer {token}".encode()

    async def check(request: Request) -> None:  # async: a string compare needs no worker thread
        given = request.headers.get("authorization", "")
        if not given:
            raise Unauthorized("authorization: send the control token as 'Authorization: Bearer <token>'",
                               field="authorization")
        if not secrets.compare_digest(given.encode(), expected):
            raise Unauthorized("authorization: wrong control token", field="authorization")
    return check
