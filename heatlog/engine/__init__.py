"""The pure rules core: events in, race state out. No I/O."""

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
from .position import state_from_position, state_to_position
from .rules import apply, replay
from .state import Car, RaceState, Turn
from .track import Corner, Track

__all__ = [
    "AmbiguousInput",
    "Car",
    "ConflictError",
    "Corner",
    "HeatlogError",
    "IllegalEvent",
    "MalformedInput",
    "RaceState",
    "StoreError",
    "Track",
    "Turn",
    "Waiting",
    "apply",
    "decisions",
    "legal_gears",
    "playable_sets",
    "react_options",
    "replay",
    "slipstream_status",
    "state_from_position",
    "state_to_position",
    "waiting_for",
]
