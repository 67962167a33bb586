"""The rules: ``apply(state, event) -> state``.

Pure: no I/O. Events are trusted to be well-formed only as far as their ``type``; every field the rules read
is checked here, because an event can come from an import or a position as well as from the door's
schema validation. A rejected event raises a :class:`HeatlogError` and leaves the state unchanged.
Digest items (``# 9.3``) refer to the rules digest (docs/rules.md).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from . import handlers
from .cards import (
    BASE_CATALOGUE,
    BASIC,
    GEAR_COOLDOWN,
    HAND_SIZE,
    HEAT,
    SPINOUT_STRESS,
    STRESS,
)
from .errors import HeatlogError, IllegalEvent, MalformedInput
from .events import _REGISTRY, EventType, discovered_by, entry_of, register
from .handlers import (
    add_to_hand,
    card_name,
    event_car,
    event_cards,
    fmt_cards,
    has_in_hand,
    illegal,
    malformed,
    pay_heat,
    react_turn,
    remove_from_hand,
    step_of,
    take_from_deck,
    turn_car,
    turn_of,
)
from .knowledge import Knowledge
from .module import before_decks as module_before_decks
from .module import car_key_problem, discover, in_race, owed_words
from .modules import circuits
from .movement import landing, move, place
from .react import ReactPool, cooldown_uses, react_pool, spend_cooldown
from .ruleset import SLIPSTREAM_SPACES, build_rules
from .state import Car, CornerCheck, RaceState, Turn, counts, make_state
from .steps import DISCARD, DONE, GEARS, PLAY, REACT, REPLENISH, REVEAL, SETUP, SLIPSTREAM
from .track import Track

Event = dict[str, Any]
BASIC_SET = frozenset(BASIC)


# ---------------------------------------------------------------------------------------------- set-up


def _race_started(state: RaceState | None, ev: Event) -> RaceState:
    if state is not None:
        raise illegal(state, ev, "the race has already started; a log holds one race")
    from .position import state_from_position  # local: positions import this module

    track_data = ev.get("track")
    if not isinstance(track_data, dict):
        raise malformed(None, ev, "track must be a track object")
    try:
        track = Track.from_dict(track_data)
    except (KeyError, TypeError, ValueError) as exc:
        raise malformed(None, ev, f"track is not a valid track: {exc}") from exc
    try:
        rules = build_rules(ev.get("modules"), ev)  # the race's policy points (engine/ruleset.py)
        block = ev.get("cards")  # the definitions of the cards beyond the base this race can meet
        catalogue = BASE_CATALOGUE if block is None else BASE_CATALOGUE.with_block(block)
    except (ValueError, KeyError, TypeError) as exc:
        raise malformed(None, ev, str(exc)) from None
    if ev.get("position") is not None:
        state = state_from_position(ev["position"], track=track)
        # The position carries its modules (their rules and cards): an event naming none keeps them.
        if ev.get("modules") is not None or block is not None or not state.rules.modules:
            state.rules = rules
            if block is not None:  # (none: the position's own cards stay, # 21.4: its sponsorship cards)
                if catalogue.tokens != state.cards.tokens:  # every car's cards are counted by these tokens
                    raise malformed(None, ev, "cards must define exactly the position's cards")
                state.cards = catalogue
        return state
    cars = ev.get("cars")
    if not isinstance(cars, list) or not 2 <= len(cars) <= 6:
        raise malformed(
            None,
            ev,
            "a base race has 2 to 6 cars (every car of the grid counts, # 19.2)",
        )
    names = [c.get("name") for c in cars if isinstance(c, dict)]
    if len(names) != len(cars) or len(set(names)) != len(names) or not all(isinstance(n, str) and n for n in names):
        raise malformed(None, ev, "cars need unique names")
    if len(cars) > len(track.grid):
        raise malformed(None, ev, f"{track.name} has {len(track.grid)} grid spots, not {len(cars)}")
    variant = ev.get("variant", "standard")
    laps = ev.get("laps", track.laps)
    if variant == "one-lap":
        if laps != 1:
            raise malformed(None, ev, "the one-lap learning race has exactly one lap (# 17.1)")
    elif variant != "standard":
        raise malformed(None, ev, f"unknown variant {variant!r} (standard, one-lap)")
    if not isinstance(laps, int) or laps < 1:
        raise malformed(None, ev, "laps must be a positive number")
    mode = ev.get("mode", "open")
    if mode not in ("table", "open"):
        raise malformed(None, ev, f"unknown information mode {mode!r} (table, open)")
    handicap = ev.get("handicap", [])
    unknown = [h for h in handicap if h not in names]
    if unknown:
        raise malformed(None, ev, f"handicap names unknown cars: {', '.join(unknown)} (# 17.2)")
    said = car_key_problem(cars, rules.modules)  # a car's key only a module of the race may set (# 19.1)
    if said is not None:
        raise malformed(None, ev, said)
    state = make_state(track, laps, variant, mode, cars, handicap)
    state.rules, state.cards = rules, catalogue
    for unit in in_race(state):  # each module reads its options into its state (engine/module.py)
        if unit.start is not None:
            try:
                unit.start(state, ev)
            except ValueError as exc:
                raise malformed(None, ev, str(exc)) from None
    return state


def _grid_set(state: RaceState, ev: Event) -> None:
    rules = state.rules
    if state.phase != "grid":
        raise illegal(state, ev, "the grid is set once, before the first round", "1.4")
    order = ev.get("order")
    if not isinstance(order, list) or sorted(map(str, order)) != sorted(state.cars) or len(order) != len(state.cars):
        raise malformed(state, ev, f"grid order must name every car once: {', '.join(state.cars)}")
    state.grid = list(order)
    tokens = state.cards.tokens
    for spot, name in enumerate(order, start=1):
        car = state.cars[name]
        p, lane = state.track.grid_progress(spot)  # # 1.4: fill from the lowest number upward
        car.progress, car.lane = p, lane
        state.spots[(state.track.space_of(p), lane)] = name
        if car.legend:  # # 19.3: a Legend has no deck, hand, Engine or Stress
            car.pool, car.deck_size, car.hand, car.hand_size = counts([], tokens), 0, None, 0
            car.deck, car.deck_max, car.needs_shuffle, car.engine = None, None, False, 0
            continue
        deck = rules.starting_deck(state, car)  # # 1.2, 22.9
        car.pool = counts(deck, tokens)  # a car's multisets hold exactly its race's card tokens
        car.deck_size = len(deck)
        car.hand = dict.fromkeys(tokens, 0) if state.mode == "open" else None
        car.hand_size = 0
        car.deck = None
        car.deck_max = dict(car.pool) if car.hand is None else None
        car.needs_shuffle = True
        car.engine = rules.engine_heat(state, car)  # # 17.2, 22.9
    state.phase = rules.phase_after("grid")  # # 18.4, 20.2: a module's set-up phase comes before the decks
    rules.enter_phase(state, state.phase)  # # 18.4: the Garage draft begins


def _deal_done(state: RaceState) -> bool:
    size = state.rules.hand_size  # # 1.2 (an event card may change it, # 21.8)
    return all(c.legend or (c.hand_size >= size(state, c) and not c.needs_shuffle) for c in state.cars.values())


# ---------------------------------------------------------------------------------------------- shuffles and draws


def _decks_wait(state: RaceState, ev: Event) -> None:
    """A module's set-up phase that comes before the starting shuffles and draws (Module.before_decks: the
    weather's tile and tokens, # 20.3) refuses them in its words."""
    said = module_before_decks(state.phase)
    if said is not None:
        raise illegal(state, ev, *said)


