"""Model replies kept by content: one JSON file per key, ``<folder>/<key[:2]>/<key>.json``.

The key is the SHA-256 of everything the reply depends on (``key``): the person, their persona (its
version and text), the model, the prompt's version, what they saw, and the episode's salt. The same
inputs always find the same reply, so a replay or a regrade answers from here and never asks again;
another salt is another key, so K rollouts salted apart meet K replies. An entry is written once
(atomically) and never replaced: the first reply for a key is the reply.
"""

from __future__ import annotations

import json
import os
import tempfile
from hashlib import sha256
from pathlib import Path
from typing import Any


def key(*parts: Any) -> str:
    """The content key of ``parts`` (JSON with sorted keys: dict order never changes it)."""
    return sha256(json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False).encode()).hexdigest()


class ReplyCache:
    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def path(self, name: str) -> Path:
        return self.folder / name[:2] / f"{name}.json"

    def get(self, name: str) -> dict | None:
        """The entry kept for ``name``, or None (an unreadable entry counts as none)."""
        try:
            return json.loads(self.path(name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, name: str, entry: dict) -> dict:
        """Keep ``entry`` for ``name`` unless one is kept already; returns the one kept."""
        kept = self.get(name)
        if kept is not None:
            return kept
        target = self.path(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=target.parent, suffix=".part")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(entry, fh, ensure_ascii=False, sort_keys=True)
        try:
            os.link(temporary, target)   # never over an entry another process kept meanwhile
        except FileExistsError:
            return self.get(name) or entry
        finally:
            os.unlink(temporary)
        return entry
