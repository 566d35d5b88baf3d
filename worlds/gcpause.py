"""``paused()``: the cyclic garbage collector held off while a world is generated, loaded or compiled.

Those steps build hundreds of thousands of small objects that all stay alive until the step ends; the
collector would walk all of them again and again (most of the time spent building a world's YAML
nodes, for one) and free nothing. Reference counting still frees what is dropped; the collector is
turned back on at the end of the outermost pause (and left off where the caller had turned it off)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    if not gc.isenabled():  # already paused (nested), or turned off by the caller: leave it so
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
