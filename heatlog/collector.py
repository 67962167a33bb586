"""Python's cycle collector, paused while the simulator plays a race (``simulate.world.play``).

A race makes no reference cycles: every object the race loop, the rules and the bots drop is freed by its
reference count (``tests/test_simulate.py`` checks it for every module: the collector, run after races played
with it off, finds nothing). The collector, triggered every few hundred allocations, would then only walk the
live heap again and again to find nothing: the heuristic bots' caches and the race state make that heap large,
and walking it cost about 3 % of a heuristic race (docs/performance.md). Were a cycle ever made, it would be
collected once the race is over. (Playouts, measured the same way, gained nothing from it: they are left as
they are.)
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cycle collector for the ``with`` block and restore it after, even when the block fails. A
    collector already off (paused by an outer block, another thread, or the caller) is left as it is."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
