"""Write a world (a ``World``, or its parts) as a folder that ``load_world`` reads back unchanged.

The generator writes its worlds with this, and ``officeworld worlds dump`` re-writes a loaded world,
so the file format has one writer and one reader. Output is deterministic: the same world gives the
same bytes (sorted where order does not carry meaning). Apps with their own section write it themselves.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from worlds.model import World, WorldInfo
from worlds.sections import Sections

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump_yaml(data, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110),
                    encoding="utf-8")


def write_world(world: World, out: Path, sections: Sections | None = None) -> Path:
    """Write every part of ``world`` under ``out`` (which should be empty or absent); each app that brings
    its own world section (``sections``) writes its data itself."""
    write_info(world.info, out)
    for name, section in (sections or {}).items():
        if name in world.sections:
            section.write(world.sections[name], out)
    return out


def write_info(info: WorldInfo, out: Path) -> None:
    data = info.model_dump(mode="json")
    data["people"] = [_without_none(p) for p in data["people"]]
    data["outsiders"] = [_without_none(o) for o in data["outsiders"]]
    dump_yaml(data, out / "world.yaml")




def _without_none(record: dict) -> dict:
    return {k: v for k, v in record.items() if v is not None}
