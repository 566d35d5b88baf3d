"""The crm tests' world: the shared small world plus a crm data folder."""

from pathlib import Path

import pytest
from crm_factories import make_crm_world


@pytest.fixture
def world_dir(tmp_path: Path) -> Path:
    return make_crm_world(tmp_path / "worlds")
