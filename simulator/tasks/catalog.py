"""The task catalog of a server: the shipped suites (or ``OFFICEWORLD_TASKS_DIR``) and the generated corpus
(``OFFICEWORLD_CORPUS``) over its episode store."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from apps.kit import Invalid
from apps.kit.settings import settings
from scenarios.corpus import PLAN, Plan
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations, world_sections
from tasks.catalog import Catalog
from tasks.corpus import Corpus, build
from tasks.loader import SUITES_DIR


def task_catalog(store: EpisodeStore, root: Path | None = None, corpus: str | None = None) -> Catalog:
    """A catalog of the suites under ``root`` (default: ``OFFICEWORLD_TASKS_DIR`` or the shipped ones) and of
    the corpus ``corpus`` names (default: ``OFFICEWORLD_CORPUS``; see ``plan_of``)."""
    root = root or settings().tasks_dir or SUITES_DIR
    operations = {f"{op.app}.{op.name}": op for op in all_operations(store.apps)}
    plan = plan_of(settings().corpus if corpus is None else corpus)
    # Episodes the engine makes itself (probes that learn what the oracle changes) keep no file; the
    # control API hands the catalog a recording episode for the episodes agents work in.
    return Catalog(operations, lambda task: store.create(task.world, task.actor, task=task, record=False), root,
                   release=lambda episode: store.delete(episode.id),
                   corpus=_writer(store, operations, plan) if plan is not None else None)


def plan_of(text: str) -> Plan | None:
    """``on``: the shipped plan; ``off``: none; ``WORLD:COUNT,...``: that many tasks per family on each world."""
    word = text.strip().lower()
    if word in ("on", "1", "true", "yes", ""):
        return PLAN
    if word in ("off", "0", "false", "no", "none"):
        return None
    worlds = []
    for part in word.split(","):
        name, _, count = part.strip().partition(":")
        if not name or not count.isdigit() or int(count) < 1:
            raise Invalid(f"OFFICEWORLD_CORPUS: {part.strip()!r} is not WORLD:COUNT (a world name and a positive "
                          "number of tasks per family); or say on or off", field="corpus")
        worlds.append((name, int(count)))
    return Plan(worlds=tuple(worlds), seed=PLAN.seed)


def _writer(store: EpisodeStore, operations: dict, plan: Plan) -> Callable[[], Corpus]:
    return lambda: build(world_sections(store.apps), operations, plan, cache=settings().cache)
