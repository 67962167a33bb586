"""The game API for search: a race as a game tree of decisions and chance (docs/analysis.md).

Pure, over the engine's own ``RaceState``: no copy of a rule lives here. Every question is answered by the
engine (:func:`~heatlog.engine.decide.waiting_for`, :func:`~heatlog.engine.decide.decisions`,
:func:`~heatlog.engine.rules.apply`, :func:`~heatlog.engine.rules.go_on`); this module only names the
nodes of the tree and gives decisions one canonical form.

A state is one of:

- a **decision** node: ``to_move(state)`` is ``Node("decision", car)`` and ``legal_decisions(state)`` lists
  every decision that car may take, each once (:func:`canonical`), plus :data:`GO_ON` where an optional step
  may be left without an event (steps 5–8);
- a **chance** node: ``Node("chance", car, kinds)``; ``pending_chance(state)`` says what is due (a shuffle,
  a flip, a draw of ``count`` cards) and, when the deck's contents are known, the outcomes with their
  probabilities; ``chance_event(state, rng)`` draws one; ``apply_event`` applies it;
- **terminal**: the race is over (``Node("terminal")``).

Steps 1–2 are simultaneous at the table (# 2.1); as a game tree they are sequential in the round's order, and
a car's choice there is hidden from the others until revealed (bots never read another car's choice).

``clone`` is :meth:`RaceState.copy` (a few small lists and dicts per car: cheap enough to copy per node).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any, Literal

from . import chance
from .cards import CARDS
from .decide import decisions, waiting_for
from .errors import IllegalEvent
from .events import DECISION, MODULE_CHANCE
from .module import chance_event as draw_module_chance
from .module import of_event
from .rules import apply, closing_event, go_on
from .state import RaceState

Event = dict[str, Any]

#: The pseudo-decision "go on without a further optional decision" (steps 5–8). Never an event in a log: the
#: next event closes the same steps in the same way on replay (docs/design.md).
GO_ON = "go_on"

_CARD_ORDER = {c: i for i, c in enumerate(CARDS)}


def _card_key(c: str) -> tuple[int, str]:
    return _CARD_ORDER.get(c, len(_CARD_ORDER)), c


_CARD_KEYS = ("cards", "order")


@dataclass(frozen=True, slots=True)
class Node:
    """Whose move it is: ``kind`` is "decision", "chance" or "terminal"; ``kinds`` the event types that fit."""

    kind: Literal["decision", "chance", "terminal"]
    car: str | None = None
    kinds: tuple[str, ...] = ()


@dataclass(slots=True)
class Chance:
    """The chance event a race waits for. ``outcomes`` (event, probability) when they can be listed: a flip
    from a deck of known contents but unknown order, or a known top card (one outcome); empty for a shuffle
    (every order of the pile) and for a draw whose cards are hidden (table mode: the event is a count)."""

    kind: str  # "deck_shuffled", "card_flipped", "cards_drawn" or a module's chance kind (events.MODULE_CHANCE)
    car: str  # the car whose deck it is (the Legend whose turn waits for the Legend card)
    count: int = 1  # cards to draw
    outcomes: list[tuple[Event, float]] = field(default_factory=list)


# ------------------------------------------------------------------------------------------------ canonical form


def canonical(decision: Event) -> Event:
    """The canonical form of a decision: card lists in the canonical card order (1 2 3 4 0 5 H S), so that
    playing "3 1" and "1 3" is one decision. Other fields are kept; a new dict is returned."""
    out = dict(decision)
    cards = out.get("cards")
    if isinstance(cards, list) and all(isinstance(c, str) for c in cards):
        out["cards"] = sorted(cards, key=_card_key)  # a race's other cards (upgrades) after the base ones
    out.pop("raw", None)
    return out


def decision_key(decision: Event) -> tuple[Any, ...]:
    """A hashable key of a decision's canonical form (equal keys: the same decision)."""
    d = canonical(decision)
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in d.items() if k != "v"))


# ------------------------------------------------------------------------------------------------ nodes


def to_move(state: RaceState) -> Node:
    """Whose move it is now: a decision where the race waits for a decision kind or an optional step is open
    (steps 5–8: the car may act or go on), chance where it waits only for a shuffle, flip or draw."""
    if state.phase == "over":
        return Node("terminal")
    w = waiting_for(state)
    if not w.cars:
        return Node("chance", None, tuple(w.kinds))  # race set-up: the grid order (# 1.4)
    if w.optional or any(k in DECISION for k in w.kinds):  # the catalogue's decisions, every module's included
        return Node("decision", w.cars[0], tuple(w.kinds))
    return Node("chance", w.cars[0], tuple(w.kinds))


