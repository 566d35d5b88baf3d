"""The task catalog of a server: the shipped suites (or ``OFFICEWORLD_TASKS_DIR``) over its episode store."""

from __future__ import annotations

import os
from pathlib import Path

from simulator.episodes import EpisodeStore
from simulator.registry import all_operations
from tasks.catalog import Catalog
from tasks.loader import SUITES_DIR


def task_catalog(store: EpisodeStore, root: Path | None = None) -> Catalog:
    """A catalog of the suites under ``root`` (default: ``OFFICEWORLD_TASKS_DIR`` or the shipped ones)."""
    root = root or Path(os.environ.get("OFFICEWORLD_TASKS_DIR") or SUITES_DIR)
    operations = {f"{op.app}.{op.name}": op for op in all_operations(store.apps)}
    return Catalog(operations, lambda task: store.create(task.world, task.actor), root)
