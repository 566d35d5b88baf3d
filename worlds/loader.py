"""Read a world folder into a ``World`` and check all of it, naming every problem with file and line.

Layout::

    world.yaml      company, domain, date "now", time zone, default actor, people, outsiders
    <app>/          each app's own section (mail: ``apps.mail.world``, crm: ``apps.crm.world``, docs:
                    ``apps.docs.world``, calendar: ``apps.calendar.world``), read by ``worlds.sections``

Loading never stops at the first problem: ``WorldError.problems`` lists them all, each written
``file:line: what is wrong``, so one run of ``officeworld worlds check`` shows everything to fix.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path

from pydantic import ValidationError

from worlds.digest import content_hash, keep_text, memo_for, settled, signature
from worlds.gcpause import paused
from worlds.lines import Lines, pydantic_problems, read_yaml
from worlds.model import World, WorldInfo
from worlds.sections import Sections, load_sections

WORLDS_DIR = Path(__file__).parent
# ``generated-m`` or ``generated-l-7``: a generated world (size, seed), written on first use and cached.
_GENERATED = re.compile(r"^generated-(?:(?P<kind>legal|logistics)-)?(?P<size>s|m|l|xl)(?:-(?P<seed>\d+))?$")
_CODE_DIGEST: str | None = None


class WorldError(ValueError):
    """A world could not be loaded; ``problems`` lists every problem found, each naming its file."""

    def __init__(self, root: Path, problems: list[str]):
        self.root = root
        self.problems = problems
        super().__init__(f"world {root} has {len(problems)} problem(s):\n  " + "\n  ".join(problems))


def world_names(base: Path = WORLDS_DIR) -> list[str]:
    return sorted(p.parent.name for p in base.glob("*/world.yaml"))


def find_world(name_or_path: str | Path, sections: Sections | None = None) -> Path:
    """Resolve a shipped world's name (``acme``) or a folder path to the world's folder."""
    path = Path(name_or_path)
    if (path / "world.yaml").is_file():
        return path
    shipped = WORLDS_DIR / str(name_or_path)
    if (shipped / "world.yaml").is_file():
        return shipped
    if match := _GENERATED.match(str(name_or_path)):
        from worlds.generate import ensure  # the generator pulls in faker: only load it when asked

        return ensure(match["size"], int(match["seed"] or 1), sections=sections, kind=match["kind"] or "software")
    known = ", ".join(world_names()) or "none"
    raise WorldError(path, [f"no world named {str(name_or_path)!r} (shipped worlds: {known}; generated: "
                            "generated-[legal-|logistics-]<s|m|l|xl>[-<seed>])"])


def load_world(name_or_path: str | Path, sections: Sections | None = None, digest: str | None = None) -> World:
    """Load and check a world; raise ``WorldError`` listing every problem if anything is wrong.
    ``sections`` are the world sections of apps that bring their own (``worlds.sections``); ``digest``
    is the folder's ``content_hash`` where the caller has just computed it."""
    root = find_world(name_or_path, sections)
    problems: list[str] = []
    info = _load_info(root, problems)
    if info is None:
        raise WorldError(root, problems)
    with paused():  # every record read stays alive in the world: nothing for the collector to find
        own = load_sections(root, info, sections or {}, problems)
    if problems:
        raise WorldError(root, problems)
    return World(root=root, info=info, content_hash=digest or content_hash(root), sections=own)


def load_info(name_or_path: str | Path, sections: Sections | None = None,
              memo: Path | None = None) -> tuple[Path, WorldInfo]:
    """The world's folder and its checked ``world.yaml`` alone: enough to start episodes on a world
    whose apps are already compiled, without reading every message and document.

    The checked info is kept in ``memo`` (default: beside the digest's, under the compiled-world cache)
    with ``world.yaml``'s size, times and inode and a digest of the code that reads and checks it; while
    none changed, it is taken from there (an ``xl`` world's file lists thousands of people: its YAML and
    checks cost a second). Kept only when the file is older than a second, as the digest is."""
    root = find_world(name_or_path, sections)
    memo = memo or _info_memo_for(root)
    stamp = _info_stamp(root / "world.yaml")
    kept = _kept_info(memo, stamp)
    if kept is not None:
        return root, kept
    problems: list[str] = []
    info = _load_info(root, problems)
    if info is None or problems:
        raise WorldError(root, problems)
    if memo and stamp and stamp[1]:
        keep_text(memo, json.dumps({"stamp": stamp[0]}) + "\n" + info.model_dump_json())
    return root, info


