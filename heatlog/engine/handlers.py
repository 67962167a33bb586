"""The handlers' toolkit: what every event handler of the core and of a module needs.

The errors that name race, round, step, car, input and rule (:func:`illegal`, :func:`malformed`), the checks of
an event's car, cards and turn (:func:`turn_car`, :func:`react_turn`, :func:`has_in_hand`) and the small moves
of cards between a car's piles (:func:`take_from_deck`, :func:`pay_heat`). Pure, and below the rules
(``rules.py``) and the modules: a module's handler imports this, never a private of ``rules.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .cards import BASE_CATALOGUE, HEAT
from .errors import NOT_FOUND, IllegalEvent, MalformedInput
from .knowledge import Knowledge
from .state import Car, RaceState, Turn
from .steps import REACT, REPLENISH

Event = dict[str, Any]


class StepMachine:
    """The step machine's procedures a module's handler calls (the Garage's Scrap, flips and Super Cool; a Legend's
    turn; a sponsorship card earned). They live in ``rules.py``, which sets them here when it is imported:
    ``rules.py`` imports the modules' catalogue, so a module that imported it back would close an import circle.
    Every handler runs after ``rules.py`` is loaded (``apply`` is there), so the slots are always set when a
    handler reads them."""

    flips_done: Callable[[RaceState, Car, Turn], None]  # resolve the flips that need no card, then go on (# 5.3)
    close_until: Callable[[RaceState, Car, Turn, int, Event], None]  # close the optional steps before a later one
    slipstream_block: Callable[[RaceState, Car, Turn], str | None]  # why the car may not slipstream now (# 8)
    advance: Callable[[RaceState, Car, Turn, int], None]  # run the turn on to a step (the step machine itself)
    start_turn: Callable[[RaceState], tuple[Car, Turn]]  # the next car of the round's order begins its turn
    end_turn: Callable[[RaceState, Car, Turn], None]  # the turn is over: the next car's, or the round's end


#: The one step machine, filled by ``rules.py``.
step_machine = StepMachine()


# ---------------------------------------------------------------------------------------------- errors


def illegal(
    state: RaceState | None, ev: Event, message: str, rule: str | None = None, car: str | None = None
) -> IllegalEvent:
    return IllegalEvent(
        message,
        round=state.round if state is not None and state.round else None,
        step=step_of(state) if state is not None else None,
        car=car if car is not None else ev.get("car"),
        input=ev,
        rule=rule,
    )


def malformed(state: RaceState | None, ev: Any, message: str, *, words: str | None = None) -> MalformedInput:
    return MalformedInput(
        message,
        round=state.round if state is not None and state.round else None,
        step=step_of(state) if state is not None else None,
        car=ev.get("car") if isinstance(ev, dict) else None,
        input=ev,
        words=words,
    )


def step_of(state: RaceState) -> int | None:
    if state.phase not in ("race", "over"):  # the set-up, whatever phases the race's modules add: step 0
        return 0
    if state.phase == "over":
        return None
    if state.turn is not None:
        return state.turn.sub if state.turn.sub <= REPLENISH else REPLENISH
    return state.step


# ---------------------------------------------------------------------------------------------- helpers


def event_car(state: RaceState, ev: Event) -> Car:
    try:
        car = state.cars[ev["car"]]  # the names are strings: any other key (or an unhashable one) is no car
    except (KeyError, TypeError):
        name = ev.get("car")
        cars = ", ".join(state.cars)
        raise malformed(state, ev, f"no car named {name!r} in this race (cars: {cars})", words=NOT_FOUND) from None
    if car.legend:  # # 19.10: every car event is a player's decision or card
        raise illegal(state, ev, f"{car.name} is a Legend: no gear, cards, Heat, React or slipstream", "19.10")
    return car


def event_cards(state: RaceState, ev: Event, key: str = "cards") -> list[str]:
    cards = ev.get(key)
    tokens = state.cards.token_set
    try:
        ok = isinstance(cards, list) and tokens.issuperset(cards)  # the race's card tokens only
    except TypeError:  # an unhashable item (a list, an object)
        ok = False
    if not ok:
        if isinstance(cards, list):  # name the first card this race does not have, as the door's schema would
            i, bad = next((i, c) for i, c in enumerate(cards) if not isinstance(c, str) or c not in tokens)
            raise malformed(
                state, ev, f"{key}[{i}]: {bad!r} is not a card of this race (one of {state.cards.listing()})"
            )
        raise malformed(state, ev, f"{key} must be a list of cards ({state.cards.listing()})")
    return cards  # type: ignore[return-value]


BASE_TOKENS = BASE_CATALOGUE.token_set


def fmt_cards(cards: Iterable[str], state: RaceState | None = None) -> str:
    """Cards in a message: base cards by their tokens ("4 3 S"); with ``state``, an upgrade or a sponsorship card by
    the name people know (the race's ``Catalogue.named``: "Fuel 2", never "U22"; issue 29), then comma-separated."""
    cards = list(cards)
    if state is None or all(c in BASE_TOKENS or c not in state.cards.token_set for c in cards):
        return " ".join(cards) or "nothing"
    return ", ".join(c if c in BASE_TOKENS else state.cards.named(c) for c in cards)


def turn_car(state: RaceState, ev: Event, what: str) -> tuple[Car, Turn]:
    """The car whose turn it is (steps 3–9), or an out-of-turn error (# 2.4)."""
    try:
        car = state.cars[ev["car"]]  # event_car, inlined (every event of a turn asks); event_car words the errors
    except (KeyError, TypeError):
        car = event_car(state, ev)
    if car.legend:
        event_car(state, ev)
    turn = state.turn
    if turn is None or turn.car != car.name or state.phase != "race":
        raise out_of_turn(state, ev, car, what)
    return car, turn


def turn_of(state: RaceState, ev: Event, car: Car, what: str) -> Turn:
    """The turn of ``car`` (already checked by :func:`event_car`), or an out-of-turn error (# 2.4)."""
    turn = state.turn
    if turn is None or turn.car != car.name or state.phase != "race":
        raise out_of_turn(state, ev, car, what)
    return turn


def out_of_turn(state: RaceState, ev: Event, car: Car, what: str) -> IllegalEvent:
    """Why ``ev`` of ``car`` is not part of the turn under way."""
    turn = state.turn
    if state.phase != "race" or turn is None:
        if state.phase == "over":
            return illegal(state, ev, "the race is over", "16.8")
        return illegal(
            state,
            ev,
            f"{what} comes in a car's turn (steps 3–9); now is step {state.step}: "
            f"waiting for {', '.join(state.pending)}",
            "2.1",
        )
    return illegal(state, ev, f"it is {turn.car}'s turn, not {car.name}'s", "2.4")


def has_in_hand(state: RaceState, car: Car, cards: list[str]) -> str | None:
    """Why the hand cannot hold ``cards``, or None: the one joint deduction (knowledge.py, # 1.7), its words
    naming the cards as the race's catalogue does (an upgrade by its name and token)."""
    return Knowledge.why_not_in_hand_of(car, cards, state.cards)


def card_name(state: RaceState, c: str) -> str:
    return state.cards.name(c)  # Heat, Stress, an upgrade's name, or the quoted token: the race's catalogue


def remove_from_hand(car: Car, cards: list[str]) -> None:
    for c in cards:
        car.pool[c] -= 1
        if car.hand is not None:
            car.hand[c] -= 1
    car.hand_size -= len(cards)


def add_to_hand(car: Car, card: str, n: int = 1) -> None:
    if car.hand is None:  # table mode: the deck cannot gain this card (knowledge.py keeps cap ≤ unseen)
        if car.deck_max is None:
            car.deck_max = dict(car.pool)
        car.deck_max[card] = min(car.deck_max[card], car.pool[card])
    car.pool[card] += n
    if car.hand is not None:
        car.hand[card] += n
    car.hand_size += n


def take_from_deck(state: RaceState, car: Car, ev: Event, card: str) -> None:
    """Remove ``card`` from the top of the deck after checking it can be there (# 5.2, 14.1)."""
    if car.deck_size == 0:
        raise illegal(state, ev, "the draw deck is empty: record the reshuffle of the discard pile first", "5.6")
    if car.deck is not None:
        top = car.deck[-1]
        if top != card:
            raise illegal(
                state,
                ev,
                f"the top of {car.name}'s deck is {card_name(state, top)}, not "
                f"{card_name(state, card)} (the shuffle order is known)",
                "5.2",
            )
    else:
        why = Knowledge.why_not_on_deck_of(car, card, state.cards)
        if why:
            rule = "18.21" if car.deck_top else "1.1" if car.pool[card] == 0 else "5.6"
            raise illegal(state, ev, why, rule)
    if car.deck_max is not None and car.deck_max[card] > 0:
        car.deck_max[card] -= 1
    if car.deck is not None:
        car.deck.pop()
    if car.deck_top:  # the known top card (# 18.21) is the one that left
        car.deck_top = car.deck_top[:-1]
    car.deck_size -= 1
    car.pool[card] -= 1


def pay_heat(car: Car, n: int) -> None:
    """# 15.1: paying Heat moves cards Engine -> discard."""
    car.engine -= n
    car.discard.extend([HEAT] * n)


def react_turn(state: RaceState, ev: Event, what: str, rule: str) -> tuple[Car, Turn]:
    car, turn = turn_car(state, ev, what)
    if turn.flipping is not None:
        raise illegal(state, ev, f"finish flipping for the {turn.flipping} first", "7.1")
    if turn.cluttered:
        raise illegal(state, ev, f"{car.name} has a cluttered hand: no React this turn", "13.3")
    if turn.sub < REACT:
        raise illegal(state, ev, f"{what} comes after the cards are revealed", "2.3")
    if turn.sub > REACT:
        raise illegal(state, ev, f"{what} is part of React (step 5), which is over for {car.name}", rule)
    return car, turn