def whose_turn(state: RaceState) -> str | None:
    """The car to decide now, or None at a chance node or when the race is over."""
    node = to_move(state)
    return node.car if node.kind == "decision" else None


def legal_decisions(state: RaceState, car: str | None = None) -> list[Event]:
    """Every decision ``car`` (default: the car to move) may take now, each once in canonical form, plus
    ``{"type": "go_on", "car": car}`` where the current optional step may be left without an event.

    Where steps 5–8 are open the car may also let the draw that is due close them: that is ``go_on``, listed
    where the engine says the car may go on (``waiting_for(...).may_go_on``): not while a decision must come
    first, e.g. the Garage's Heat cost the Engine cannot cover (# 18.11: React cannot end before it is
    settled). At a chance node (a flip, a reshuffle, or a draw with no optional step left) the list is empty.
    """
    if car is None:
        car = whose_turn(state)
        if car is None:
            return []
    out: list[Event] = []
    seen: set[tuple[Any, ...]] = set()
    for d in decisions(state, car):
        key = decision_key(d)
        if key not in seen:
            seen.add(key)
            out.append(canonical(d))
    turn = state.turn
    open_step = turn is not None and turn.car == car and turn.flipping is None and 5 <= turn.sub <= 8
    if open_step and waiting_for(state).may_go_on:  # the engine's word (# 18.11, 18.25), no copy of the rule
        out.append({"type": GO_ON, "car": car})
    return out


def apply_decision(state: RaceState, decision: Event) -> RaceState:
    """Apply a decision (or :data:`GO_ON`); mutates and returns ``state``. Raises :class:`HeatlogError` and
    changes nothing if the engine refuses it.

    A world drawn by :func:`heatlog.analysis.sample` from a table-mode race is an open-mode state in which the
    cars still to reveal this round have no cards played face down yet (the log never knew them): their
    reveal at step 3 is then their decision (``cards_revealed``), and this applies it with the engine's own
    table-mode reveal — the one rule for a reveal of cards not played at step 2."""
    kind = decision.get("type")
    if kind == GO_ON:
        turn = state.turn
        if turn is None or turn.car != decision.get("car"):
            raise IllegalEvent("go on: it is not this car's turn", car=decision.get("car"), input=decision)
        return go_on(state)
    if kind == "cards_revealed" and state.mode == "open":
        state.mode = "table"  # the table-mode reveal: the cards were not played face down (see above)
        try:
            return apply(state, canonical(decision))
        finally:
            state.mode = "open"
    return apply(state, canonical(decision))


def apply_event(state: RaceState, event: Event) -> RaceState:
    """Apply a chance outcome (or any event): the engine's ``apply``."""
    return apply(state, event)


def clone(state: RaceState) -> RaceState:
    """An independent copy (cheap: the track is shared, completed turns are shared read-only)."""
    return state.copy()


def is_over(state: RaceState) -> bool:
    return state.phase == "over"


# ------------------------------------------------------------------------------------------------ chance


def pending_chance(state: RaceState) -> Chance | None:
    """The chance event the race waits for now, or None (a decision is due, or the race is over). While an
    optional step is open (steps 5–8) a decision is due: how many cards the refill draws is known only once
    those steps close (a spinout adds Stress to the hand, # 10.3)."""
    node = to_move(state)
    if len(node.kinds) == 1:  # a module's chance event with its odds (Module.outcomes: the Legend card, # 19.5)
        kind = node.kinds[0]
        odds = _odds_of(kind)
        if odds is not None:
            got = odds(state)
            if got is not None:
                return Chance(kind, *got)
    if node.kind != "chance" or node.car is None:
        return None
    car = state.cars[node.car]
    kind = node.kinds[-1]
    if kind == "deck_shuffled":
        return Chance("deck_shuffled", car.name)
    if kind == "card_flipped":
        return Chance("card_flipped", car.name, 1, _flip_outcomes(car))
    if kind == "cards_drawn":
        n = min(state.rules.hand_size(state, car) - car.hand_size, car.deck_size)
        return Chance("cards_drawn", car.name, n, _draw_outcomes(state, car, n))
    if kind in state.rules.flip_draws.values():  # a module's own flip (# 18.12's scrapped card): the top card
        outcomes = [({**ev, "type": kind}, p) for ev, p in _flip_outcomes(car)]
        return Chance(kind, car.name, 1, outcomes)
    return None


