"""Python's cycle collector, paused while the simulator plays a race (``simulate.world.play``) and while a worker
plays its chunk of playouts (``analysis.playout.run_chunk``).

A race makes no reference cycles: every object the race loop, the rules and the bots drop is freed by its
reference count (``tests/test_simulate.py`` checks it for every module: the collector, run after races played
with it off, finds nothing). The collector, triggered every few hundred allocations, would then only walk the
live heap again and again to find nothing: the heuristic bots' caches and the race state make that heap large,
and walking it cost about 3 % of a heuristic race (docs/performance.md). Were a cycle ever made, it would be
collected once the race is over. Playouts are races played on from a drawn world: they make no cycles either
(``tests/test_analysis_playout.py``), and gain as much.

When the block ends, what it left alive (the race's events and state, the bots' caches) joins the oldest
generation at once (``gc.freeze()`` then ``gc.unfreeze()``, which put every tracked object there and reset the
count of young allocations) instead of being walked by a young collection on the first allocation after the
collector is back: nothing the race made can be cyclic garbage, so that walk would find nothing, and it cost as
much as the pause saved (docs/performance.md, sixth pass). Every object stays collectable: a cycle made before
or after the race is found by the next full collection. A program that froze objects of its own
(``gc.get_freeze_count()``) keeps them frozen: the collector is then only re-enabled. Threads (playouts on a
thread pool) share the collector: the block that paused it turns it back on when it ends, even while another
thread's block still runs, which is always safe.
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
        if not gc.get_freeze_count():  # (a program's own frozen objects are not ours to unfreeze)
            gc.freeze()
            gc.unfreeze()
        gc.enable()
