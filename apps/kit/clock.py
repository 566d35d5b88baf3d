"""The virtual clock: the only source of "now" for app logic."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

# The latest a clock may be moved to: Python's dates end with year 9999, and ticks after a move must still fit.
LATEST = datetime(9000, 1, 1, tzinfo=timezone.utc)


class VirtualClock:
    """Time in an episode: starts at the world's date and moves only when told to.

    Every recorded step advances it by ``tick`` so that actions taken one after another get
    distinct, ordered and reproducible times. Times are aware, in UTC (a naive start is read as UTC).
    """

    def __init__(self, start: datetime, tick: timedelta = timedelta(seconds=5)):
        start = start if start.tzinfo else start.replace(tzinfo=timezone.utc)
        self._now = start.astimezone(timezone.utc)
        self.tick_size = tick

    def now(self) -> datetime:
        return self._now

    def tick(self) -> None:
        self._now += self.tick_size

    def advance(self, delta: timedelta) -> datetime:
        if delta < timedelta(0):
            raise ValueError("the clock only moves forward")
        if delta > LATEST - self._now:
            raise ValueError(f"the clock cannot move past {LATEST:%Y-%m-%d}; it stands at {self._now:%Y-%m-%d}")
        self._now += delta
        return self._now

    def copy(self) -> "VirtualClock":
        return VirtualClock(self._now, self.tick_size)
