"""The corpus: every family of a plan over every world of it, deterministically by seed.

``write(view, families, count, seed)`` runs each family ``count`` times over one world. A family that cannot
place its data there (``Skip``) is reported with its reason and skipped; one that fails is reported with the
family, world and number, never as a traceback, and its task left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scenarios.draft import Draft
from scenarios.family import Family, Skip
from scenarios.view import WorldView


@dataclass(frozen=True)
class Plan:
    """Which worlds the corpus covers, how many tasks each family writes on each, and the seed."""

    worlds: tuple[tuple[str, int], ...]
    seed: int = 0


# The shipped corpus: the two written worlds (a software vendor, a law firm on a deal) and three generated
# companies of other kinds and sizes (worlds.generate.kinds).
PLAN = Plan(worlds=(("acme", 20), ("harbor-legal", 20), ("generated-m", 14), ("generated-legal-s-3", 14),
                    ("generated-logistics-m-5", 14)), seed=0)


@dataclass
class Written:
    tasks: list[dict] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)    # "family on world: why" (once per family and reason)
    problems: list[str] = field(default_factory=list)   # a family that failed: "family on world #n (seed s): what"


def write(view: WorldView, families: list[Family], count: int, seed: int = 0) -> Written:
    out = Written()
    for family in families:
        reasons: set[str] = set()
        for number in range(count):
            draft = Draft(family, view, number, seed)
            try:
                family.write(draft)
                out.tasks.append(draft.build())
            except Skip as exc:
                reasons.add(str(exc))
            except Exception as exc:  # a family's bug: named, not a traceback, and the others go on
                out.problems.append(f"{family.id} on {view.name} #{number} (seed {seed}): "
                                    f"{type(exc).__name__}: {exc}")
        out.skipped.extend(f"{family.id} on {view.name}: {reason}" for reason in sorted(reasons))
    return out
