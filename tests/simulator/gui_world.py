"""A small world with mail, CRM and docs data for the GUI tests (the apps' own test data, together)."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

HERE = Path(__file__).parent
for app in ("crm", "docs"):
    sys.path.insert(0, str(HERE.parent / "apps" / app))

from crm_factories import FILES  # noqa: E402
from docs_factories import make_docs_world  # noqa: E402


def make_gui_world(root: Path) -> Path:
    """The shared small world with the CRM tests' records and the docs tests' drive."""
    world = make_docs_world(root)
    (world / "crm").mkdir()
    for file, records in FILES.items():
        (world / "crm" / f"{file}.yaml").write_text(yaml.safe_dump(records, sort_keys=False))
    return world


def chromium_or_skip() -> str:
    """Debian's Chromium, which ``dev.sh`` installs; the browser tests cannot run without it."""
    import pytest

    from simulator.gui.browser import chromium_path
    try:
        return chromium_path()
    except RuntimeError as exc:
        pytest.skip(str(exc))
