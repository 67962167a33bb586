"""The world's chance draws for the optional modules (MODULES.md 19, 20): the weather tile and the
road-condition tokens at set-up, the Legend card each round. Drawn from the race's seeded generator in the
order the race needs them; a race without the modules never draws, so base races are unchanged."""

from __future__ import annotations

import random
from typing import Any

from ..engine import RaceState

Event = dict[str, Any]


def weather_event(state: RaceState, rng: random.Random) -> Event:
    """The weather tile (one of six, # 20.2) or, once it is drawn, one token per corner from the shuffled
    twelve (# 20.2, MC8; a chicane is one corner, 22.2)."""
    rules = state.weather
    assert rules is not None
    if state.weather_tile is None:
        return {"type": "weather_drawn", "v": 1, "tile": rng.choice(sorted(rules.tiles))}
    from ..engine.modules.weather import corner_groups

    bag = sorted(t.id for t in rules.tokens.values() for _ in range(t.copies))
    rng.shuffle(bag)
    return {"type": "road_conditions_drawn", "v": 1, "tokens": bag[: len(corner_groups(state.track))]}


def legend_card_event(state: RaceState, rng: random.Random) -> Event:
    """This round's Legend card: any card not turned since the last reshuffle (# 19.5, MA9)."""
    rules, deck = state.legends, state.legend_deck
    assert rules is not None and deck is not None
    return {"type": "legend_card_revealed", "v": 1, "card": rng.choice(sorted(deck.available(rules)))}
