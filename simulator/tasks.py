"""The task catalog of a server: the shipped suites over this server's episode store."""

from __future__ import annotations

from simulator.episodes import EpisodeStore
from simulator.registry import all_operations
from tasks.catalog import Catalog


def task_catalog(store: EpisodeStore) -> Catalog:
    operations = {f"{op.app}.{op.name}": op for op in all_operations(store.apps)}
    return Catalog(operations, lambda task: store.create(task.world, task.actor, task=task))
