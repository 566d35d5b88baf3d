"""The bench's machine pace (``simulator.bench.figures.pace``): a figure, never asserted as a timing."""

from __future__ import annotations

import math

from simulator.bench.figures import pace


def test_pace_is_a_finite_positive_cpu_figure():
    first, second = pace(repeat=5), pace(repeat=5)
    assert all(math.isfinite(x) and x > 0 for x in (first, second))