def _info_stamp(path: Path) -> tuple[str, bool] | None:
    """``world.yaml``'s size, times and inode with the digest of the code reading it, and whether the
    file is settled (older than ``_SETTLED_S``); ``None`` when it cannot be read."""
    try:
        s = path.stat()
    except OSError:
        return None
    return f"{signature(s)}:{_code_digest()}", settled(max(s.st_mtime_ns, s.st_ctime_ns))


def _code_digest() -> str:
    """This code's own digest (the loader, the model and the YAML reader, and pydantic's version): a kept
    info is taken only as this code would read and check the file."""
    global _CODE_DIGEST
    if _CODE_DIGEST is None:
        import pydantic

        from worlds import lines, model

        digest = hashlib.sha256(pydantic.VERSION.encode())
        for module in (lines, model, sys.modules[__name__]):
            digest.update(Path(module.__file__ or "").read_bytes())
        _CODE_DIGEST = digest.hexdigest()[:16]
    return _CODE_DIGEST


def _kept_info(memo: Path | None, stamp: tuple[str, bool] | None) -> WorldInfo | None:
    if memo is None or stamp is None:
        return None
    try:
        head, _, body = memo.read_text(encoding="utf-8").partition("\n")
        if json.loads(head).get("stamp") != stamp[0]:
            return None
        return WorldInfo.model_validate_json(body)
    except (OSError, ValueError):  # gone, torn or of another shape (ValidationError is a ValueError)
        return None


def _info_memo_for(root: Path) -> Path | None:
    """Where the checked ``world.yaml`` of ``root`` is kept: beside its digest."""
    memo = memo_for(root)
    return memo.with_suffix(".info") if memo else None


def _load_info(root: Path, problems: list[str]) -> WorldInfo | None:
    data, lines = read_yaml(root / "world.yaml", "world.yaml", problems)
    try:
        info = WorldInfo.model_validate(data)
    except ValidationError as exc:
        problems.extend(pydantic_problems("world.yaml", lines, exc))
        return None
    _check_people(info, lines, problems)
    return info


def _check_people(info: WorldInfo, lines: Lines, problems: list[str]) -> None:
    emails = Counter(p.email for p in info.people)
    outsiders = Counter(o.email for o in info.outsiders)  # an xl world has thousands: counted once
    for i, person in enumerate(info.people):
        at = lines.at("world.yaml", ("people", i))
        if person.email != person.email.lower():
            problems.append(f"{at}: {person.email}: addresses are written in lower case")
        if emails[person.email] > 1:
            problems.append(f"{at}: {person.email} appears more than once in people")
        if person.manager and person.manager not in emails:
            problems.append(f"{lines.at('world.yaml', ('people', i, 'manager'))}: {person.email}: manager "
                            f"{person.manager} is not a person of the world")
        elif _manages_itself(info, person.email):
            problems.append(f"{at}: {person.email}: the chain of managers goes round in a circle")
    for i, outsider in enumerate(info.outsiders):
        at = lines.at("world.yaml", ("outsiders", i))
        if outsider.email != outsider.email.lower():
            problems.append(f"{at}: {outsider.email}: addresses are written in lower case")
        if outsider.email in emails or outsiders[outsider.email] > 1:
            problems.append(f"{at}: outsider {outsider.email} is declared twice (or is also a person)")
    if info.default_actor not in emails:
        problems.append(f"{lines.at('world.yaml', ('default_actor',))}: default_actor {info.default_actor} "
                        "is not a person of the world")


def _manages_itself(info: WorldInfo, email: str) -> bool:
    managers = {p.email: p.manager for p in info.people}
    seen, current = {email}, managers.get(email)
    while current and current in managers:
        if current in seen:
            return current == email
        seen.add(current)
        current = managers[current]
    return False