def _deck_shuffled(state: RaceState, ev: Event) -> None:
    car = event_car(state, ev)
    if state.phase != "race" and state.phase != "deal":  # (a set-up phase of a module's)
        _decks_wait(state, ev)
    order = ev.get("order")
    if order is not None:
        order = event_cards(state, ev, "order")
        if state.mode == "table":
            raise illegal(state, ev, "table mode records no shuffle order: decks are hidden", "1.7")
    turn = state.turn
    if turn is not None and turn.car == car.name and turn.flipping is not None:
        rules = state.rules
        if rules.flip_draws.get(turn.flipping) == "deck_shuffled":  # a module's flip that shuffles (# 18.18)
            rules.flip_shuffle(state, ev, car, turn, order)
            return
    if car.needs_shuffle:
        if state.phase != "deal":
            raise illegal(state, ev, "the starting shuffle happens at set-up")
        deck = car.deck_counts() or car.pool
        if order is not None and counts(order, state.cards.tokens) != deck:
            raise illegal(state, ev, f"the shuffled order must be exactly the {car.deck_size} deck cards", "1.2")
        car.needs_shuffle = False
        car.deck = list(reversed(order)) if order is not None else None
        return
    if state.phase == "deal":
        raise illegal(state, ev, f"{car.name}'s deck is already shuffled", "1.2")
    turn = state.turn
    if turn is not None and turn.car == car.name and turn.flipping is None and turn.sub == REACT and not car.deck_size:
        state.rules.leave_react(state, car, turn)  # # 18.12, MA6: React closes into a Scrap from an empty deck
    if turn is not None and turn.car == car.name and turn.flipping is None and REACT <= turn.sub <= DISCARD:
        _close_until(state, car, turn, REPLENISH, ev)  # a shuffle for the refill closes steps 5–8
        turn = state.turn
    needed = (
        turn is not None
        and turn.car == car.name
        and (turn.flipping is not None or (turn.sub == REPLENISH and car.hand_size < state.rules.hand_size(state, car)))
    )
    if not needed:
        raise illegal(
            state,
            ev,
            "a reshuffle happens only when a card must be drawn or flipped from an empty deck",
            "5.6",
        )
    if car.deck_size:
        raise illegal(state, ev, f"{car.name}'s deck still holds {car.deck_size} cards", "5.6")
    if not car.discard:
        raise illegal(state, ev, "the discard pile is empty: there is nothing to shuffle", "A8")
    if order is not None and sorted(order) != sorted(car.discard):
        raise illegal(state, ev, "the shuffled order must be exactly the discard pile's cards", "5.6")
    # # 5.6: only the discard pile; the Play Area stays out.
    if car.hand is None:
        car.deck_max = counts(car.discard, state.cards.tokens)  # the new deck is exactly the (public) discard pile
    car.deck_top = ()  # (the deck was empty: no card is known on top of the new one, # 18.21)
    for c in car.discard:
        car.pool[c] += 1
    car.deck_size = len(car.discard)
    car.deck = list(reversed(order)) if order is not None else None
    car.discard = []
    assert turn is not None
    turn.shuffles += 1
    turn.happenings.append(("reshuffle", "discard", car.deck_size, 0))
    if turn.flipping is not None:
        _flips_done(state, car, turn)


def _cards_drawn(state: RaceState, ev: Event) -> None:
    car = event_car(state, ev)
    if state.phase != "race" and state.phase != "deal":  # (a set-up phase of a module's)
        _decks_wait(state, ev)
    cards = ev.get("cards")
    count = ev.get("count")
    if (cards is None) == (count is None):
        raise malformed(state, ev, "a draw names either the cards or a count")
    if cards is not None:
        cards = event_cards(state, ev)
        if state.mode == "table":
            raise illegal(state, ev, "in table mode draws are counts: hands are hidden", "1.7")
        n = len(cards)
    else:
        if state.mode == "open":
            raise illegal(state, ev, "in open mode draws name their cards")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise malformed(state, ev, "count must be a positive number")
        n = count
    if state.phase == "deal":
        if car.needs_shuffle:
            raise illegal(state, ev, f"shuffle {car.name}'s deck before drawing", "1.2")
    else:
        turn = turn_of(state, ev, car, "drawing")
        _close_until(state, car, turn, REPLENISH, ev)
    size = HAND_SIZE if state.rules.unchanged.hand_size else state.rules.hand_size(state, car)  # # 12.2
    room = size - car.hand_size
    if n > room:
        raise illegal(state, ev, f"draw up to {size}: {car.name} holds {car.hand_size}, so at most {room}", "12.2")
    if n > car.deck_size:
        raise illegal(state, ev, f"the deck holds {car.deck_size} cards; draw those, then record the reshuffle", "5.6")
    if cards is not None:
        if car.deck is not None:
            top = car.deck[: -n - 1 : -1]  # the top n, top first
            if top != cards:
                raise illegal(
                    state, ev, f"the deck's top cards are {fmt_cards(top, state)} (the shuffle order is known)", "5.6"
                )
        else:
            deck = car.deck_counts()
            assert deck is not None
            need = counts(cards, state.cards.tokens)
            for c, k in need.items():
                if k > deck[c]:
                    raise illegal(state, ev, f"the deck holds {deck[c]} {card_name(state, c)}, not {k}", "1.1")
            known = counts(list(car.deck_top[max(0, len(car.deck_top) - n) :]), state.cards.tokens)
            for c, k in known.items():  # the draw takes the known top cards first (# 18.21)
                if k > need[c]:
                    raise illegal(
                        state,
                        ev,
                        f"a Refresh put {state.cards.named(c)} back on top of {car.name}'s deck: the draw takes it "
                        "first",
                        "18.21",
                    )
        hand = car.hand
        if hand is not None:  # deck -> known hand: deck ∪ hand (the pool) stays as it is
            for c in cards:
                hand[c] += 1
            car.hand_size += n
        else:
            for c in cards:
                car.pool[c] -= 1
                add_to_hand(car, c)
    else:
        if car.deck_top:  # table mode: the known top cards are drawn first, the table sees them go (# 18.21)
            if car.deck_max is None:
                car.deck_max = dict(car.pool)
            for c in car.deck_top[max(0, len(car.deck_top) - n) :]:
                car.deck_max[c] -= 1  # in the hand now: the rest of the deck holds no more of them than before
        car.hand_size += n
    if car.deck is not None:
        del car.deck[len(car.deck) - n :]
    if car.deck_top:
        car.deck_top = car.deck_top[: max(0, len(car.deck_top) - n)]
    car.deck_size -= n
    if state.phase == "deal":
        if _deal_done(state):
            start_round(state)
        return
    live = state.turn
    assert live is not None
    turn = live
    turn.drawn += n
    turn.happenings.append(("draw", "deck", n, 0))
    if cards is not None:
        turn.drawn_cards.extend(cards)
    advance(state, car, turn, REPLENISH)  # the turn ends with a full hand (# 12.2) or nothing left to draw


