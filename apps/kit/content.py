"""File content that travels inline in arguments and results: text when it is UTF-8, base64 otherwise.

Apps take a file as two exclusive arguments, ``text`` and ``content_base64`` (the agent gives one), and
give one back as ``encoding`` (``"text"`` or ``"base64"``) plus ``content``. Both directions live here
so that mail's attachments, docs' uploads and any later app read and write the same way.
"""

from __future__ import annotations

import base64
import binascii
from typing import Literal

from apps.kit.errors import Invalid

Encoding = Literal["text", "base64"]


def decode(text: str | None, content_base64: str | None, field: str = "content_base64") -> bytes:
    """The bytes of a file given as exactly one of ``text`` or ``content_base64``."""
    if (text is None) == (content_base64 is None):
        raise Invalid(f"{field}: give exactly one of text or content_base64", field=field)
    if text is not None:
        return text.encode()
    try:
        return base64.b64decode(content_base64 or "", validate=True)
    except (binascii.Error, ValueError):
        raise Invalid(f"{field}: not valid base64", field=field) from None


def encode(content: bytes | None) -> tuple[Encoding, str]:
    """``("text", str)`` for UTF-8 content, else ``("base64", str)``."""
    data = content or b""
    try:
        return "text", data.decode("utf-8")
    except UnicodeDecodeError:
        return "base64", base64.b64encode(data).decode()
