"""The world's docs data: its file format, its model, and its checks (see the module's loader)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict


class DocsData(BaseModel):
    model_config = ConfigDict(extra="forbid")


def load(root: Path, info, problems: list[str]) -> DocsData:
    """Read ``docs/`` of a world folder; append every problem found to ``problems``."""
    return DocsData()
