"""Write a world (a ``World``, or its parts) as a folder that ``load_world`` reads back unchanged.

The generator writes its worlds with this, and ``officeworld worlds dump`` re-writes a loaded world,
so the file format has one writer and one reader. Output is deterministic: the same world gives the
same bytes (sorted where order does not carry meaning). Apps with their own section write it themselves.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import yaml

from worlds.crm import CrmData
from worlds.docs import DocsData, Item
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
    write_crm(world.crm, out)
    write_docs(world.docs, out)
    for name, section in (sections or {}).items():
        if name in world.sections:
            section.write(world.sections[name], out)
    return out


def write_info(info: WorldInfo, out: Path) -> None:
    data = info.model_dump(mode="json")
    data["people"] = [_without_none(p) for p in data["people"]]
    data["outsiders"] = [_without_none(o) for o in data["outsiders"]]
    dump_yaml(data, out / "world.yaml")


def write_crm(crm: CrmData, out: Path) -> None:
    data = crm.model_dump(mode="json", exclude_defaults=True)
    for name in ("accounts", "contacts", "leads", "opportunities", "cases", "notes"):
        if data.get(name):
            dump_yaml(data[name], out / "crm" / f"{name}.yaml")
    activities = {name: data[name] for name in ("tasks", "events") if data.get(name)}
    if activities:
        dump_yaml(activities, out / "crm" / "activities.yaml")


def write_docs(docs: DocsData, out: Path) -> None:
    """Drives to ``docs/drives.yaml``; items to their own file (or one per drive / owner), content to sources."""
    folder = out / "docs"
    if docs.drives:
        dump_yaml({"shared_drives": [d.model_dump(mode="json", exclude_defaults=True) for d in docs.drives]},
                  folder / "drives.yaml")
    files: dict[str, list[dict]] = {}
    for item in docs.items:
        name = item.file.removeprefix("docs/") or re.sub(r"[^a-z0-9]+", "-", (item.drive or item.owner).lower()) + ".yaml"
        files.setdefault(name, []).append(_item(item, folder))
    for name, items in files.items():
        dump_yaml({"items": items}, folder / name)


def _item(item: Item, folder: Path) -> dict:
    """An item as YAML; content that has a ``source`` goes to that file instead of inline."""
    data = item.model_dump(mode="json", exclude_defaults=True, exclude={"file"})
    if item.source:
        _write_content(folder / item.source, item)
        for key in ("text", "rows", "content"):
            data.pop(key, None)
    for revision, raw in zip(item.revisions, data.get("revisions", [])):
        if revision.source:
            _write_content(folder / revision.source, revision)
            raw.pop("text", None)
            raw.pop("rows", None)
    return data


def _write_content(path: Path, holder) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if getattr(holder, "content", None) is not None:
        path.write_bytes(holder.content)
    elif holder.rows is not None:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(holder.rows)
        path.write_text(buffer.getvalue(), encoding="utf-8")
    else:
        path.write_text(holder.text or "", encoding="utf-8")


def _without_none(record: dict) -> dict:
    return {k: v for k, v in record.items() if v is not None}