# ---------------------------------------------------------------------------------------------- rounds


def round_order(state: RaceState) -> tuple[list[str], list[str]]:
    """The order of a round starting from this board and the cars that get adrenaline in it."""
    racing = [c for c in state.cars.values() if not c.finished]
    racing.sort(key=state.ranking_key)  # # 2.2: fixed at the start of the round, front to back
    order = [c.name for c in racing]
    return order, adrenaline_cars(state, order)


def adrenaline_cars(state: RaceState, order: list[str]) -> list[str]:
    """The cars of a round in ``order`` that get adrenaline: the last, or the last two when five or more cars
    started (# 6.1, 6.4; counted by cars that started, so finished cars still count); an event card may give
    it to nobody (# 21.8)."""
    return state.rules.adrenaline_cars(state, order)


def start_round(state: RaceState) -> None:
    """Begin the next round on the board as it stands (step 1, # 2.1): the order and adrenaline are fixed
    now (# 2.2, 6.1). The rules call it after the deal and after a round; tests use it on a built board."""
    state.phase = "race"
    state.round += 1
    state.step = GEARS
    state.order, state.adrenaline = round_order(state)
    state.pending = [n for n in state.order if not state.cars[n].legend]  # # 19.6: Legends skip steps 1–2
    state.turn_index = 0
    state.turn = None
    state.turns = []
    state.finished_round = []
    if not state.pending:  # only Legends are left on the track
        _begin_turns(state)


_SHIFTS = {0: "no", 1: "one", 2: "two"}


def _gear_chosen(state: RaceState, ev: Event) -> None:
    car = event_car(state, ev)
    if state.phase != "race" or state.step != GEARS:
        raise illegal(state, ev, "gears are chosen at step 1, by every car at once", "2.1")
    if car.name not in state.pending:
        if car.finished:
            raise illegal(state, ev, f"{car.name} has finished the race", "16.8")
        raise illegal(state, ev, f"{car.name} has already chosen a gear this round", "3.1")
    gear = ev.get("gear")
    if not isinstance(gear, int) or isinstance(gear, bool) or not 1 <= gear <= 4:
        raise malformed(state, ev, "gear must be 1, 2, 3 or 4")
    shift = abs(gear - car.gear)
    if shift == 3:
        raise illegal(state, ev, f"{car.name} is in gear {car.gear}: no jump of three gears", "3.4")
    rules = state.rules  # # 3.2, 22.4 (base_shift_cost is circuits.shift_heat: called at once where it is kept)
    if rules.unchanged.shift_cost:
        cost = circuits.shift_heat(state.track, car.progress, car.gear, gear)
    else:
        cost = rules.shift_cost(state, car, car.gear, gear)
    if cost:
        surcharge = circuits.flooded_surcharge(state.track, car.progress, car.gear, gear)
        if car.engine < cost:
            holds = "is empty" if car.engine == 0 else f"holds {car.engine}"
            raise illegal(
                state,
                ev,
                f"a {_SHIFTS[shift]}-gear shift costs {cost} Heat from the Engine and {car.name}'s Engine "
                f"{holds} (Heat in hand cannot pay)"
                + ("; a downshift from a flooded space costs 1 more" if surcharge else ""),
                "22.4" if surcharge else "3.3",
            )
        pay_heat(car, cost)
    state.pending.remove(car.name)
    car.committed = None
    state.shifts[car.name] = (car.gear, cost > 0)
    car.gear = gear
    if not state.pending:
        if state.mode == "open":
            state.step = PLAY
            state.pending = [n for n in state.order if not state.cars[n].legend]
        else:
            _begin_turns(state)


def _cards_played(state: RaceState, ev: Event) -> None:
    car = event_car(state, ev)
    if state.mode != "open":
        raise illegal(state, ev, "in table mode played cards are recorded when revealed (cards_revealed)", "1.7")
    if state.phase != "race" or state.step != PLAY:
        raise illegal(state, ev, "cards are played at step 2, after every car has chosen its gear", "2.1")
    if car.name not in state.pending:
        raise illegal(state, ev, f"{car.name} has already played its cards this round", "4.1")
    cards = event_cards(state, ev)
    _check_play(state, car, ev, cards)
    car.committed = list(cards)
    state.pending.remove(car.name)
    if not state.pending:
        _begin_turns(state)


def _check_play(state: RaceState, car: Car, ev: Event, cards: list[str]) -> None:
    if len(cards) != car.gear:
        raise illegal(
            state,
            ev,
            f"in gear {car.gear} play exactly {car.gear} card{'s' if car.gear > 1 else ''}, not {len(cards)}",
            "4.1",
        )
    why = has_in_hand(state, car, cards)
    if why:
        raise illegal(state, ev, f"{car.name} cannot play {fmt_cards(cards, state)}: {why}", "4.1")
    heat = cards.count(HEAT)
    if heat:
        # # 13.1: only a cluttered hand plays Heat, after every playable card.
        if car.hand is not None:
            playable = sum(car.hand[c] for c in state.cards.playable)
            if playable >= car.gear:
                raise illegal(
                    state,
                    ev,
                    f"Heat cannot be played: the hand holds {playable} playable cards for gear {car.gear}",
                    "4.2",
                )
            if len(cards) - heat != playable:
                raise illegal(state, ev, "a cluttered hand plays all its playable cards before Heat", "13.1")
        else:
            # # 13.1, one joint deduction
            why = Knowledge.of(car).why_not_cluttered(cards, car.gear, state.cards.named)
            if why:
                raise illegal(state, ev, f"{car.name} cannot claim a cluttered hand: {why}", "13.1")


def check_plan(state: RaceState, name: str, gear: int, cards: list[str]) -> None:
    """Raise :class:`IllegalEvent` when ``name`` could not play ``cards`` in ``gear`` at its reveal, judged on
    what the race knows now (steps 1-2, before the gear is entered): the very check the reveal makes (# 4.1,
    4.2, 13.1), for a shell that takes a plan early (the table server) and must not keep a second copy."""
    car = state.cars[name]
    kind = "cards_played" if state.mode == "open" else "cards_revealed"
    ev: Event = {"type": kind, "v": 1, "car": name, "cards": list(cards)}
    picked = event_cards(state, ev)
    planned = copy.copy(car)  # the gear is not entered yet: judge the hand as it would be in ``gear``
    planned.gear = gear
    _check_play(state, planned, ev, picked)


def _begin_turns(state: RaceState) -> None:
    state.step = REVEAL
    state.pending = []
    state.turn_index = 0
    first = _next_turn(state)
    if first is not None:
        advance(state, *first, REACT)


