"""The weather's slot of a race (``state.modules["weather"]``) and how the engine, the bots and the views read
it: apart from the descriptor (``__init__.py``) and the rules (``rules.py``), which both import it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...written import record

if TYPE_CHECKING:
    from ...state import RaceState
    from .rules import Conditions, WeatherRules

NAME = "weather"  # (its name, the key of its slot in ``state.modules``; the descriptor's NAME)


@record(frozen=True, slots=True)  # (not @dataclass: no code compiled at every start, engine/written.py; issue 32)
class WeatherSlot:
    """The weather's slot of a race (``state.modules["weather"]``): its rules, the tile drawn (# 20.2) and the
    road conditions built once the tokens are drawn (# 20.2). Immutable: shared by state copies (the descriptor
    has no ``copy``); an event that draws puts a new slot. Equal when its rules and conditions are the same
    objects (they compare by identity) and its tile is the same."""

    rules: WeatherRules
    tile: str | None = None
    conditions: Conditions | None = None

    def __init__(self, rules: WeatherRules, tile: str | None = None, conditions: Conditions | None = None) -> None:
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "tile", tile)
        object.__setattr__(self, "conditions", conditions)


def slot(state: RaceState) -> WeatherSlot | None:
    """The weather's slot of ``state`` (None: a race without the module)."""
    own: WeatherSlot | None = state.modules.get(NAME)
    return own


def weather_rules(state: RaceState) -> WeatherRules | None:
    """The race's weather rules (was ``state.weather``; None: a race without the module)."""
    own: WeatherSlot | None = state.modules.get(NAME)
    return None if own is None else own.rules


def weather_tile(state: RaceState) -> str | None:
    """The weather tile drawn (was ``state.weather_tile``; None: not drawn yet, or no weather, # 20.2)."""
    own: WeatherSlot | None = state.modules.get(NAME)
    return None if own is None else own.tile


def conditions_of(state: RaceState) -> Conditions | None:
    """The race's road conditions (was ``state.conditions``; None: not drawn yet, or no weather, # 20.2)."""
    own: WeatherSlot | None = state.modules.get(NAME)
    return None if own is None else own.conditions
