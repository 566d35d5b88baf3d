"""The calendar tests' world: the shared small world plus a calendar folder."""

from pathlib import Path

import pytest
from calendar_factories import make_calendar_world


@pytest.fixture
def world_dir(tmp_path: Path) -> Path:
    return make_calendar_world(tmp_path / "worlds")
