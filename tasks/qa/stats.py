"""The figures: Wilson score bounds on a rate, the sample a bound needs, and Kendall's tau."""

from __future__ import annotations

import math
from itertools import combinations

Z95 = 1.959963984540054  # two-sided 95%


def wilson_upper(errors: int, n: int, z: float = Z95) -> float:
    """Upper end of the 95% Wilson score interval for ``errors`` in ``n`` (1.0 when ``n`` is 0)."""
    if n <= 0:
        return 1.0
    p = errors / n
    denominator = 1 + z * z / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return min(1.0, (centre + spread) / denominator)


def runs_needed(bound: float, errors: int = 0, z: float = Z95) -> int:
    """The fewest runs for which ``errors`` errors keep the Wilson upper bound at or below ``bound``."""
    n = max(1, errors)
    while wilson_upper(errors, n, z) > bound:
        n = n + max(1, n // 8) if n > 64 else n + 1
    while n > 1 and wilson_upper(errors, n - 1, z) <= bound:
        n -= 1
    return n


def kendall_tau(first: list[float], second: list[float]) -> float | None:
    """Kendall's tau-b between two scorings of the same items (ties handled); None if undefined."""
    if len(first) != len(second):
        raise ValueError("both rankings must score the same items")
    concordant = discordant = ties_first = ties_second = 0
    for i, j in combinations(range(len(first)), 2):
        a, b = _sign(first[i] - first[j]), _sign(second[i] - second[j])
        if a == 0 and b == 0:
            continue
        if a == 0:
            ties_first += 1
        elif b == 0:
            ties_second += 1
        elif a == b:
            concordant += 1
        else:
            discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_first) * (concordant + discordant + ties_second))
    return None if denominator == 0 else (concordant - discordant) / denominator


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)