def _odds_of(kind: str) -> Any:
    """The exact odds a module declares for its chance event ``kind`` (``Module.outcomes``), or None."""
    unit = of_event(kind)
    return unit.outcomes.get(kind) if unit is not None else None


def _flip_outcomes(car: Any) -> list[tuple[Event, float]]:
    if car.deck is not None:
        return [({"type": "card_flipped", "v": 1, "car": car.name, "card": car.deck[-1]}, 1.0)]
    if car.deck_top:  # a Refresh put it there, face known (# 18.21)
        return [({"type": "card_flipped", "v": 1, "car": car.name, "card": car.deck_top[-1]}, 1.0)]
    deck = car.deck_counts()
    if deck is None:
        return []
    total = sum(deck.values())
    return [({"type": "card_flipped", "v": 1, "car": car.name, "card": c}, n / total) for c, n in deck.items() if n]


def _draw_outcomes(state: RaceState, car: Any, n: int) -> list[tuple[Event, float]]:
    if state.mode == "table":
        return [({"type": "cards_drawn", "v": 1, "car": car.name, "count": n}, 1.0)]
    if car.deck is not None:
        return [({"type": "cards_drawn", "v": 1, "car": car.name, "cards": car.deck[len(car.deck) - n :][::-1]}, 1.0)]
    deck = car.deck_counts()
    if deck is None:
        return []
    known = list(reversed(car.deck_top))[:n]  # the cards a Refresh put on top are drawn first (# 18.21)
    for c in known:
        deck[c] -= 1
    n -= len(known)
    total = comb(sum(deck.values()), n)
    out: list[tuple[Event, float]] = []
    tokens = list(deck)  # the race's card tokens, in canonical order
    for draw in sub_multisets([deck[c] for c in tokens], n):
        ways = 1
        for have, k in zip((deck[c] for c in tokens), draw, strict=True):
            ways *= comb(have, k)
        cards = known + [c for c, k in zip(tokens, draw, strict=True) for _ in range(k)]
        out.append(({"type": "cards_drawn", "v": 1, "car": car.name, "cards": cards}, ways / total))
    return out


def sub_multisets(bounds: Sequence[int], n: int) -> list[tuple[int, ...]]:
    """Every vector x with 0 <= x[i] <= bounds[i] and sum n (multisets of n cards from a multiset)."""
    out: list[tuple[int, ...]] = []
    rest = [0] * (len(bounds) + 1)
    for i in range(len(bounds) - 1, -1, -1):
        rest[i] = rest[i + 1] + bounds[i]

    def go(i: int, left: int, acc: tuple[int, ...]) -> None:
        if i == len(bounds):
            if left == 0:
                out.append(acc)
            return
        for k in range(max(0, left - rest[i + 1]), min(bounds[i], left) + 1):
            go(i + 1, left - k, (*acc, k))

    go(0, n, ())
    return out


def module_chance_event(state: RaceState, rng: random.Random) -> Event | None:
    """The modules' chance draws, when the race waits for one: each module draws its own (``Module.chance``,
    engine/modules/<name>/__init__.py: the weather tile and road tokens, # 20.2; the round's Legend card, # 19.5; the
    Garage's market, deal and scrapped card, # 18.5, 18.12; a sponsorship card, # 21.4, 21.7). None otherwise."""
    return draw_module_chance(state, rng)


def chance_event(state: RaceState, rng: random.Random) -> Event | None:
    """Draw the chance event due now with ``rng``: a shuffle (the pile sorted, then shuffled: the outcome
    never depends on how the pile happens to lie in memory), the top card of a known deck, a draw of the
    known top cards; with unknown order, an outcome of :func:`pending_chance` by its probability. None if no
    chance event is due."""
    ch = pending_chance(state)
    if ch is None:
        if state.phase == "grid":
            return chance.grid_event(state, rng)  # # 1.4
        return module_chance_event(state, rng)
    if ch.kind in MODULE_CHANCE and _odds_of(ch.kind) is not None:  # with its module's odds (a Legend's card)
        return module_chance_event(state, rng)  # the same draw as the simulator's
    car = state.cars[ch.car]
    if ch.kind == "deck_shuffled":
        whole = state.turn is not None and chance.whole_deck(state, state.turn.flipping)  # # 18.18: a Salvage
        ev: Event = chance.shuffle_event(car, rng, whole)  # the one world's shuffle (engine/chance.py)
        if state.mode != "open":
            del ev["order"]  # (drawn all the same: the numbers drawn after it do not depend on the mode)
        return ev
    if not ch.outcomes:
        raise IllegalEvent(f"{car.name}'s deck is hidden: no chance outcome can be drawn", car=car.name)
    if len(ch.outcomes) == 1:
        return ch.outcomes[0][0]
    r = rng.random()
    acc = 0.0
    for ev, p in ch.outcomes:
        acc += p
        if r < acc:
            return ev
    return ch.outcomes[-1][0]


