"""The docs tests' world: the shared small world plus a docs data folder."""

from pathlib import Path

import pytest
from docs_factories import make_docs_world


@pytest.fixture
def world_dir(tmp_path: Path) -> Path:
    return make_docs_world(tmp_path / "worlds")
