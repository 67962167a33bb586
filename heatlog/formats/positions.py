"""A position is checked whole when it is read (``new --from-position``, a ``race_started`` event carrying a
``position``, the Python API): the schema, then what a schema cannot say.

- Names are consistent: every name in ``order``, ``adrenaline``, ``pending``, ``grid``, ``shifts``,
  ``finished_this_round``, ``hall_of_fame``, ``finish_rounds``, ``whose_turn`` and ``turn.car`` is one of the
  position's cars; car names follow the rule of :mod:`heatlog.formats.usertext` (unique, also ignoring case).
- The round order and the adrenaline cars are the ones the rules derive from the board (asked of the engine:
  :func:`heatlog.engine.round_order` at the start of a round, :func:`heatlog.engine.adrenaline_cars` for a
  round under way, whose order was fixed from a board the position no longer shows): the order lists every
  car still racing once; the adrenaline cars are the last one or two of it (# 2.2, 6.1, 6.4).
- Hands and piles are within what the cars own: per card, deck and hand (``unseen``), discard pile, Play Area
  and Engine hold exactly the car's cards: the starting deck of the circuit, the Engine's Heat and the Stress
  taken at spinouts (# 1.2, 10.3, 17.2; the race's ``Rules.starting_deck``, which holds a Garage car's drafted
  upgrades instead of the Starting Upgrades, # 18.1; ``Rules.engine_heat``; a weather tile's start effect,
  # 20.3, asked of the race's modules: ``Module.position_cards``). In a championship race, what only the race's
  history decides is checked as far as a position can say it (the same hook): each sponsorship card is in one
  car's cards,
  the sponsorship deck's supply or its used pile, once (# 21.4, 21.7, MC7), whichever car drew it; with event 18
  a car holds its own Heat less at most one per non-final lap completed (MA23); a car eliminated by event 10
  may still be in the order of the round it left in (MA21).
- The engine can build a state from it (spots are not shared, counts agree).
- Every number is written as an integer (``2``, not ``2.0``), in the words of ``heatlog add``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from ..engine import MalformedInput, adrenaline_cars, round_order, state_from_position
from ..engine.cards import HEAT, STRESS
from ..engine.module import position_cards
from ..engine.state import RaceState
from .jsonio import decimal_problem
from .schemas import validate_against

__all__ = ["check_position", "position_problems"]

Problem = tuple[str, str]


def check_position(pos: Any, where: str = "position") -> RaceState:
    """The state of ``pos`` if the position is well-formed and consistent; else MalformedInput naming the
    JSON path of the first problem (and how many more there are)."""
    try:
        validate_against("position", pos)
    except MalformedInput as err:
        raise MalformedInput(f"{where}: {err.message}") from None
    # every number of a position is an integer, and JSON Schema's integer takes 1.0: a position file is new
    # input, refused in heatlog add's words (an old log whose race_started holds one still imports as written)
    decimal = decimal_problem(pos)
    if decimal is not None:
        raise MalformedInput(f"{where}: {decimal}")
    problems = list(position_problems(pos))
    if problems:
        path, what = problems[0]
        more = f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})" if len(problems) > 1 else ""
        raise MalformedInput(f"{where}: {path + ': ' if path else ''}{what}{more}")
    return state_from_position(pos)


def position_problems(pos: dict[str, Any]) -> Iterator[Problem]:
    """Every problem of a schema-valid position that the schema cannot see."""
    names_ok = list(_name_problems(pos))
    yield from names_ok
    if names_ok:
        return  # the engine would stumble over unknown names
    try:
        state = state_from_position(pos)
    except MalformedInput as err:
        yield "", err.message
        return
    yield from _order_problems(pos, state)
    yield from _card_problems(pos, state)


def _name_problems(pos: dict[str, Any]) -> Iterator[Problem]:
    from .usertext import name_problem

    names: list[str] = []
    folded: set[str] = set()
    for i, car in enumerate(pos["cars"]):
        name = car["name"]
        problem = name_problem(name, car=True)
        if problem:
            yield f"cars[{i}].name", f"{name!r} {problem}"
        if name.casefold() in folded:
            yield f"cars[{i}].name", f"{name!r} is the name of another car (names must differ, also in case)"
        folded.add(name.casefold())
        names.append(name)
    known = set(names)
    listing = ", ".join(names)

    def unknown(path: str, name: Any) -> Iterator[Problem]:
        if name not in known:
            yield path, f"{name!r} is not a car of this position ({listing})"

    for key in ("order", "adrenaline", "pending", "grid", "finished_this_round", "hall_of_fame"):
        for i, name in enumerate(pos.get(key) or ()):
            yield from unknown(f"{key}[{i}]", name)
        listed = list(pos.get(key) or ())
        if len(set(listed)) != len(listed):
            yield key, "names a car more than once"
    for key in ("shifts", "finish_rounds"):
        for name in pos.get(key) or {}:
            yield from unknown(f"{key}.{name}", name)
    if pos.get("whose_turn") is not None:
        yield from unknown("whose_turn", pos["whose_turn"])
    turn = pos.get("turn")
    if isinstance(turn, dict):
        yield from unknown("turn.car", turn.get("car"))
        if turn.get("car") != pos.get("whose_turn"):
            yield "whose_turn", f"{pos.get('whose_turn')!r} is not the car of the turn under way ({turn.get('car')!r})"


def _at_round_start(state: RaceState) -> bool:
    return state.phase == "race" and state.step == 1 and state.turn is None and state.turn_index == 0


def _order_problems(pos: dict[str, Any], state: RaceState) -> Iterator[Problem]:
    order = list(pos.get("order") or ())
    adrenaline = list(pos.get("adrenaline") or ())
    if state.phase == "over":
        return
    if state.phase != "race":
        if order or adrenaline:
            yield "order", f"a race in its {state.phase} phase has no round order or adrenaline yet"
        return
    # A car eliminated (event 10, MA21) is out of the race, but stays in the order of the round it left in.
    out = set(state.eliminated)
    racing = [n for n in state.cars if (n not in state.hall_of_fame or n in state.finished_round) and n not in out]
    if sorted(n for n in order if n not in out) != sorted(racing):
        also = f" (and may list a car eliminated this round, MA21: {', '.join(state.eliminated)})" if out else ""
        yield (
            "order",
            (f"must list every car still racing once ({', '.join(racing)}){also}, not {', '.join(order) or 'none'}"),
        )
        return
    if _at_round_start(state) and not state.shifts:
        derived, _ = round_order(state)
        if order != derived:
            yield (
                "order",
                (
                    f"{' > '.join(order)} is not the order the board gives ({' > '.join(derived)}: "
                    "front to back, race line first, # 2.2)"
                ),
            )
            return
    derived_adrenaline = adrenaline_cars(state, order)
    if adrenaline != derived_adrenaline:
        yield (
            "adrenaline",
            (
                f"{', '.join(adrenaline) or 'none'} is not who gets adrenaline in the order {' > '.join(order)} "
                f"({', '.join(derived_adrenaline)}, # 6.1, 6.4)"
            ),
        )
    pending = list(pos.get("pending") or ())
    if not set(pending) <= set(order):
        yield "pending", "lists a car that is not in this round's order"


def _card_problems(pos: dict[str, Any], state: RaceState) -> Iterator[Problem]:
    said = position_cards(state)  # what the race's modules say about the cards (Module.position_cards)
    if state.phase == "grid" or any(p.unbuilt for p in said):
        return  # the cards are dealt after the grid is set (# 1.2), a module's decks may be built later (# 18.4)
    starts = [p.start for p in said if p.start is not None]
    heat_less = next((p.heat_less for p in said if p.heat_less is not None), None)
    floating: dict[str, int] = {}
    for p in said:
        floating.update(p.floating)
    all_held: Counter[str] = Counter()  # the floating cards in every car's cards
    for i, (d, car) in enumerate(zip(pos["cars"], state.cars.values(), strict=True)):
        if car.legend:
            continue  # a car without cards (# 19.3)
        # The race's own starting deck, asked of its rules: the Garage's drafted upgrades replace the Starting
        # Upgrades (# 18.1, MC2).
        owned = Counter(state.rules.starting_deck(state, car))
        engine = state.rules.engine_heat(state, car)  # # 1.2, 17.2, 22.9 (and 21.8's events 4, 9)
        for start in starts:  # a module's start effect changed the deck and Engine (# 20.3)
            owned[STRESS], engine = start(owned[STRESS], engine)
        owned[HEAT] += engine
        owned[STRESS] += car.stress_taken
        held: Counter[str] = Counter()
        for card, n in car.pool.items():
            held[card] += n
        held.update(car.discard)
        held.update(car.play_area)
        held[HEAT] += car.engine
        for c in floating:  # which car drew which is the race's history: checked over the race, below
            all_held[c] += held[c]
        parts = []
        for c in state.cards.tokens:
            if held[c] == owned[c] or c in floating:
                continue
            if c == HEAT and heat_less is not None:  # (event 18, MA23)
                gone, why = heat_less(state, car)
                if owned[c] - gone <= held[c] <= owned[c]:
                    continue
                parts.append(f"{held[c]} × {c} (owns {owned[c]}, less at most {gone} {why})")
            else:
                parts.append(f"{held[c]} × {c} (owns {owned[c]})")
        if parts:
            yield (
                f"cars[{i}]",
                (
                    f"{car.name}'s deck, hand, discard pile, Play Area and Engine hold {', '.join(parts)}: a car holds "
                    "exactly its own cards (# 1.2)"
                ),
            )
        if d.get("committed") is not None and Counter(d["committed"]) - Counter(d.get("hand") or d["unseen"]):
            yield f"cars[{i}].committed", "holds cards that are not in the car's hand"
    for p in said:  # # 21.4, 21.7, MC7: every copy in a car's cards, the supply or the used pile
        if p.floating_problems is not None:
            yield from p.floating_problems(state, {c: all_held[c] for c in p.floating})
