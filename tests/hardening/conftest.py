"""The hardening tests' world: the small world with mail, crm and docs data, so every operation has records."""

from pathlib import Path

import pytest
from full_world import make_full_world


@pytest.fixture
def world_dir(tmp_path: Path) -> Path:
    return make_full_world(tmp_path / "worlds")
