"""Play whole races from a seed: the world (shuffles, flips, draws) plus bots for the decisions.

The world writes exactly the events an open-mode recorded race would have: every shuffle with its order,
every draw and flip by name. Bots decide only through :mod:`heatlog.engine.decide` and see only what their
player could see (see :mod:`heatlog.bots`).

Determinism: one ``random.Random(seed)`` draws the grid (# 1.4) and every shuffle (# 1.2, 5.6), in the
order the race needs them; a shuffle sorts the cards first, so its outcome never depends on how the
discard pile happened to be ordered in memory, and the order is written into the event. Nothing iterates
over a set or depends on hash order, so the same seed gives the same log on any machine.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..bots import Bot, Options, random_bot
from ..engine import RaceState, apply, waiting_for
from ..engine.cards import HAND_SIZE
from ..engine.rules import go_on
from ..engine.state import expand

Event = dict[str, Any]
MAX_ROUNDS = 200  # no race comes near this: a race that reaches it is a bug, not a long race

__all__ = ["MAX_ROUNDS", "Bot", "play", "race_events", "random_bot", "world_event"]


def world_event(state: RaceState, rng: random.Random) -> Event | None:
    """The chance event the race waits for, if it waits for one (shuffle, flip, draw)."""
    w = waiting_for(state)
    if not w.cars:
        return None
    car = state.cars[w.cars[0]]
    if w.kinds[-1] == "deck_shuffled":  # set-up, or a card is needed from an empty deck (# 5.6)
        return _shuffle(car.name, expand(car.pool) if car.needs_shuffle else car.discard, rng)
    if w.kinds == ["card_flipped"]:
        assert car.deck is not None
        return {"type": "card_flipped", "v": 1, "car": car.name, "card": car.deck[-1]}
    if w.kinds and w.kinds[-1] == "cards_drawn":
        return _draw(car)
    return None


def _shuffle(name: str, cards: list[str], rng: random.Random) -> Event:
    order = sorted(cards)  # the order before shuffling never depends on the past
    rng.shuffle(order)
    return {"type": "deck_shuffled", "v": 1, "car": name, "order": order}


def _draw(car: Any) -> Event:
    assert car.deck is not None
    n = min(HAND_SIZE - car.hand_size, car.deck_size)
    return {"type": "cards_drawn", "v": 1, "car": car.name, "cards": car.deck[len(car.deck) - n :][::-1]}


def race_events(
    race_started: Event, bots: Mapping[str, Bot], seed: int, *, grid: list[str] | None = None
) -> Iterator[Event]:
    """Yield the whole event log of a simulated open-mode race; each event is applied before the next.
    ``grid``: the starting order (e.g. a championship's standings, # 21.12) instead of a random one."""
    state = apply(None, race_started)
    yield race_started
    yield from _drive(state, bots, random.Random(seed), grid)


def play(
    race_started: Event,
    bots: Mapping[str, Bot],
    seed: int,
    *,
    watch: Callable[[RaceState, Event], None] | None = None,
    grid: list[str] | None = None,
) -> tuple[list[Event], RaceState]:
    """Play a whole race; return its event log and its final state. ``watch(state, event)`` is called after
    every event is applied (tests use it to check invariants as the race goes).

    ``race_started`` may start from an open-mode position (``"position"``: a what-if from any point of a
    race); the simulator then plays on from there. ``grid``: the starting order instead of a random one."""
    state = apply(None, race_started)
    events = [race_started]
    if watch is not None:
        watch(state, race_started)
        for ev in _drive(state, bots, random.Random(seed), grid):
            events.append(ev)
            watch(state, ev)
    else:
        events.extend(_drive(state, bots, random.Random(seed), grid))
    return events, state


def _drive(
    state: RaceState, bots: Mapping[str, Bot], rng: random.Random, order: list[str] | None = None
) -> Iterator[Event]:
    """The race loop. It reads the state the way :func:`heatlog.engine.decide.waiting_for` does (the world
    knows every deck), without building its description on every step."""
    ev: Event
    if state.phase == "grid":  # a race that starts from a position (a what-if) has its grid already
        grid = list(order) if order is not None else list(state.cars)
        if order is None:
            rng.shuffle(grid)  # # 1.4: random starting order
        ev = {"type": "grid_set", "v": 1, "order": grid}
        apply(state, ev, atomic=False)
        yield ev
    cars = state.cars
    while state.phase == "deal":  # # 1.2: shuffle, then draw seven, car by car in grid order
        car = next(c for c in (cars[n] for n in state.grid) if c.needs_shuffle or c.hand_size < HAND_SIZE)
        ev = _shuffle(car.name, expand(car.pool), rng) if car.needs_shuffle else _draw(car)
        apply(state, ev, atomic=False)
        yield ev
    while state.phase != "over":
        if state.round > MAX_ROUNDS:
            raise RuntimeError(f"race did not end within {MAX_ROUNDS} rounds")
        turn = state.turn
        if turn is None:  # steps 1–2: every car in the round's order (# 2.1)
            name = state.pending[0]
            choice = bots[name](state, name, Options(state, name), rng)
            if choice is None:
                raise RuntimeError(f"the bot for {name} made no decision at step {state.step}")
            ev = choice
        else:
            car = cars[turn.car]
            sub = turn.sub
            if turn.flipping is not None:  # # 5.2, 7.5, 14.1 (and # 5.6 when the deck is empty)
                if car.deck_size == 0:
                    ev = _shuffle(car.name, car.discard, rng)
                else:
                    assert car.deck is not None
                    ev = {"type": "card_flipped", "v": 1, "car": car.name, "card": car.deck[-1]}
            elif sub == 9:  # # 12.1–12.3
                ev = _shuffle(car.name, car.discard, rng) if car.deck_size == 0 else _draw(car)
            else:
                choice = bots[car.name](state, car.name, Options(state, car.name), rng)
                if choice is None:
                    if sub == 3:
                        raise RuntimeError(f"the bot for {car.name} revealed nothing")
                    go_on(state)  # derived: the next event closes these optional steps the same way on replay
                    continue
                ev = choice
        # No rollback copy: an event the rules refuse means a broken bot, and the race is abandoned anyway.
        apply(state, ev, atomic=False)
        yield ev