def _start_turn(state: RaceState) -> tuple[Car, Turn]:
    name = state.order[state.turn_index]
    car = state.cars[name]
    from_gear, paid = state.shifts.pop(name, (car.gear, False))
    rules = state.rules
    progress = car.progress
    # car, round, gear, from_gear, shift_heat, start, reached, sub (positional: a Turn is made per car-turn)
    turn = Turn(
        name,
        state.round,
        car.gear,
        from_gear,
        rules.shift_cost(state, car, from_gear, car.gear) if paid else 0,  # no car moved yet
        progress,
        progress,
        REVEAL,
    )
    # # 7.2, A10: the gear in force (base_cooldown is GEAR_COOLDOWN's: read at once where the race keeps it)
    gear = car.gear
    turn.cooldown_allowance = GEAR_COOLDOWN[gear] if rules.unchanged.cooldown else rules.cooldown(state, car, gear)
    if name in state.adrenaline:
        turn.adrenaline = True
    if progress > 0:  # state.laps_done, inlined
        laps = (progress - 1) // state.track.spaces
        turn.laps_before = laps if laps < state.laps else state.laps
    state.turn = turn
    return car, turn


def _cards_revealed(state: RaceState, ev: Event) -> None:
    car, turn = turn_car(state, ev, "revealing cards")
    if state.mode == "open":
        raise illegal(state, ev, "in open mode the cards played at step 2 are revealed by themselves")
    if turn.sub != REVEAL or turn.played:
        raise illegal(state, ev, f"{car.name} has already revealed its cards", "5.1")
    cards = event_cards(state, ev)
    _check_play(state, car, ev, cards)
    _reveal(state, car, turn, cards)
    _flips_done(state, car, turn)


def _reveal(state: RaceState, car: Car, turn: Turn, cards: list[str]) -> None:
    """Step 3's own work: the played cards to the Play Area, the speed, the Stress to flip for (# 5.1, 5.2)."""
    remove_from_hand(car, cards)
    car.play_area = list(cards)
    turn.played = list(cards)
    if HEAT in cards:
        # # 13.2–13.4: no movement, gear 1; the step machine takes the turn straight to step 9.
        turn.cluttered = True
        if car.hand is None:  # # 13.1: a cluttered reveal shows the whole hand (the rest is Heat): the deck is known
            car.deck_max = {c: car.pool[c] - (car.hand_size if c == HEAT else 0) for c in car.pool}
        car.gear = 1
        return
    state.rules.reveal(state, car, turn, cards)  # # 5.1, 5.2; the Garage's values and "+" symbols (# 18.6, 18.8)


# ---------------------------------------------------------------------------------------------- "+" flips


def _card_flipped(state: RaceState, ev: Event) -> None:
    car, turn = turn_car(state, ev, "a flip")
    if turn.flipping is None:
        raise illegal(state, ev, f"{car.name} has no Stress or Boost to resolve", "14.1")
    card = ev.get("card")
    if not isinstance(card, str) or card not in state.cards.token_set:
        raise malformed(state, ev, f"card: {card!r} is not a card of this race (one of {state.cards.listing()})")
    take_from_deck(state, car, ev, card)
    _resolve_flip(state, car, turn, card)
    if turn.flipping is None:
        if turn.sub == REVEAL:
            advance(state, car, turn, REACT)  # the Stress are resolved: the move of step 3 (# 5.3)
    elif car.deck_size == 0:
        _flips_done(state, car, turn)


def _resolve_flip(state: RaceState, car: Car, turn: Turn, card: str | None) -> None:
    purpose = turn.flipping
    assert purpose is not None
    if card is not None:
        turn.flips.append((purpose, card))
        if card not in BASIC_SET:  # # 5.2, 14.1, 14.2: skipped cards (Stress, Heat, 0, 5) go to discard
            car.discard.append(card)
            return
        car.play_area.append(card)
    value = state.cards.value[card] if card is not None else 0  # # A8 reading: nothing to find counts 0
    if purpose == "stress":
        turn.stress_found.append(card or "-")
        turn.happenings.append(("stress", card or "", value, 0))
        turn.speed += value
        turn.stress_left -= 1
        if not turn.stress_left:
            turn.flipping = None  # step 3 is done: the step machine moves the car (# 5.3)
        if not state.rules.unchanged.after_flip:  # (the base does nothing after a flip)
            state.rules.after_flip(state, car, turn, purpose, value, card is not None)  # # 18.8: card "+" flips
    elif purpose == "boost":
        turn.flipping = None
        turn.boost_card = card
        turn.speed += value  # # 7.5, 7.7
        rules = state.rules  # # 18.20: a boost's extra spaces (none in the base game)
        found = card is not None
        extra = 0 if rules.unchanged.after_flip else rules.after_flip(state, car, turn, purpose, value, found)
        turn.boost_moved = moved = move(state, car, turn, value + extra)
        turn.happenings.append(("boost", "free" if turn.boost_free else "engine", value, moved))
    else:  # a module's own flip (the Garage's card "+" and replacements, # 18.8, 18.11)
        state.rules.after_flip(state, car, turn, purpose, value, card is not None)


def _auto_flips(state: RaceState, car: Car, turn: Turn) -> None:
    """# A8 reading: with the deck empty and no Basic card in the discard pile, reshuffling could never end the
    flip (e.g. a lone Heat forever): it finds nothing."""
    while (
        turn.flipping is not None
        and turn.flipping not in state.rules.flip_draws  # (a module's flip with a draw of its own: # 18.12's Scrap)
        and car.deck_size == 0
        and not any(c in BASIC_SET for c in car.discard)
    ):
        _resolve_flip(state, car, turn, None)


def _flips_done(state: RaceState, car: Car, turn: Turn) -> None:
    """After a flip, a reshuffle or a reveal: resolve the flips that need no card, and once no flip is under
    way let the step machine go on (the move of step 3 after the Stress flips, # 5.3)."""
    if car.deck_size == 0:
        _auto_flips(state, car, turn)
    if turn.flipping is None and turn.sub == REVEAL:
        advance(state, car, turn, REACT)


# ---------------------------------------------------------------------------------------------- react (steps 4–5)


def _cooldown(state: RaceState, ev: Event) -> None:
    car, turn = react_turn(state, ev, "cooldown", "7.2")
    n = ev.get("count")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise malformed(state, ev, "count must be a positive number")
    rules = state.rules
    blocked = None if rules.unchanged.cooldown_block else rules.cooldown_block(state, car)  # # 20.9, MA5
    if blocked:
        raise illegal(state, ev, blocked, "20.9")
    if rules.unchanged.react_uses or not rules.pool_cooling:  # only the pool's cooldown uses matter here, and
        # they are the base pool's (react.cooldown_uses): a module's uses without cooldowns are not worked out
        pool = ReactPool(tuple(cooldown_uses(state, car, turn)), car.name)
    else:
        pool = react_pool(state, car, turn)  # gear, adrenaline and a cooling bonus while it holds (# 20.10)
    left = pool.left("cooldown")
    sources: list[int] = []
    card_cool = 0
    if ev.get("cards") is not None:  # cards' own cooldowns named (a module's, # 18.13, MA32), each spent whole
        sources, card_cool = rules.cooldown_cards(state, ev, car, turn)
    if n > left + card_cool:
        extra = " (adrenaline can add 1)" if turn.adrenaline and not turn.adrenaline_cooldown else ""
        more = f" and the cards' cooldown {card_cool}" if sources else ""
        raise illegal(state, ev, f"gear {turn.gear} allows {left} more cooldown this turn{more}, not {n}{extra}", "7.2")
    why = has_in_hand(state, car, [HEAT] * n)
    if why:
        raise illegal(state, ev, f"cooldown takes Heat from the hand: {why}", "7.3")
    remove_from_hand(car, [HEAT] * n)
    car.engine += n
    turn.cooled += max(0, n - card_cool)
    if sources:
        rules.cooldown_cards_spent(turn, sources, n)
    if n > card_cool:
        spend_cooldown(turn, pool, n - card_cool)  # the rest from the uses it takes, in the pool's order


