"""The world's side of the Garage set-up (# 18.5): the Garage deck's chance outcomes in a simulated race.

A simulated race draws each market (draft, snake draft) or each car's three cards (random) from what is left of
the Garage deck, with the race's one seeded generator; the cards go into the event, so replay never draws again.
Like every shuffle of the world (``world._shuffle``), a draw sorts the cards first, so it never depends on how the
deck happened to be ordered in memory.
"""

from __future__ import annotations

import random
from typing import Any

from ..engine.modules.garage import UPGRADES_EACH, Draft

Event = dict[str, Any]


def _draw(draft: Draft, n: int, rng: random.Random) -> list[str]:
    pool = sorted(card for card, copies in draft.deck.items() for _ in range(copies))
    return rng.sample(pool, min(n, len(pool)))


def garage_chance(draft: Draft, rng: random.Random) -> Event | None:
    """The chance event the draft waits for (a market, or a car's random deal), or None when it waits for a
    decision (a pick, a removal) or is over."""
    due, cars = draft.waiting()
    if due == "garage_market":
        return {
            "type": "garage_market",
            "v": 1,
            "round": draft.round + 1,
            "cards": _draw(draft, draft.next_market_size(), rng),
        }
    if due == "upgrades_dealt":
        return {"type": "upgrades_dealt", "v": 1, "car": cars[0], "cards": _draw(draft, UPGRADES_EACH, rng)}
    return None