# ------------------------------------------------------------------------------------------------ playing on

#: A policy: (state, car) -> a decision for that car, or None to go on (steps 5–8 only).
Decide = Callable[[RaceState, str], "Event | None"]
MAX_ROUNDS = 200  # a play-out still running then is stopped: a car can be stuck for good (simulate.world)


def play_out(
    state: RaceState,
    decide: Decide,
    rng: random.Random,
    *,
    record: Callable[[Event], None] | None = None,
    max_rounds: int = MAX_ROUNDS,
    shuffles: Callable[[str], random.Random] | None = None,
) -> RaceState:
    """Play ``state`` (a full-information world: every hand and deck order known) to the end: ``decide``
    answers every decision node, ``rng`` draws the grid and every shuffle (:func:`chance_event`); flips and
    draws are the known top cards. ``record(event)`` is called with every event applied (``go_on`` is not
    an event). ``shuffles(car)``, if given, is the generator of that car's reshuffles instead of ``rng``
    (common random numbers: a car's k-th reshuffle uses the same numbers on both sides of a comparison,
    whenever it happens). Mutates and returns ``state``; a play-out still running after ``max_rounds`` rounds is
    stopped there, unfinished (``state.phase != "over"``).

    The same walk as :func:`to_move` / :func:`chance_event`, reading the turn directly: this loop runs
    every playout, and building the race's description on every step would be most of its cost."""
    cars = state.cars
    while state.phase != "over":
        if state.round > max_rounds:
            return state  # stopped unfinished: places are the standings (a stuck car last, # 16.8)
        turn = state.turn
        ev: Event | None
        if state.phase != "race":  # the set-up: the grid, a module's phase, the starting shuffles and draws
            w = waiting_for(state)
            if w.due in DECISION and w.cars:  # # 18.5, 21.2: a module's set-up decision (the draft's picks, swaps)
                ev = decide(state, w.cars[0])
                if ev is None:
                    raise IllegalEvent(f"no {w.due} for {w.cars[0]}", car=w.cars[0])
                apply_decision(state, ev)
                if record is not None:
                    record(ev)
                continue
            ev = chance_event(state, rng)  # (# 1.2, 1.4, 18.5, 20.2, 21.4: a module's draws are its own)
        elif turn is None:  # steps 1–2: every car in the round's order (# 2.1)
            name = state.pending[0]
            ev = decide(state, name)
            if ev is None:
                raise IllegalEvent(f"no decision for {name} at step {state.step}", car=name)
            apply(state, ev, atomic=False)  # no rollback copy: a refused decision abandons the play-out
            if record is not None:
                record(ev)
            continue
        else:
            car = cars[turn.car]
            sub = turn.sub
            if car.legend or turn.owed:  # # 19.5: the Legend card; # 21.7: a sponsorship card earned
                ev = module_chance_event(state, rng)
            elif turn.flipping is not None or sub >= 9:  # # 5.2, 7.5, 14.1, 12.1–12.3 (and # 5.6 when empty)
                ev = chance.turn_draw(state, car, turn.flipping, rng if shuffles is None else shuffles(car.name))
            else:
                ev = decide(state, car.name)
                if ev is None or ev.get("type") == GO_ON:
                    if sub == 3:
                        raise IllegalEvent(f"{car.name} revealed nothing", car=car.name)
                    ev = closing_event(state) if record is not None else None  # the log must show the end
                    if ev is None:
                        go_on(state)
                        continue
                if ev.get("type") == "cards_revealed" and state.mode == "open":
                    apply_decision(state, ev)
                else:
                    apply(state, ev, atomic=False)
                if record is not None:
                    record(ev)
                continue
        if ev is None:
            raise IllegalEvent("the race waits for nothing the game can draw")
        apply(state, ev, atomic=False)
        if record is not None:
            record(ev)
    return state


__all__ = [
    "MAX_ROUNDS",
    "Decide",
    "play_out",
    "GO_ON",
    "Chance",
    "Node",
    "apply_decision",
    "apply_event",
    "canonical",
    "chance_event",
    "module_chance_event",
    "clone",
    "decision_key",
    "is_over",
    "legal_decisions",
    "pending_chance",
    "sub_multisets",
    "to_move",
    "whose_turn",
]