def _boost(state: RaceState, ev: Event) -> None:
    car, turn = react_turn(state, ev, "boost", "7.5")
    if turn.boosted:
        raise illegal(state, ev, f"{car.name} has already boosted this turn", "7.5")
    cost = state.rules.boost_cost(state, car)  # 0 where it is free, even from an empty Engine (# 20.11, MA20)
    if car.engine < cost:
        raise illegal(state, ev, f"a boost costs {cost} Heat from the Engine, which holds {car.engine}", "7.6")
    pay_heat(car, cost)
    turn.boosted = True
    turn.boost_free = cost == 0
    turn.flipping = "boost"
    _flips_done(state, car, turn)


def _adrenaline(state: RaceState, ev: Event) -> None:
    car, turn = react_turn(state, ev, "adrenaline", "6.3")
    if not turn.adrenaline:
        who = " and ".join(state.adrenaline) or "nobody"
        raise illegal(
            state,
            ev,
            f"adrenaline goes to the last car{'s' if len(state.adrenaline) > 1 else ''} "
            f"of this round's order ({who}), not {car.name}",
            "6.1",
        )
    bonus = ev.get("bonus")
    if bonus == "move":
        if turn.adrenaline_move:
            raise illegal(state, ev, "the adrenaline move is taken once", "6.2")
        turn.adrenaline_move = True
        turn.speed += 1  # # 6.2, A11: adds to speed even when blocked
        turn.adrenaline_moved = moved = move(state, car, turn, 1)
        turn.happenings.append(("adrenaline", "move", 1, moved))
    elif bonus == "cooldown":
        if turn.adrenaline_cooldown:
            raise illegal(state, ev, "the adrenaline cooldown is taken once", "6.2")
        turn.adrenaline_cooldown = True
        turn.cooldown_allowance += 1  # # 7.4
        turn.happenings.append(("adrenaline", "cooldown", 1, 0))
    else:
        raise malformed(state, ev, "bonus must be move or cooldown")


# ---------------------------------------------------------------------------------------------- slipstream (step 6)


def slipstream_block(state: RaceState, car: Car, turn: Turn) -> str | None:
    """Why ``car`` may not slipstream now, or None when it may (# 8.1–8.7)."""
    if turn.cluttered:
        return "a cluttered hand ends the turn (# 13.3)"
    if turn.slipstream is not None:
        return "slipstream is taken once a turn (# 8.3)"
    track = state.track
    final = state.final_line
    progress = car.progress
    if progress > final:
        return "the car has crossed the finish line: no slipstream after it (# 8.6)"
    rules = state.rules
    unchanged = rules.unchanged  # (base_slipstream_distance is SLIPSTREAM_SPACES: not called where kept)
    distance = SLIPSTREAM_SPACES if unchanged.slipstream_distance else rules.slipstream_distance(state, car)
    if progress + distance > final:
        return "slipstream cannot cross the finish line on the final lap (# 8.6)"
    if not unchanged.slipstream_block:  # (the base blocks nothing beyond # 8.1–8.7)
        blocked = rules.slipstream_block(state, car)  # e.g. not from a road condition's sector (# 20.12)
        if blocked:
            return blocked
    n = track.spaces
    space = (progress - 1) % n + 1  # (track.space_of, inlined)
    ahead = space % n + 1
    me = car.name
    spots = state.spots  # (space, lane) -> car; lanes are 1 and 2
    for key in ((space, 1), (space, 2), (ahead, 1), (ahead, 2)):
        name = spots.get(key)
        if name is not None and name != me:
            return None
    return "no car beside it or in the space directly ahead (# 8.1)"


def _cited(why: str) -> tuple[str, str | None]:
    """A reason that ends by citing its rule, ``"… (# 8.6)"``, as (the reason without it, the rule): a refusal
    cites the rule that refuses (the final lap's # 8.6, a sector's # 20.12), once."""
    head, sep, tail = why.rpartition(" (# ")
    if sep and tail.endswith(")") and " " not in tail:
        return head, tail[:-1]
    return why, None


def _all_totals(state: RaceState, car: Car, extra: int = 0) -> list[int]:
    rules = state.rules
    unchanged = rules.unchanged
    distance = SLIPSTREAM_SPACES if unchanged.slipstream_distance else rules.slipstream_distance(state, car)
    plain = distance + extra  # # 8.2; + the Garage bonuses named (# 18.16)
    # # 20.7, 20.12: where the slipstream starts (the base gives no bonus)
    bonus = 0 if unchanged.slipstream_bonus else rules.slipstream_bonus(state, car)
    return [plain, plain + bonus] if bonus else [plain]


def slipstream_totals(state: RaceState, car: Car, extra: int = 0) -> list[int]:
    """The slipstream totals open to ``car`` from its space now: 2 (+ ``extra``, the Garage bonuses taken,
    # 18.16), and that + a sector bonus (# 20.12), each only if it does not cross the final finish line (# 8.6,
    MA17). Call when slipstream_block() is None."""
    return [t for t in _all_totals(state, car, extra) if car.progress + t <= state.final_line]


def _slipstream(state: RaceState, ev: Event) -> None:
    car, turn = turn_car(state, ev, "slipstream")
    if turn.flipping is not None:
        raise illegal(state, ev, f"finish flipping for the {turn.flipping} first", "7.1")
    taken = ev.get("taken")
    if not isinstance(taken, bool):
        raise malformed(state, ev, "taken must be true or false")
    if turn.cluttered:  # # 13.3: name the real reason, not "step 6 is over"
        raise illegal(state, ev, f"{car.name} has a cluttered hand: no slipstream this turn", "13.3")
    if turn.sub > SLIPSTREAM:
        raise illegal(state, ev, "slipstream (step 6) is over for this turn", "8.3")
    why = slipstream_block(state, car, turn)
    if taken and why:
        raise illegal(state, ev, f"{car.name} cannot slipstream: {_cited(why)[0]}", _cited(why)[1] or "8.1")
    if turn.sub < REACT:
        raise illegal(state, ev, "slipstream comes after React", "8.1")
    rules = state.rules
    unchanged = rules.unchanged  # (the base points below do nothing here: not called where the race keeps them)
    if turn.sub == REACT and not unchanged.react_uses:
        _react_may_end(state, car, turn, ev)  # # 18.25: no mandatory use left (the Garage's Heat cost, Scrap)
    # # 18.16: the card bonuses named (the base refuses any)
    cards = taken and (not unchanged.slipstream_cards or "bonuses" in ev)
    extra = rules.slipstream_cards(state, ev, car, turn) if cards else 0
    if ev.get("bonuses") and not taken:
        raise illegal(state, ev, "no slipstream bonus without a slipstream", "18.16")
    spaces = ev.get("spaces", 2 + extra)
    if "spaces" in ev:
        if not isinstance(spaces, int) or isinstance(spaces, bool):
            raise malformed(state, ev, "spaces must be a number")
        if not taken:
            raise malformed(state, ev, "spaces goes with taken: true")
        totals = slipstream_totals(state, car, extra)
        crosses = car.progress + spaces > state.final_line
        if spaces not in totals and crosses and spaces in _all_totals(state, car, extra):
            raise illegal(
                state, ev, f"a slipstream of {spaces} would cross the finish line on the final lap (MA17)", "8.6"
            )
        if spaces not in totals:
            raise illegal(
                state,
                ev,
                f"{car.name} may slipstream {' or '.join(map(str, totals))} spaces here, not {spaces}",
                "20.12" if spaces > 2 + extra else "8.2",
            )
    elif taken and extra and car.progress + spaces > state.final_line:
        raise illegal(state, ev, f"a slipstream of {spaces} would cross the finish line on the final lap (MA17)", "8.6")
    if turn.sub == REACT and not unchanged.leave_react:
        rules.leave_react(state, car, turn)  # # 18.10: the costs the Engine covers are paid as React ends
    turn.sub = SLIPSTREAM
    turn.slipstream = taken
    if taken:
        turn.slipstream_moved = moved = move(state, car, turn, spaces)  # # 8.2, 8.4: not speed (# 8.5)
        turn.happenings.append(("slipstream", "bonus" if spaces > 2 else "car", spaces, moved))
    _close_until(state, car, turn, DISCARD, ev)


