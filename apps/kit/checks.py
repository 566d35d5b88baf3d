"""Checks on argument values that several apps share."""

from __future__ import annotations

import re

from apps.kit.errors import Invalid

_ADDRESS = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")


def email_address(value: str, field: str) -> str:
    """``value`` as a lower-case email address, or ``Invalid`` naming ``field``."""
    address = value.strip().lower()
    if not _ADDRESS.match(address):
        raise Invalid(f"{field}: {address!r} is not an email address", field=field)
    return address
