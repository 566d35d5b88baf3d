"""The virtual clock: the only source of "now" for app logic; and the queue of what is due to happen."""

from __future__ import annotations

import heapq
import json
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


class EventQueue:
    """What is due to happen in an episode, in order of (virtual time, sequence), and its bookkeeping.

    Items are JSON objects (what a ``Reactor`` schedules and later fires); the queue only orders
    them. ``waiting`` holds items that fire when a condition over the state first holds, checked
    after each step; ``observed`` is how many steps of the trajectory the reactor has looked at.
    All of it is plain data, so forks copy it, snapshots write it and a restore reads it back.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[datetime, int, dict]] = []
        self.seq = 0
        self.waiting: list[dict] = []
        self.observed = 0

    def __len__(self) -> int:
        return len(self._heap) + len(self.waiting)

    def push(self, at: datetime, item: dict) -> int:
        """Schedule ``item`` at ``at``; among items due at the same time, the first pushed fires first."""
        self.seq += 1
        heapq.heappush(self._heap, (at, self.seq, item))
        return self.seq

    def next_time(self) -> datetime | None:
        return self._heap[0][0] if self._heap else None

    def pop_due(self, now: datetime) -> tuple[datetime, dict] | None:
        """The first item due at or before ``now`` (taken off the queue), or ``None``."""
        if not self._heap or self._heap[0][0] > now:
            return None
        at, _, item = heapq.heappop(self._heap)
        return at, item

    def pending(self) -> list[tuple[datetime, dict]]:
        return [(at, item) for at, _, item in sorted(self._heap, key=lambda e: (e[0], e[1]))]

    def copy(self) -> "EventQueue":
        return EventQueue.load(self.dump())

    def dump(self) -> dict:
        items = [[at.isoformat(), seq, item] for at, seq, item in sorted(self._heap, key=lambda e: (e[0], e[1]))]
        return {"seq": self.seq, "items": items, "waiting": self.waiting, "observed": self.observed}

    @classmethod
    def load(cls, data: dict) -> "EventQueue":
        queue = cls()
        queue.seq, queue.observed = data.get("seq", 0), data.get("observed", 0)
        queue.waiting = json.loads(json.dumps(data.get("waiting", [])))
        queue._heap = [(datetime.fromisoformat(at), seq, json.loads(json.dumps(item))) for at, seq, item in
                       data.get("items", [])]
        heapq.heapify(queue._heap)
        return queue