# ---------------------------------------------------------------------------------------------- corners (step 7)


def _check_corners(state: RaceState, car: Car, turn: Turn) -> None:
    """# 9.1–9.4, 10.1–10.5: every corner line crossed this turn, in track order, at the turn's speed."""
    rules = state.rules
    track = state.track
    lines = track.corner_lines_between(turn.start, turn.reached, state.laps * track.spaces)
    if lines and not turn.corners:
        turn.corners = []  # (a new list: the default is shared, state.NO_CARDS)
    for line, corner in lines:
        limit = rules.corner_limit(state, car, turn, corner)  # # 9.3 (a road token changes it, # 20.8)
        cost = rules.corner_cost(state, car, corner, turn.speed, limit)  # # 9.3 (overheat, # 20.13, MA19)
        where = str(corner.after_space)
        if cost <= car.engine:
            if cost:
                pay_heat(car, cost)
            turn.corners.append(CornerCheck(line, corner.after_space, limit, turn.speed, cost, cost, False))
            turn.happenings.append(("corner", where, cost, 0))
            continue
        paid = car.engine
        pay_heat(car, paid)  # # 10.1: pay all remaining
        turn.corners.append(CornerCheck(line, corner.after_space, limit, turn.speed, cost, paid, True))
        turn.happenings.append(("corner", where, paid, 0))
        p, lane = landing(state, car, line, line - state.track.spaces)  # # 10.2, A2
        back = p - car.progress
        place(state, car, p, lane)
        stress = SPINOUT_STRESS[turn.gear]  # # 10.3
        turn.happenings.append(("spinout", where, stress, back))
        add_to_hand(car, STRESS, stress)
        car.stress_taken += stress
        car.gear = 1  # # 10.4
        turn.spinout = True
        turn.spinout_stress = stress
        return  # # 10.5: no later corner checks


def _close_until(state: RaceState, car: Car, turn: Turn, target: int, ev: Event) -> None:
    """Close the optional steps before ``target`` for an event of a later step, or say why it cannot come."""
    if turn.flipping is not None:
        raise illegal(state, ev, f"finish flipping for the {turn.flipping} first (# 14.1)", "5.2")
    if turn.owed:
        raise _owed(state, ev, turn)
    if turn.sub < REACT and target > REACT:
        raise illegal(state, ev, "reveal the played cards first", "5.1")
    if turn.sub > target and target == DISCARD:
        raise illegal(state, ev, "the discard step (8) is over for this turn", "11.1")
    if turn.sub == REACT and target > REACT and not state.rules.unchanged.react_uses:
        _react_may_end(state, car, turn, ev)  # (the base pool has no mandatory use)
    advance(state, car, turn, target)
    if target == REPLENISH and turn.owed and state.turn is turn:
        raise _owed(state, ev, turn)  # step 7 left a chance outcome (MA23, MA30): it comes before the draw


def _react_may_end(state: RaceState, car: Car, turn: Turn, ev: Event | None) -> None:
    """# 18.25: React cannot end while a mandatory use is left in the pool. Only a module's React uses can be
    mandatory: callers skip the check where the race keeps the base uses (``Rules.unchanged.react_uses``). The
    race's Rules say whether one is left (the Garage without building the pool, issue 32); the pool is built
    only to name them."""
    if state.rules.react_mandatory(state, car, turn):
        left = react_pool(state, car, turn).mandatory
        what = ", ".join(f"{u.symbol} ({u.source})" for u in left)
        if ev is None:
            raise IllegalEvent(
                f"React is not over: {what} must be used first",
                round=state.round or None,
                step=REACT,
                car=car.name,
                rule="18.25",
            )
        raise illegal(state, ev, f"React is not over: {what} must be used first", "18.25")


def go_on(state: RaceState) -> RaceState:
    """The current car goes on to the next step without a further optional decision: React and Slipstream
    close and the corners are checked (step 7), or the discard step closes. Derived, not an event: the next
    event of the log closes the same steps in the same way. Mutates ``state``; copy it for a preview."""
    turn = state.turn
    if turn is None or turn.flipping is not None or turn.owed or turn.sub < REACT or turn.sub > DISCARD:
        raise IllegalEvent("nothing optional to close now", round=state.round or None, step=step_of(state))
    car = state.cars[turn.car]
    if turn.sub == REACT:
        rules = state.rules
        if not rules.unchanged.leave_react and rules.leave_react(state, car, turn):
            return state  # # 18.12, 18.25: React ends with the Scrap; its cards come first
        if not rules.unchanged.react_uses:  # (the base pool has no mandatory use)
            _react_may_end(state, car, turn, None)
    advance(state, car, turn, DISCARD if turn.sub < DISCARD else REPLENISH)
    return state


def closing_event(state: RaceState) -> Event | None:
    """The event to record instead of :func:`go_on` when going on would end the race (the last car racing
    eliminated at step 7, MA21): no later event would close its steps on replay, so the log must say it. The
    car declines the slipstream (step 6), which closes React and Slipstream exactly as ``go_on`` does. None:
    ``go_on`` leaves a trace (a later event closes the same steps), record nothing."""
    if state.rules.unchanged.after_corners:
        # MA21: only a module's end of step 7 eliminates a car. Without one, going on from React or Slipstream
        # stops at step 8, or (a spinout left a full hand, # 12.2) ends the turn with the car back before a
        # corner line, so before the finish line (# 10.2, 16.1): the car still races, the race goes on.
        return None
    turn = state.turn
    if turn is None or turn.sub > SLIPSTREAM or turn.cluttered or turn.flipping is not None or turn.owed:
        return None
    racing = 0
    for c in state.cars.values():
        racing += not c.finished
    if racing != 1:
        return None  # another car still races: its events close this turn
    preview = state.copy()
    go_on(preview)
    if preview.phase != "over":
        return None
    return {"type": "slipstream", "v": 1, "car": turn.car, "taken": False}


