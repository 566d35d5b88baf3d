"""load -> compile -> dump -> load keeps the content: the same models and the same compiled databases."""

from __future__ import annotations

import pytest

from simulator.store.registry import APPS, world_sections
from worlds import load_world
from worlds.generate import generate
from worlds.writer import write_world


def content(world) -> dict:
    return world.model_dump(exclude={"root", "content_hash"})


def digests(world) -> dict[str, str]:
    return {name: app.build(world).digest() for name, app in APPS.items()}


@pytest.mark.parametrize("source", ["acme", "harbor-legal", "generated", "factory"])
def test_round_trip_keeps_content(source, tmp_path, world_dir):
    path = ({"acme": "acme", "harbor-legal": "harbor-legal", "factory": world_dir}.get(source)
            or generate(5, "s", tmp_path / "gen", sections=world_sections()))
    first = load_world(path, world_sections())
    before = digests(first)
    second = load_world(write_world(first, tmp_path / "dumped", world_sections()), world_sections())
    assert content(second) == content(first)
    assert digests(second) == before


def test_dump_normalises_to_a_fixed_point(tmp_path):
    sections = world_sections()
    once = write_world(load_world("harbor-legal", sections), tmp_path / "once", sections)
    twice = write_world(load_world(once, sections), tmp_path / "twice", sections)
    files = sorted(p.relative_to(once) for p in once.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(twice) for p in twice.rglob("*") if p.is_file())
    assert all((once / f).read_bytes() == (twice / f).read_bytes() for f in files)
