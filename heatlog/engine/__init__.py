"""The pure rules core: events in, race state out. No I/O.

This package's names are the engine's public API: everything the shells (store, CLI, recorder, simulator,
views, analysis) and the tests need. Nothing outside the engine imports a name that starts with ``_``
(tests/test_quality.py checks it).

The names are loaded when first used (PEP 562): importing ``heatlog.engine.errors`` (the store does, to raise
its errors) must not load the whole rules core, so that commands which never fold a race (``heatlog races``)
start fast. ``from heatlog.engine import apply`` works as before. The first of these names loads ``rules``
before its own module, so the registries (``ruleset.MODULES``, ``events.REGISTRY``, ``module.MODULES``) are whole
at their first access whichever name comes first (they register every module folder then: lazy discovery, a base
race loads none); code outside the engine that reads those registries without asking for one of these names
imports ``heatlog.engine.rules`` itself (heatlog/formats/validation.py does).
"""

from typing import TYPE_CHECKING, Any

from .errors import AmbiguousInput, ConflictError, HeatlogError, IllegalEvent, MalformedInput, StoreError
from .steps import STEP_NAMES, Step

if TYPE_CHECKING:
    from .decide import Waiting, decisions, legal_gears, playable_sets, react_options, slipstream_status, waiting_for
    from .knowledge import Knowledge
    from .movement import landing
    from .position import state_from_position, state_to_position
    from .react import Happening, ReactPool, ReactUse, react_pool
    from .rules import adrenaline_cars, apply, closing_event, go_on, replay, round_order, start_round
    from .state import Car, RaceState, Turn
    from .track import Corner, Track

#: Where each lazily loaded name lives.
_LAZY = {
    "Waiting": "decide",
    "decisions": "decide",
    "legal_gears": "decide",
    "playable_sets": "decide",
    "react_options": "decide",
    "slipstream_status": "decide",
    "waiting_for": "decide",
    "Knowledge": "knowledge",
    "landing": "movement",
    "state_from_position": "position",
    "state_to_position": "position",
    "Happening": "react",
    "ReactPool": "react",
    "ReactUse": "react",
    "react_pool": "react",
    "adrenaline_cars": "rules",
    "apply": "rules",
    "closing_event": "rules",
    "go_on": "rules",
    "replay": "rules",
    "round_order": "rules",
    "start_round": "rules",
    "Car": "state",
    "RaceState": "state",
    "Turn": "state",
    "Corner": "track",
    "Track": "track",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    importlib.import_module(".rules", __name__)  # registers the modules and the event types (see above)
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # once loaded, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
