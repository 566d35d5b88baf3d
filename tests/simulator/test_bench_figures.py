"""The bench's machine pace (``simulator.bench.figures.pace``): a figure, never asserted as a timing."""

from __future__ import annotations

import math

from simulator.bench.figures import pace


def test_pace_is_a_finite_positive_cpu_figure():
    figure = pace(repeat=5)
    assert math.isfinite(figure) and figure > 0
