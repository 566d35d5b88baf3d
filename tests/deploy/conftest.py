"""The live compose stack's fixture (tests/compose_stack.py), for test_compose_live.py and test_compose_scale_live.py."""

from __future__ import annotations

import pytest
from compose_stack import Stack, open_stack


@pytest.fixture(scope="module")
def stack() -> Stack:
    return open_stack()
