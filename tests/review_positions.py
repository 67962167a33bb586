"""Hand-built open-mode positions for the review's tests (issue 28): a race of 2 to 6 cars on USA started
from a position in which one car, "Red", decides where a Heat player knows the answer.

USA's second corner is after space 33, limit 3 (# 9.1). Red stands before it with an empty Engine (# 9.3:
Heat it cannot pay is a spinout, # 10.1); the other cars are behind it, so nothing blocks it (# 8.3) and it
gets no adrenaline (# 2.2)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import cache
from typing import Any

from heatlog.engine import RaceState, apply, replay, state_from_position, state_to_position
from heatlog.engine.rules import round_order
from heatlog.simulate import simulate_race

Event = dict[str, Any]
CORNER = 33  # USA's second corner: after space 33, limit 3


GARAGE = {"upgrades": "basic", "draft": "random"}
GARAGE_SEED = {2: 11, 4: 11, 6: 12}  # # 18.5: seeds at which Red drafts the Brakes 2/4 (U9)


@cache
def _start(cars: int, garage: bool = False) -> tuple[Event, dict[str, Any]]:
    """A simulated race's set-up and the position at the start of its round 2 (every card known)."""
    modules = {"garage": GARAGE} if garage else None
    seed = GARAGE_SEED.get(cars, 11) if garage else 11
    _, events, _ = simulate_race(None, track="usa", cars=cars, seed=seed, modules=modules)
    state = next(st for st in _states(events) if st.phase == "race" and (st.round, st.step, st.turn) == (2, 1, None))
    return events[0], state_to_position(state)


def _set_cards(car: dict[str, Any], hand: list[str], engine: int, gear: int) -> None:
    """Deal ``hand`` to the car from all its cards (the rest in its deck, no card in the discard pile); ``engine``
    Heat cards in its Engine, the rest of its Heat in the deck."""
    every = Counter(car["unseen"]) + Counter(car["discard"]) + Counter(car["play_area"]) + Counter(H=car["engine"])
    every -= Counter(H=engine)
    rest = every - Counter(hand)
    assert sum(rest.values()) + len(hand) == sum(every.values()), "the hand is not the car's cards"
    deck = sorted(rest.elements())
    car.update(
        hand=list(hand),
        hand_size=len(hand),
        deck=deck,
        deck_size=len(deck),
        unseen=list(hand) + deck,
        discard=[],
        play_area=[],
        engine=engine,
        gear=gear,
        committed=None,
        stress_taken=0,
        deck_max=None,
        needs_shuffle=False,
    )


def position_race(
    cars: int,
    *,
    progress: int = 28,
    behind: int = 20,
    hand: str | list[str] = "1122344",
    engine: int = 0,
    gear: int = 2,
    laps: int = 1,
    ahead: tuple[int, str, int] | None = None,
    garage: bool = False,
) -> list[Event]:
    """The log of a race of ``cars`` cars started from a position at step 1 of a round: Red at ``progress``
    (lane 1) in ``gear`` with ``hand`` and ``engine`` Heat; the others behind it, from space ``behind`` back, two to
    a space, each with its simulated cards. ``hand``: a string of one-character cards, or a list of cards;
    ``ahead`` = (progress, hand, gear): the first other car there instead, in lane 2, with that hand, an empty
    Engine and that gear; ``garage``: a Garage race (# 18), its upgrades drafted."""
    start, pos = _start(cars, garage)
    pos = {**pos, "cars": [dict(c) for c in pos["cars"]], "laps": laps}
    names = [c["name"] for c in pos["cars"]]
    red = next(c for c in pos["cars"] if c["name"] == "Red")
    _set_cards(red, list(hand), engine, gear)
    red.update(progress=progress, lane=1)
    others = [c for c in pos["cars"] if c["name"] != "Red"]
    for k, c in enumerate(others):
        c.update(progress=behind - k // 2, lane=1 + k % 2)
    if ahead is not None:
        _set_cards(others[0], list(ahead[1]), 0, ahead[2])
        others[0].update(progress=ahead[0], lane=2)
    order = [c["name"] for c in sorted(pos["cars"], key=lambda c: -c["progress"])]  # # 2.2: the leader first
    pos.update(order=order, pending=list(order), adrenaline=[order[-1]], grid=list(names), laps=laps)
    for c in pos["cars"]:
        c.update(finished=False)
    state = state_from_position(pos)
    state.order, state.adrenaline = round_order(state)  # # 2.2, as the board gives
    state.pending = list(state.order)
    pos = state_to_position(state)  # every derived field (space, lap) from the engine
    first = {**start, "laps": laps, "position": pos}
    log = [first]
    apply_all(log)
    return log


def _states(log: list[Event]) -> Iterator[RaceState]:
    """The race after each event of ``log`` (one state, changed in place)."""
    state: RaceState | None = None
    for ev in log:
        yield (state := apply(state, ev, atomic=False))


def apply_all(log: list[Event]) -> RaceState:
    return replay(log)


def steps_1_2(
    log: list[Event], red_gear: int, red_cards: list[str], plays: dict[str, tuple[int, list[str]]] | None = None
) -> list[Event]:
    """The round's steps 1–2 after ``log``: every other car's gear and play as ``plays`` says (car: gear, cards)
    or else as its heuristic bot chooses them, then Red's gear, then Red's play last (the log may order them any
    way, # 2.1)."""
    from heatlog.bots import Options, get_bot
    from heatlog.engine.steps import PLAY

    bot = get_bot("heuristic")
    state = apply_all(log)
    out = list(log)
    import random

    rng = random.Random(0)
    for step in ("gear", "play"):
        for name in list(state.order):
            if name == "Red":
                continue
            if plays is not None and name in plays:
                gear, cards = plays[name]
                ev = (
                    {"type": "gear_chosen", "v": 1, "car": name, "gear": gear}
                    if step == "gear"
                    else {"type": "cards_played", "v": 1, "car": name, "cards": list(cards)}
                )
            else:
                got = bot(state, name, Options(state, name), rng)
                assert got is not None
                ev = got
            state = apply(state, ev, atomic=False)
            out.append(ev)
        ev = (
            {"type": "gear_chosen", "v": 1, "car": "Red", "gear": red_gear}
            if step == "gear"
            else {"type": "cards_played", "v": 1, "car": "Red", "cards": list(red_cards)}
        )
        state = apply(state, ev, atomic=False)
        out.append(ev)
        if step == "gear":
            assert state.step == PLAY
    return out


def to_turn(log: list[Event], car: str) -> list[Event]:
    """``log`` carried on to ``car``'s turn: each car moving before it goes on at every step (no React, no
    slipstream, no discard) and draws its refill from the top of its known deck (# 5.6)."""
    import random

    from heatlog.engine.chance import draw
    from heatlog.engine.decide import waiting_for

    out = list(log)
    state = apply_all(out)
    rng = random.Random(0)
    while state.turn is not None and state.turn.car != car:
        w = waiting_for(state)
        ev = draw(state, rng, w) if w.due in ("cards_drawn", "card_flipped", "deck_shuffled") else None
        if ev is None:
            ev = {"type": "go_on", "car": w.cars[0]}
        state = apply(state, ev, atomic=False)
        out.append(ev)
    return out
