"""The task catalog of a server: the shipped suites over this server's episode store."""

from __future__ import annotations

from simulator.episodes import EpisodeStore
from simulator.registry import all_operations
from tasks.catalog import Catalog


def task_catalog(store: EpisodeStore) -> Catalog:
    operations = {f"{op.app}.{op.name}": op for op in all_operations(store.apps)}
    # Episodes the engine makes itself (probes that learn what the oracle changes) keep no file; the
    # control API hands the catalog a recording episode for the episodes agents work in.
    return Catalog(operations, lambda task: store.create(task.world, task.actor, task=task, record=False))
