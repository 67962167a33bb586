"""The pure rules core: events in, race state out. No I/O.

This package's names are the engine's public API: everything the shells (store, CLI, recorder, simulator,
views, analysis) and the tests need. Nothing outside the engine imports a name that starts with ``_``
(tests/test_quality.py checks it).
"""

from .decide import (
    Waiting,
    decisions,
    legal_gears,
    playable_sets,
    react_options,
    slipstream_status,
    waiting_for,
)
from .errors import AmbiguousInput, ConflictError, HeatlogError, IllegalEvent, MalformedInput, StoreError
from .knowledge import Knowledge
from .movement import landing
from .position import state_from_position, state_to_position
from .react import Happening, ReactPool, ReactUse, react_pool
from .rules import adrenaline_cars, apply, closing_event, go_on, replay, round_order, start_round
from .state import Car, RaceState, Turn
from .steps import STEP_NAMES, Step
from .track import Corner, Track

__all__ = [
    "AmbiguousInput",
    "Car",
    "ConflictError",
    "Corner",
    "Happening",
    "HeatlogError",
    "IllegalEvent",
    "Knowledge",
    "MalformedInput",
    "RaceState",
    "ReactPool",
    "ReactUse",
    "STEP_NAMES",
    "Step",
    "StoreError",
    "Track",
    "Turn",
    "Waiting",
    "adrenaline_cars",
    "closing_event",
    "apply",
    "decisions",
    "go_on",
    "landing",
    "legal_gears",
    "playable_sets",
    "react_options",
    "react_pool",
    "replay",
    "round_order",
    "slipstream_status",
    "start_round",
    "state_from_position",
    "state_to_position",
    "waiting_for",
]