def _cards_discarded(state: RaceState, ev: Event) -> None:
    car, turn = turn_car(state, ev, "discarding")
    cards = event_cards(state, ev)
    if turn.cluttered:
        raise illegal(state, ev, "no voluntary discard after a cluttered hand", "13.3")
    if not cards:
        raise malformed(state, ev, "name at least one card to discard")
    if turn.sub == DISCARD:
        _no_tunnel_discard(state, ev, car)
    can_discard = state.rules.can_discard
    bad = [c for c in cards if not can_discard(state, car, c)]
    if bad:
        raise illegal(state, ev, f"{card_name(state, bad[0])} cannot be discarded from the hand", "11.1")
    # Before the corners a spinout may still put Stress into the hand (# 10.3) that an event lets go (# 21.8,
    # event 17): those are checked once the step is reached, below.
    why = has_in_hand(state, car, cards if turn.sub == DISCARD else [c for c in cards if c != STRESS])
    if why:
        raise illegal(state, ev, f"{car.name} cannot discard {fmt_cards(cards, state)}: {why}", "11.1")
    if turn.sub == DISCARD and turn.discarded:
        raise illegal(state, ev, "discard once, naming every card", "11.1")
    rules = state.rules  # an event card may cap it (# 21.8; no cap in the base game)
    limit = None if rules.unchanged.discard_limit else rules.discard_limit(state, car)
    if limit is not None and len(cards) > limit:
        raise illegal(state, ev, f"at most {limit} card{'s' if limit > 1 else ''} may be discarded this turn", "21.8")
    _close_until(state, car, turn, DISCARD, ev)  # may spin the car out: apply() rolls back on error
    if turn.owed:  # step 7 left a chance outcome to record first (a sponsorship card drawn, event 18's Heat card)
        raise _owed(state, ev, turn)
    if turn.sub != DISCARD:
        raise illegal(state, ev, "the discard step is over for this turn", "12.2")
    _no_tunnel_discard(state, ev, car)  # # 22.6: where the car is when it would discard (after its move)
    why = has_in_hand(state, car, cards)
    if why:
        raise illegal(state, ev, f"{car.name} cannot discard {fmt_cards(cards, state)}: {why}", "11.1")
    remove_from_hand(car, cards)
    car.discard.extend(cards)
    turn.discarded = list(cards)
    turn.happenings.append(("discard", "hand", len(cards), 0))
    advance(state, car, turn, REPLENISH)


def _owed(state: RaceState, ev: Event, turn: Turn) -> IllegalEvent:
    what, rule = owed_words(turn.owed[0])  # (Module.owed: its words and rules item)
    return illegal(state, ev, f"first record {what}: {turn.owed[0]}", rule or None, car=turn.car)


def _no_tunnel_discard(state: RaceState, ev: Event, car: Car) -> None:
    if not circuits.may_discard(state.track, car.progress):
        space = state.track.space_of(car.progress)
        raise illegal(state, ev, f"{car.name} is on space {space}, in a tunnel: no card may be discarded", "22.6")


def _restore(state: RaceState, snapshot: RaceState) -> None:
    """Put ``state`` back as it was, keeping the identity of its Car objects (callers may hold them)."""
    cars = state.cars
    for name, saved in snapshot.cars.items():
        live = cars[name]
        for f in Car.__slots__:
            setattr(live, f, getattr(saved, f))
    for f in RaceState.__slots__:
        if f != "cars":
            setattr(state, f, getattr(snapshot, f))


# ---------------------------------------------------------------------------------------------- the step machine


def advance(state: RaceState, car: Car, turn: Turn, target: int) -> None:
    """Move ``car``'s turn on to step ``target`` — and on past steps with nothing to wait for — doing what
    each step does on the way out (# 2.1): the move at the end of step 3 (# 5.3), the corner checks of step 7
    between Slipstream and Discard (# 9, 10), the Play Area to the discard pile on entering step 9 (# 12.1)
    and the end of the turn. Then the next car's turn begins, or the round ends.

    The only place a turn changes step: handlers do their own step's work and call this; none of them calls
    another's tail. A turn never moves on while a "+" flip is under way (# 14.1).

    A point that is still its base function, which does nothing here (``Rules.unchanged``: step3_due, leave_react,
    after_corners), is not called: a base race pays for no module."""
    rules = state.rules
    unchanged = rules.unchanged
    while True:
        while turn.flipping is None:
            if turn.owed:  # a chance outcome only the table can give comes first
                return
            sub = turn.sub
            if sub >= target:  # there already: go on only past a step with nothing to wait for
                # (base_hand_size is HAND_SIZE: not called where the race keeps it)
                if sub == REPLENISH:  # # 12.2: a full hand, or nothing left to draw at all
                    size = HAND_SIZE if unchanged.hand_size else rules.hand_size(state, car)
                    if car.hand_size < size and (car.deck_size or car.discard):
                        break
                elif sub == DISCARD:  # # 12.2, MA26: a spinout left a full hand: nothing to discard or draw
                    if not turn.spinout:
                        break
                    size = HAND_SIZE if unchanged.hand_size else rules.hand_size(state, car)
                    if car.hand_size < size:
                        break
                else:
                    break
            if sub == REVEAL:
                if turn.cluttered:  # # 13.2–13.4: no movement, straight to step 9
                    turn.happenings.append(("cluttered", "cards", 0, 0))
                    _enter_replenish(state, car, turn)
                elif not unchanged.step3_due and rules.step3_due(state, car, turn):
                    return  # # 18.6, 18.20: a value or Accelerate to decide before the move
                else:
                    turn.moved = moved = move(state, car, turn, turn.speed)  # # 5.3, 5.5
                    turn.happenings.append(("speed", "cards", turn.speed, moved))
                    turn.sub = REACT
            elif sub <= SLIPSTREAM:
                if sub == REACT and not unchanged.leave_react and rules.leave_react(state, car, turn):
                    return  # # 18.12: the scrapped cards come first
                if turn.reached > turn.start:  # a car that did not move crossed no corner line
                    _check_corners(state, car, turn)  # step 7
                if not unchanged.after_corners:
                    rules.after_corners(state, car, turn)  # the end of step 7 (a module's cards, eliminations)
                turn.sub = DISCARD
                if car.name in state.eliminated:  # MA21: off the track at once, nothing more this turn
                    _end_turn(state, car, turn)
                    break
            elif sub == DISCARD:
                _enter_replenish(state, car, turn)
            else:
                _end_turn(state, car, turn)
                break
        if turn.sub != DONE:
            return
        nxt = _next_turn(state)
        if nxt is None:
            return
        car, turn = nxt
        target = REACT


def _enter_replenish(state: RaceState, car: Car, turn: Turn) -> None:
    turn.sub = REPLENISH
    state.rules.clear_play_area(state, car, turn)  # # 12.1: the Play Area goes to discard before drawing


