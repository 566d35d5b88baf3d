"""The reference the CRM ``query`` tests compare with: a cell as ``query`` first converted it, one call each
(before ``views._records`` converted cells inside its records' dict displays)."""

from __future__ import annotations

from datetime import datetime, timezone


def cell(value, kind: str):
    if kind == "bool" and value is not None:
        return bool(value)
    if kind == "datetime" and isinstance(value, str):
        return datetime.fromisoformat(value).replace(tzinfo=timezone.utc).isoformat().replace("+00:00", "Z")
    return value
