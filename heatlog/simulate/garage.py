"""The world's side of the Garage set-up (# 18.5): the Garage deck's chance outcomes in a simulated race.

A simulated race draws each market (draft, snake draft) or each car's three cards (random) from what is left of
the Garage deck, with the race's one seeded generator; the cards go into the event, so replay never draws again.
The drawing itself is the engine's (:func:`heatlog.engine.modules.garage.cards.draft_chance`), shared with analysis.
"""

from __future__ import annotations

import random
from typing import Any

from ..engine.modules.garage.cards import Draft, draft_chance

Event = dict[str, Any]


def garage_chance(draft: Draft, rng: random.Random) -> Event | None:
    """The chance event the draft waits for (a market, or a car's random deal), or None when it waits for a
    decision (a pick, a removal) or is over."""
    return draft_chance(draft, rng)
