"""Play whole races from a seed: the world (shuffles, flips, draws) plus bots for the decisions.

The world writes exactly the events an open-mode recorded race would have: every shuffle with its order,
every draw and flip by name. Bots decide only through ``heatlog.engine.decisions`` and see only what their
player could see (see ``heatlog.bots``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from .engine import RaceState, apply, decisions, waiting_for
from .engine.cards import HAND_SIZE
from .engine.rules import go_on
from .engine.state import expand

Event = dict[str, Any]
# A bot: (state, car name, legal decisions, rng) -> chosen decision, or None to go on (steps 5–8 only).
Bot = Callable[[RaceState, str, list[Event], random.Random], Event | None]
MAX_ROUNDS = 200  # no race comes near this: a race that reaches it is a bug, not a long race


def random_bot(state: RaceState, name: str, options: list[Event], rng: random.Random) -> Event | None:
    """Uniform over the legal decisions (plus "go on" where the step may be skipped)."""
    w = waiting_for(state)
    mandatory = state.turn is None or state.turn.sub == 3
    if mandatory:
        return rng.choice(options)
    choices: list[Event | None] = [*options, None]
    if w.kinds and "cards_discarded" in w.optional and len(options) > 12:
        # Don't let the many discard subsets drown the other choices: pick the kind first.
        kinds = sorted({o["type"] for o in options})
        kind = rng.choice([*kinds, None])
        if kind is None:
            return None
        return rng.choice([o for o in options if o["type"] == kind])
    return rng.choice(choices)


def world_event(state: RaceState, rng: random.Random) -> Event | None:
    """The chance event the race waits for, if it waits for one (shuffle, flip, draw)."""
    w = waiting_for(state)
    if not w.cars:
        return None
    name = w.cars[0]
    car = state.cars[name]
    if w.kinds[-1] == "deck_shuffled":  # set-up, or a card is needed from an empty deck (# 5.6)
        order = expand(car.pool) if car.needs_shuffle else sorted(car.discard)
        rng.shuffle(order)
        return {"type": "deck_shuffled", "v": 1, "car": name, "order": order}
    if w.kinds == ["card_flipped"]:
        assert car.deck is not None
        return {"type": "card_flipped", "v": 1, "car": name, "card": car.deck[-1]}
    if w.kinds and w.kinds[-1] == "cards_drawn":
        assert car.deck is not None
        n = min(HAND_SIZE - car.hand_size, car.deck_size)
        return {"type": "cards_drawn", "v": 1, "car": name, "cards": list(reversed(car.deck[-n:]))}
    return None


def race_events(
    race_started: Event,
    bots: dict[str, Bot],
    seed: int,
) -> Iterator[Event]:
    """Yield the whole event log of a simulated open-mode race; each event is applied before the next."""
    rng = random.Random(seed)
    state = apply(None, race_started)
    yield race_started
    names = list(state.cars)
    grid = names[:]
    rng.shuffle(grid)  # # 1.4: random starting order
    yield from _step(state, {"type": "grid_set", "v": 1, "order": grid})
    while state.phase != "over":
        if state.round > MAX_ROUNDS:
            raise RuntimeError(f"race did not end within {MAX_ROUNDS} rounds")
        w = waiting_for(state)
        chance_only = w.kinds and all(k in ("deck_shuffled", "card_flipped") for k in w.kinds)
        if state.phase == "deal" or chance_only:
            ev = world_event(state, rng)
            assert ev is not None, w
            yield from _step(state, ev)
            continue
        name = w.cars[0]
        options = decisions(state, name)
        choice = bots[name](state, name, options, rng) if options else None
        if choice is not None:
            yield from _step(state, choice)
            continue
        turn = state.turn
        if turn is not None and turn.sub in (5, 6, 8):
            go_on(state)  # derived: the next event closes these optional steps the same way on replay
            continue
        ev = world_event(state, rng)
        assert ev is not None, w
        yield from _step(state, ev)


def _step(state: RaceState, ev: Event) -> Iterator[Event]:
    apply(state, ev)
    yield ev
