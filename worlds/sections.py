"""An app's own section of a world: how the app reads, checks, writes and generates its data.

``worlds`` keeps the company-wide part (``world.yaml``: company, people, outsiders, time zone) and
no app's data: every app, mail, CRM and docs included, brings its section itself, as
an object with this shape (``App.world`` in the kit; the simulator's registry collects them), so that
nothing in ``worlds/`` names that app. The loader, writer and generator take a mapping
``{app name: section}``; a world folder without the app's folder gets the section's empty data.

Cross-app integrity runs over what each section declares: ``addresses`` lists every address the
section's data names, each with the ``file:line`` that names it, and the loader checks them all
against the world's people and outsiders (an attendee, an assignee... must be known).

Two optional methods join a section to the generator's stories and the cross-app checks
(``worlds.consistency``) without naming the app: ``schedule(data, meetings)`` returns the data with the
stories' meetings added (``{key: {title, organizer, start, end, attendees, location}}``, naive times in
the world's zone), and ``meetings(data, info)`` lists the one-off meetings the data holds as
``{where, key, title, start (aware), attendees}`` for the checks to find what the mail names. A third,
``furnish(fake, rng, info, size, crm=..., told=...)``, replaces ``generate`` for a section whose generated
data is about the CRM's records and the stories' (docs): the generator passes those and its faker and rng.

The mail app's section (``apps.mail.world``) adds three: ``writings(data)`` gives what its messages
state (``{source, text, date, people}``) to the cross-app checks, ``thread_builder(...)`` the object the
generator's stories script their threads through (the generator needs the mail section), and
``sources`` the files besides the section's module whose change writes generated worlds again.
"""

from __future__ import annotations

import hashlib
import inspect
import random
from pathlib import Path
from typing import Any, Mapping, Protocol, TypeVar

from pydantic import BaseModel

from worlds.model import WorldInfo

Data = TypeVar("Data", bound=BaseModel)


class WorldSection(Protocol[Data]):
    """One app's part of a world folder, kept under ``<world>/<folder>/``, its data of type ``Data``
    (a section takes back the data it made: ``WorldSection[Any]`` where the type is not known)."""

    folder: str

    def load(self, root: Path, info: WorldInfo, problems: list[str]) -> Data:
        """Read ``root/<folder>`` (absent: empty data), appending every problem as ``file:line: what``."""

    def addresses(self, data: Data) -> list[tuple[str, str]]:
        """``(where, address)`` for every person the data names, ``where`` being ``file:line``."""

    def write(self, data: Data, out: Path) -> None:
        """Write ``data`` under ``out/<folder>`` so that ``load`` reads it back equal."""

    def generate(self, rng: random.Random, info: WorldInfo, size: str) -> Data:
        """Data for a generated world of ``size`` (``s``, ``m``, ``l``, ``xl``) over ``info``'s people."""


Sections = Mapping[str, WorldSection[Any]]


def load_sections(root: Path, info: WorldInfo, sections: Sections, problems: list[str]) -> dict[str, Any]:
    """Each section's data, with every address it names checked against the world's people and outsiders."""
    known = {p.email for p in info.people} | {o.email for o in info.outsiders}
    found = {}
    for name, section in sections.items():
        found[name] = data = section.load(root, info, problems)
        for where, address in section.addresses(data):
            if address.lower() not in known:
                problems.append(f"{where}: {address} is neither a person nor an outsider of the world "
                                "(add them to world.yaml's outsiders)")
    return found


def sections_key(sections: Sections) -> str:
    """A digest of the sections' code (the section's module, and the files its optional ``sources`` names):
    a generated world is written again when it changes."""
    digest = hashlib.sha256()
    for name in sorted(sections):
        section = sections[name]
        files = [Path(inspect.getfile(type(section))), *map(Path, getattr(section, "sources", ()))]
        digest.update(name.encode() + b"".join(path.read_bytes() for path in dict.fromkeys(files)))
    return digest.hexdigest()[:12]
