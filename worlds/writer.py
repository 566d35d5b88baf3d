"""Write a world (a ``World``, or its parts) as a folder that ``load_world`` reads back unchanged.

The generator writes its worlds with this, and ``officeworld worlds dump`` re-writes a loaded world,
so the file format has one writer and one reader. Output is deterministic: the same world gives the
same bytes (sorted where order does not carry meaning). Apps with their own section write it themselves.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from worlds.gcpause import paused
from worlds.model import World, WorldInfo
from worlds.sections import Sections

_STR, _INT, _BOOL, _NULL = (f"tag:yaml.org,2002:{name}" for name in ("str", "int", "bool", "null"))
_MAP, _SEQ = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """The safe dumper (libyaml's emitter where installed) with the node tree of plain data built in one
    short function: the same nodes ``SafeRepresenter`` builds (aliases for a dict or list met twice
    included), at a fraction of its cost on a world's CRM and docs. Anything else goes to it."""

    def represent_data(self, data):
        kind = type(data)
        if kind is str:
            return ScalarNode(_STR, data, style=self.default_style)
        if kind is dict or kind is list:
            if self.default_flow_style is None or self.sort_keys:  # block style decided per node: the long way
                return super().represent_data(data)
            node = self.represented_objects.get(id(data))
            if node is not None:
                return node
            self.object_keeper.append(data)
            value: list = []
            if kind is dict:
                node = MappingNode(_MAP, value, flow_style=self.default_flow_style)
                self.represented_objects[id(data)] = node
                represent = self.represent_data
                value.extend((represent(k), represent(v)) for k, v in data.items())
            else:
                node = SequenceNode(_SEQ, value, flow_style=self.default_flow_style)
                self.represented_objects[id(data)] = node
                value.extend(map(self.represent_data, data))
            return node
        if kind is int:
            return ScalarNode(_INT, str(data), style=self.default_style)
        if kind is bool:
            return ScalarNode(_BOOL, "true" if data else "false", style=self.default_style)
        if data is None:
            return ScalarNode(_NULL, "null", style=self.default_style)
        return super().represent_data(data)

    def resolve(self, kind, value, implicit):
        """The resolver's tag for a scalar, worked out once per value and file (owners, stages and dates
        repeat throughout a world's YAML; the emitter asks twice for each scalar it writes)."""
        if kind is not ScalarNode or self.yaml_path_resolvers:
            return super().resolve(kind, value, implicit)
        key = (value, implicit)
        tag = self._resolved.get(key)
        if tag is None:
            tag = self._resolved[key] = super().resolve(kind, value, implicit)
        return tag

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._resolved: dict = {}


def dump_yaml(data, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with paused():  # the node tree of a large file: alive until written, nothing for the collector to find
        text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
    path.write_text(text, encoding="utf-8")


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
    if not data.get("sector"):
        data.pop("sector", None)
    data["people"] = [_without_none(p) for p in data["people"]]
    data["outsiders"] = [_without_none(o) for o in data["outsiders"]]
    dump_yaml(data, out / "world.yaml")




def _without_none(record: dict) -> dict:
    return {k: v for k, v in record.items() if v is not None}
