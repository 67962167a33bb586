"""How the bots choose upgrades in the Garage draft (# 18.5); how they play them is the engine's legal decisions.

The random bot needs nothing here: it picks uniformly among the legal picks the engine lists. The heuristic values
a card by what it usually brings over a race: its best Speed, its "+" flips (about 2.5 spaces each, free of Heat),
its cooldown and Stress relief, its slipstream reach, minus what it costs (Heat, scrapped cards); a Heat card from
the Garage deck is dead weight (# 18.27).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..engine.cards import HEAT
from ..engine.modules.garage.cards import Card, speeds, symbol

FLIP = 2.5  # the mean Basic card a "+" finds (1–4)
WEIGHTS: Mapping[str, float] = {
    "boost": FLIP,
    "cooldown": 1.2,
    "reduce": 0.9,
    "slipstream": 0.4,
    "adjust": 0.6,
    "salvage": 0.3,
    "super_cool": 1.0,
    "draft": 0.5,
    "refresh": 0.5,
    "direct": 0.8,
    "accelerate": 1.0,
    "heat": -1.6,
    "scrap": -0.1,
}


_VALUES: dict[int, tuple[Card, float]] = {}  # id(card) -> (the card, its value): a race's cards, asked per decision


def upgrade_value(card: Card | None) -> float:
    """A rough worth of one upgrade for the heuristic's deck (higher is better); ``None`` is a Heat card.
    Kept per card object (a race's card definitions never change; the card is held, so its id stays its own)."""
    if card is None:
        return -4.0
    hit = _VALUES.get(id(card))
    if hit is not None and hit[0] is card:
        return hit[1]
    value = _value(card)
    if len(_VALUES) > 4096:
        _VALUES.clear()
    _VALUES[id(card)] = (card, value)
    return value


def _value(card: Card) -> float:
    value = float(max(speeds(card)))
    if len(speeds(card)) > 1:
        value += 0.5  # a choice of values fits more corners
    for name, weight in WEIGHTS.items():
        value += weight * symbol(card, name)
    return value


def best_pick(choices: Sequence[str], cards: Mapping[str, Card], owned: Sequence[str] = ()) -> str:
    """The heuristic's pick among ``choices`` (tokens), first of the best in token order for determinism.
    A second card with a Heat cost is worth a little less (two of them strain the Engine)."""
    heat_cards = sum(1 for t in owned if t in cards and symbol(cards[t], "heat"))

    def score(token: str) -> tuple[float, str]:
        card = cards.get(token) if token != HEAT else None
        value = upgrade_value(card)
        if card is not None and symbol(card, "heat") and heat_cards:
            value -= 1.0
        return (-value, token)

    return min(choices, key=score)


def worst_card(owned: Sequence[str], cards: Mapping[str, Card]) -> str:
    """The card the heuristic gives back after a snake draft (# 18.5)."""
    return min(owned, key=lambda t: (upgrade_value(cards.get(t) if t != HEAT else None), t))
