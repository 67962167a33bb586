"""How the bots play a championship race (``Module.bot_policy``): the first picker's swap of the season's upgrade
draft (# 21.2, MA11), valued by the Garage's upgrade values, and whether a spinout ends the car's race (the event
card's event 10, MODULES.md 21.8, MA21: 0 points, last place), which the heuristic weighs beyond the spaces and
Stress a spinout loses. The bots ask this policy, never the championship's rules by name (issue 26)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...module import BotPolicy, EndValue
from .rules import spinout_eliminates

if TYPE_CHECKING:
    from ...decide import Waiting
    from ...state import Car, RaceState

Event = dict[str, Any]


def swap_choice(state: RaceState, options: Sequence[Event]) -> Event:
    """The heuristic's answer to the first picker's swap (# 21.2): the legal swap that gains the most by the
    Garage's ``upgrade_value``, or no swap when none gains (first in order on a tie)."""
    from ...cards import HEAT
    from ..garage.bots import upgrade_value  # (the season's draft is the Garage's: loaded with a swap only)

    garage = state.garage
    cards = garage.cards if garage is not None else {}

    def worth(token: str) -> float:
        return upgrade_value(None if token == HEAT else cards.get(token))

    best, gain = next(o for o in options if "give" not in o), 0.0
    for o in options:
        if "give" in o and worth(o["take"]) - worth(o["give"]) > gain:
            best, gain = o, worth(o["take"]) - worth(o["give"])
    return best


def decide(state: RaceState, car: Car, w: Waiting, options: Sequence[Event], end_value: EndValue) -> Event | None:
    """The heuristic's choice for the championship's decisions: the season draft's swap (# 21.2)."""
    if w.due == "upgrade_swapped":
        return swap_choice(state, options)
    return None


POLICY = BotPolicy(decide=decide, owns=frozenset({"upgrade_swapped"}), spinout_eliminates=spinout_eliminates)


def policy() -> BotPolicy:
    """The championship's bot policy (``Module.bot_policy``)."""
    return POLICY
