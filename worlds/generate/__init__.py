"""Generate a synthetic world of any size with faker: the same seed writes the same bytes.

People first, then CRM records (whose contacts become the world's outsiders: the section with a
``records_builder``, the CRM's, generates them with the generator's own faker), then the stories told
over those records (``scenarios.stories``: deals, escalations, hires, the quarter close, across mail, CRM,
docs and the calendar; handed in, since they write several apps' records), then filler mail and docs up
to the size, written through ``worlds.writer`` so the loader reads it back.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from faker import Faker
from rich.progress import Progress

from worlds.gcpause import paused
from worlds.generate.kinds import KINDS, Kind
from worlds.generate.people import make_info
from worlds.generate.sizes import SIZES, Size
from worlds.sections import Sections, sections_key
from worlds.writer import write_info

__all__ = ["SIZES", "Size", "ensure", "generate"]


def generate(seed: int, size: str, out: Path, progress: bool = False, name: str | None = None,
             sections: Sections | None = None, kind: str = "software", stories: Any = None) -> Path:
    """Write a world of ``size`` (a key of ``SIZES``) for ``seed`` into ``out``; return ``out``. Apps that
    bring their own world section (``sections``; default: the registry's) generate and write their data themselves.
    The stories are told over the records of the section with ``records_builder`` (the CRM's, built first with
    this faker) and script their messages through the section with ``thread_builder`` (mail's)."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: one of {', '.join(KINDS)}")
    with paused():  # a world's records all stay alive until written: nothing for the collector to find
        return _generate(seed, size, out, progress, name, sections, KINDS[kind], stories or storyteller())


def _generate(seed: int, size: str, out: Path, progress: bool, name: str | None, sections: Sections | None,
              kind: Kind, stories: Any) -> Path:
    sections = _sections(sections)
    told = next((app for app, s in sections.items() if hasattr(s, "records_builder")), None)
    writer = next((app for app, s in sections.items() if hasattr(s, "thread_builder")), None)
    if told is None or writer is None:
        raise ValueError("the generator's stories need a section with records_builder (crm) and one with "
                         "thread_builder (mail): pass simulator.store.registry.world_sections()")
    records: Any = sections[told]  # optional hooks, found by name above
    threads: Any = sections[writer]
    spec = SIZES[size]
    fake = Faker("en_US")
    fake.seed_instance(seed)
    rng = random.Random(seed)
    taken: set[str] = set()
    kinded = "" if kind.name == "software" else f"{kind.name}-"
    info = make_info(fake, rng, spec, name or f"generated-{kinded}{size}-{seed}", taken, kind)
    crm_builder = records.records_builder(fake, rng, info, taken)
    crm = crm_builder.build(spec.accounts)
    info.outsiders = crm_builder.outsiders
    with Progress(transient=True) if progress else nullcontext() as bar:
        tick = _ticker(bar, "mail", spec.messages)
        builder = threads.thread_builder(fake, rng, info, crm, seed)
        plot = stories(fake, random.Random(f"{seed}:stories"), info, crm, builder, taken).tell(spec.messages * 3 // 5)
        mail = builder.build(spec.messages, tick)
        write_info(info, out)
        records.write(crm, out)
        threads.write(mail, out)
    for app, section in sorted(sections.items()):
        if app in (told, writer):
            continue
        if hasattr(section, "furnish"):  # built over the CRM and the stories' documents, on the shared rng
            data = section.furnish(fake, rng, info, size, crm=crm, told=plot.items)
        else:
            data = section.generate(random.Random(f"{seed}:{app}"), info, size)
        if hasattr(section, "schedule"):  # the meetings the stories' mail names
            data = section.schedule(data, plot.meetings)
        section.write(data, out)
    return out


def storyteller() -> Any:
    """The stories told over a generated world (``scenarios.stories_office.Stories``): they write records of several
    apps at once, so they live in ``scenarios/``, above the apps; the generator is handed them (this default, like
    ``_sections``'s, is resolved when a world is generated, never at import)."""
    from scenarios.stories_office import Stories

    return Stories


def _story_sources() -> list[Path]:
    """The stories' code, part of a generated world's cache key (a changed story writes the world again)."""
    import scenarios

    return sorted(Path(scenarios.__file__).parent.glob("stories*.py"))


def _sections(sections: Sections | None) -> Sections:
    """The sections given, or the registry's (every app's)."""
    if sections is not None:
        return sections
    from simulator.store.registry import world_sections

    return world_sections()


def _ticker(bar: Progress | None, label: str, total: int):
    if bar is None:
        return lambda n=1: None
    task = bar.add_task(label, total=total)
    return lambda n=1: bar.advance(task, n)


def cache_root() -> Path:
    """Where generated worlds are kept: ``$OFFICEWORLD_CACHE_DIR/worlds`` (default ``$XDG_CACHE_HOME/officeworld``)."""
    from apps.kit.settings import settings

    return settings().cache / "worlds"


def world_name(size: str, seed: int = 1, kind: str = "software") -> str:
    """``generated-m``, ``generated-l-7``, ``generated-legal-s-3``: the name a generated world is served by."""
    return "generated-" + ("" if kind == "software" else f"{kind}-") + size + (f"-{seed}" if seed != 1 else "")


def ensure(size: str, seed: int = 1, base: Path | None = None, sections: Sections | None = None,
           kind: str = "software") -> Path:
    """A generated world on disk, written once per (size, seed, generator code): ``generated-m`` for tests
    and benchmarks without committing megabytes of mail. A changed generator writes a fresh folder."""
    code = hashlib.sha256(b"".join(p.read_bytes() for p in [*sorted(Path(__file__).parent.glob("*.py")),
                                                            *_story_sources()]))
    sections = _sections(sections)
    code.update(sections_key(sections).encode())
    folder = (base or cache_root()) / f"generated-{kind}-{size}-{seed}-{code.hexdigest()[:12]}"
    if not (folder / "world.yaml").is_file():
        partial = folder.with_name(folder.name + f".{os.getpid()}.tmp")
        shutil.rmtree(partial, ignore_errors=True)
        generate(seed, size, partial, name=world_name(size, seed, kind), sections=sections, kind=kind)
        try:
            partial.rename(folder)
        except OSError:  # another process finished first; its folder is the same world
            shutil.rmtree(partial, ignore_errors=True)
    return folder