def _end_turn(state: RaceState, car: Car, turn: Turn) -> None:
    turn.sub = DONE
    progress = car.progress
    turn.end, turn.end_lane = progress, car.lane
    if progress > 0:  # state.laps_done, inlined
        laps = (progress - 1) // state.track.spaces
        turn.laps_after = laps if laps < state.laps else state.laps
    if progress > state.laps * state.track.spaces:  # (final_line) # 16.1, 16.3: a spun-out car is back before the line
        turn.finished = True
        car.finished = True
        state.finished_round.append(car.name)
    state.turns.append(turn)
    state.last_turns[car.name] = turn
    state.turn = None
    state.turn_index += 1


def _next_turn(state: RaceState) -> tuple[Car, Turn] | None:
    """Begin the next car's turn, or end the round. In open mode the cards played at step 2 are revealed at
    once (# 2.4) and the turn is returned for the step machine to run; a table-mode turn waits for its reveal."""
    if state.turn_index >= len(state.order):
        _end_round(state)
        return None
    car = state.cars[state.order[state.turn_index]]
    rules = state.rules
    if not rules.unchanged.turn_kind:  # the base: every turn is a player's
        kind = rules.turn_kind(state, car)
        if kind != "player":  # another kind of turn (a Legend's): the Rules run it (None: it waits for an event)
            return rules.turns[kind](state, car)
    car, turn = _start_turn(state)
    if car.committed is None:
        return None
    cards, car.committed = car.committed, None
    _reveal(state, car, turn, cards)
    if car.deck_size == 0:
        _auto_flips(state, car, turn)
    return car, turn


def _end_round(state: RaceState) -> None:
    """# 16.7, 16.8: this round's finishers leave the track in order: furthest beyond the line, race line."""
    finished = state.finished_round
    finishers = sorted((state.cars[n] for n in finished), key=state.ranking_key) if finished else []
    for car in finishers:
        state.hall_of_fame.append(car.name)
        state.finish_rounds[car.name] = state.round
        key = (state.track.space_of(car.progress), car.lane)
        if state.spots.get(key) == car.name:
            del state.spots[key]
    for c in state.cars.values():  # (a loop, not all() over a generator: once a round)
        if not c.finished:
            break
    else:
        state.hall_of_fame.extend(reversed(state.eliminated))  # MA21: each took the last free place
        state.phase = "over"
        state.step = SETUP
        state.pending = []
        return
    start_round(state)


# ---------------------------------------------------------------------------------------------- dispatch


def _no_effect(state: RaceState, ev: Event) -> None:
    return None


def _retracted(state: RaceState, ev: Event) -> None:
    raise illegal(state, ev, "a retraction is resolved by the projector before the rules see the log")


# The base event catalogue, in its order (docs/events.md). Modules register theirs in their own files.
for _entry in (
    EventType("race_started", lambda state, ev: None),  # apply() starts a race itself: it has no state yet
    EventType("grid_set", _grid_set, chance=True),
    EventType("deck_shuffled", _deck_shuffled, turn=True, guarded=True, chance=True),
    EventType("cards_drawn", _cards_drawn, turn=True, guarded=True, chance=True),
    EventType("gear_chosen", _gear_chosen),
    EventType("cards_played", _cards_played),
    EventType("cards_revealed", _cards_revealed, turn=True),
    EventType("card_flipped", _card_flipped, turn=True, chance=True),
    EventType("cooldown", _cooldown, turn=True),
    EventType("boost", _boost, turn=True),
    EventType("adrenaline", _adrenaline, turn=True),
    EventType("slipstream", _slipstream, turn=True, guarded=True),
    EventType("cards_discarded", _cards_discarded, turn=True, guarded=True),
    EventType("retracted", _retracted, aside=True),
    EventType("note", _no_effect, aside=True),
):
    register(_entry)


handlers.step_machine.flips_done = _flips_done  # a module's handler calls these (engine/handlers.py)
handlers.step_machine.close_until = _close_until
handlers.step_machine.slipstream_block = slipstream_block
handlers.step_machine.advance = advance
handlers.step_machine.start_turn = _start_turn
handlers.step_machine.end_turn = _end_turn
# Every module folder is registered when a race or a reader first needs one (``events.complete``, which runs
# ``module.discover``): a base race loads none. The base types are in: a registry asked for already completes now.
discovered_by(discover)


def apply(state: RaceState | None, event: Event, *, atomic: bool = True) -> RaceState:
    """Apply one event; returns the (same, mutated) state. Raises HeatlogError and changes nothing if the
    event is malformed or the rules forbid it. ``atomic=False`` skips the rollback copy for the few events
    that can fail after a partial change: for folding a log whose state is thrown away on error."""
    if not isinstance(event, dict):
        raise malformed(state, event, "an event is a JSON object")
    try:
        kind = event["type"]
    except KeyError:
        kind = None
    if kind == "race_started":
        new = _race_started(state, event)
        new.events = 1
        return new
    if state is None:
        raise malformed(None, event, "the first event of a race is race_started")
    try:
        entry = _REGISTRY[kind]
    except (KeyError, TypeError):  # (an unhashable type is no type either)
        found = entry_of(kind) if isinstance(kind, str) else None  # a module's type: its module loads (complete)
        if found is None:
            raise malformed(state, event, f"unknown event type {kind!r}") from None
        entry = found
    turn = state.turn
    if turn is None:  # steps 1–2, set-up, a turn waiting for its reveal: nothing to close, nothing to roll back
        entry.handler(state, event)
        state.events += 1
        return state
    sub = turn.sub
    # _is_foreign, inlined (asked on every event of a turn)
    foreign = (
        REACT <= sub <= DISCARD
        and turn.flipping is None
        and not entry.aside
        and (not entry.turn or event.get("car") != turn.car)
    )
    if atomic and sub < REPLENISH and (foreign or entry.guarded):
        snapshot = state.copy()
        try:
            _handle(state, event, entry, foreign)
        except HeatlogError:
            _restore(state, snapshot)
            raise
    elif foreign:
        _handle(state, event, entry, foreign)
    else:
        entry.handler(state, event)
    state.events += 1
    return state


def _is_foreign(turn: Turn | None, event: Event, entry: EventType | None) -> bool:
    """An event that is not part of the current car's turn. It closes that turn when nothing mandatory is
    left in it (a spinout left 7+ cards, # 12.2, or nothing is left to draw); otherwise the handler reports
    it as out of turn. ``entry``: the event's type in the catalogue (None: unknown)."""
    return (
        turn is not None
        and REACT <= turn.sub <= DISCARD
        and turn.flipping is None
        and (entry is None or not entry.aside)
        and (event.get("car") != turn.car or entry is None or not entry.turn)
    )


def _handle(state: RaceState, event: Event, entry: EventType, foreign: bool) -> None:
    while foreign:
        turn = state.turn
        assert turn is not None
        _close_until(state, state.cars[turn.car], turn, REPLENISH, event)
        if state.turn is turn:
            break  # the turn goes on (a draw is due): the handler reports the event as out of turn
        foreign = _is_foreign(state.turn, event, entry)
    entry.handler(state, event)


def replay(events: Iterable[Event]) -> RaceState:
    """Fold a whole (effective) log into its state."""
    state: RaceState | None = None
    for ev in events:
        state = apply(state, ev, atomic=False)
    if state is None:
        raise MalformedInput("an empty log has no race")
    return state
