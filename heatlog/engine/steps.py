"""The steps of a round (# 2.1) as one enum, and the phases of a race.

The numbers are the rule book's step numbers, and they are what positions store (``turn.sub``, ``step``), so
old positions and snapshots read unchanged. Outside the engine the step is read only through
:func:`heatlog.engine.waiting_for` (``Waiting.step``); inside it, the module-level int aliases below keep the
hot path as fast as literals (an ``Enum`` attribute lookup costs four times as much as a global, and an
``IntEnum`` misses the exact-int comparison fast path).
"""

from __future__ import annotations

from enum import IntEnum


class Step(IntEnum):
    SETUP = 0  # grid, starting shuffles and hands (# 1.2–1.4)
    GEARS = 1  # every car at once (# 3)
    PLAY = 2  # every car at once (# 4)
    REVEAL = 3  # one car at a time from here: reveal and move, "+" flips (# 5, 14)
    ADRENALINE = 4  # (# 6): taken during React, never a step a turn waits in
    REACT = 5  # (# 7)
    SLIPSTREAM = 6  # (# 8)
    CORNERS = 7  # (# 9, 10): checked on the way from 5–6 to 8, never a step a turn waits in
    DISCARD = 8  # (# 11)
    REPLENISH = 9  # (# 12)
    DONE = 10  # the turn is over (a completed Turn record)

    @property
    def title(self) -> str:
        return STEP_NAMES.get(int(self), "turn over")


STEP_NAMES: dict[int, str] = {
    0: "set-up",
    1: "shift gears",
    2: "play cards",
    3: "reveal and move",
    4: "adrenaline",
    5: "react",
    6: "slipstream",
    7: "check corners",
    8: "discard",
    9: "replenish hand",
}

# Plain ints for the engine's own state (``Turn.sub``, ``RaceState.step``): CPython's fast paths compare exact
# ints only, and the step is compared on every event. ``STEPS[n]`` is the enum member of step ``n``.
SETUP, GEARS, PLAY, REVEAL, ADRENALINE, REACT, SLIPSTREAM, CORNERS, DISCARD, REPLENISH, DONE = map(int, Step)
STEPS: tuple[Step, ...] = tuple(Step)

PHASES = ("grid", "deal", "race", "over")  # a race's phases, in order; modules may add set-up phases (Rules)
