"""One world for chance: how a full-information world (every deck's order known) draws each chance event.

The simulator's world (``simulate.world``), the game API's play-out (``game.play_out``, ``game.chance_event``)
and the analysis playouts (``analysis.playout``) all draw here, so a draw is written once: the grid (# 1.4), a
shuffle (the pile sorted first, then shuffled: the outcome never depends on how the pile lies in memory; at
set-up the deck less the cards dealt, # 21.4; after a Salvage the whole draw deck, # 18.18; else the discard
pile, # 5.6), a flip and a draw (the known top cards, # 5.2, 12.2), and every module's own draw, which the
module declares once (``Module.chance``, engine/module.py).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .cards import HAND_SIZE
from .errors import IllegalEvent
from .module import chance_event as module_chance
from .state import expand

if TYPE_CHECKING:
    from .decide import Waiting
    from .state import Car, RaceState

Event = dict[str, Any]


def shuffled(car: Car, rng: random.Random, whole_deck: bool = False) -> list[str]:
    """The order of ``car``'s shuffle: its set-up deck (every card not dealt already), its draw deck when a flip
    shuffles it whole (``whole_deck``: a Salvage, # 18.18), else its discard pile; sorted, then shuffled with
    ``rng``."""
    if whole_deck or car.needs_shuffle:
        counted = car.deck_counts()
        cards = expand(counted) if counted is not None else expand(car.pool) if car.needs_shuffle else car.discard
    else:
        cards = car.discard
    order = sorted(cards)
    rng.shuffle(order)
    return order


def shuffle_event(car: Car, rng: random.Random, whole_deck: bool = False) -> Event:
    return {"type": "deck_shuffled", "v": 1, "car": car.name, "order": shuffled(car, rng, whole_deck)}


def whole_deck(state: RaceState, flipping: str | None) -> bool:
    """Whether the flip under way (``Turn.flipping``) is a module's that shuffles the draw deck whole
    (``Rules.flip_draws``: the Garage's Salvage, # 18.18)."""
    return flipping is not None and state.rules.flip_draws.get(flipping) == "deck_shuffled"


def top_cards(car: Car, n: int) -> list[str]:
    """The ``n`` cards on top of ``car``'s known deck, the top one first (a draw)."""
    deck = car.deck
    assert deck is not None
    return deck[max(0, len(deck) - n) :][::-1]


def grid_event(state: RaceState, rng: random.Random) -> Event:
    grid = list(state.cars)
    rng.shuffle(grid)  # # 1.4: random starting order
    return {"type": "grid_set", "v": 1, "order": grid}


def draw(state: RaceState, rng: random.Random, w: Waiting) -> Event | None:
    """The chance event ``w`` (which waits for one) is due: drawn from what the world knows."""
    due = w.due
    if due == "card_flipped":  # (the most frequent with the draw: asked first)
        deck = state.cars[w.cars[0]].deck
        assert deck is not None
        return {"type": "card_flipped", "v": 1, "car": w.cars[0], "card": deck[-1]}
    if due == "cards_drawn":
        return {"type": "cards_drawn", "v": 1, "car": w.cars[0], "cards": top_cards(state.cars[w.cars[0]], w.count)}
    if due == "deck_shuffled":  # set-up, or a card is needed from an empty deck (# 5.6)
        return shuffle_event(state.cars[w.cars[0]], rng, whole_deck(state, w.flipping))
    if due == "grid_set":
        return grid_event(state, rng)
    return module_chance(state, rng)


def turn_draw(state: RaceState, car: Car, flipping: str | None, rng: random.Random) -> Event:
    """A car's turn waits for chance (a flip, the refill, a reshuffle of an empty deck, a scrapped card, the
    shuffle after a Salvage): ``draw`` without asking ``waiting_for`` (the game API's play-out, per event)."""
    own = state.rules.flip_draws.get(flipping) if flipping is not None else None  # a module's flip (Rules)
    if own == "deck_shuffled" or car.deck_size == 0:
        return shuffle_event(car, rng, own == "deck_shuffled")  # # 18.18: a Salvage shuffles the draw deck whole
    if car.deck is None:
        raise IllegalEvent(f"{car.name}'s deck order is unknown: sample a world first", car=car.name)
    if own is not None:
        ev = module_chance(state, rng)  # the module's own draw (# 18.12: a scrapped card, the top one)
        assert ev is not None
        return ev
    if flipping:
        return {"type": "card_flipped", "v": 1, "car": car.name, "card": car.deck[-1]}
    rules = state.rules  # (base_hand_size is HAND_SIZE: not called where the race keeps it)
    n = (HAND_SIZE if rules.unchanged.hand_size else rules.hand_size(state, car)) - car.hand_size
    if n > car.deck_size:
        n = car.deck_size
    return {"type": "cards_drawn", "v": 1, "car": car.name, "cards": top_cards(car, n)}
