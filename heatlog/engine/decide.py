"""What the race waits for, and what a car may decide now.

The recorder, the simulator, the bots and what-if analysis all ask these questions; none of them
re-implements a rule. Chance events (flips, draws, shuffles) are not decisions: ``waiting_for`` names them,
``decisions`` never lists them.
"""

from __future__ import annotations

from dataclasses import field
from itertools import combinations
from typing import Any

from .cards import DISCARDABLE, GEAR_COOLDOWN, HAND_SIZE, HEAT
from .events import _CHANCE, _REGISTRY, entry_of
from .module import of_event
from .modules import circuits
from .react import EMPTY, ReactPool, ReactUse, react_pool
from .rules import slipstream_block, slipstream_totals
from .state import Car, RaceState, Turn, expand
from .steps import DISCARD, GEARS, PLAY, REACT, REPLENISH, REVEAL, SETUP, SLIPSTREAM, STEP_NAMES, STEPS, Step
from .track import Track
from .written import record

Event = dict[str, Any]


@record(slots=True)
class Waiting:
    """What the race needs next: the step, the cars that may act and the event that must come.

    The one reader of the step outside the engine (recorder, simulator, bots, views). Cheap to build: the
    optional decisions (``optional``, ``kinds``) and the ``text`` are worked out only when asked, from the
    state as it was when ``waiting_for`` was called (asking after the state moved on is an error).
    """

    step: Step
    cars: list[str]
    due: str | None  # the event that must come unless an optional one is taken first; None: the race is over
    count: int = 0  # cards to reveal or draw
    flipping: str | None = None  # "stress" or "boost" while a "+" flip is under way (# 14.1)
    may_go_on: bool = False  # steps 5–8: the car may go on without a further decision (go_on)
    _state: RaceState | None = field(default=None, repr=False)
    _at: tuple[int, int] = (0, 0)
    _optional: list[str] | None = field(default=None, repr=False)
    _pool: ReactPool | None = field(default=None, repr=False)  # the React pool ``optional`` read (decisions reuse it)

    def __init__(
        self,
        step: Step,
        cars: list[str],
        due: str | None,
        count: int = 0,
        flipping: str | None = None,
        may_go_on: bool = False,
        _state: RaceState | None = None,
        _at: tuple[int, int] = (0, 0),
        _optional: list[str] | None = None,
        _pool: ReactPool | None = None,
    ) -> None:
        self.step = step
        self.cars = cars
        self.due = due
        self.count = count
        self.flipping = flipping
        self.may_go_on = may_go_on
        self._state = _state
        self._at = _at
        self._optional = _optional
        self._pool = _pool

    @property
    def chance(self) -> bool:
        """Whether the due event is a chance outcome (a shuffle, draw or flip), not a decision."""
        due = self.due
        if due in _CHANCE:  # as the event catalogue says
            return True
        if due is None or due in _REGISTRY:
            return False
        entry = entry_of(due)  # a kind not registered yet: a module's (the registry completes)
        return entry is not None and entry.chance

    @property
    def optional(self) -> list[str]:
        """Event types that may come now and may be skipped by a later event (only what is open now)."""
        if self._optional is None:
            state = self._state
            if state is None or state.turn is None:
                self._optional = []
            else:
                if (state.events, state.turn.sub) != self._at:
                    raise RuntimeError("this Waiting is stale: the race has moved on since waiting_for()")
                self._optional, self._pool = _optional(state, state.cars[state.turn.car], state.turn, self._pool)
        return self._optional

    def react_pool(self) -> ReactPool | None:
        """The React pool of the car's turn now (the one :attr:`optional` reads), or None when no car has a turn.
        Read once, and alone: a bot that asks only for the pool does not pay for the rest of :attr:`optional`
        (the slipstream's and the discard's checks)."""
        if self._pool is None and self._optional is None:
            state = self._state
            if state is None or state.turn is None:
                return None
            turn = state.turn
            if (state.events, turn.sub) != self._at:
                raise RuntimeError("this Waiting is stale: the race has moved on since waiting_for()")
            self._pool = react_pool(state, state.cars[turn.car], turn) if turn.sub == REACT else EMPTY
        return self._pool

    @property
    def kinds(self) -> list[str]:
        """Every event type that fits now: the optional ones, then the due one."""
        if self.due is None:
            return []
        return [*self.optional, self.due] if self.may_go_on else [self.due]

    @property
    def step_name(self) -> str:
        return STEP_NAMES.get(self.step, "")

    @property
    def text(self) -> str:
        name = self.cars[0] if self.cars else ""
        due = self.due
        if due is None:
            return "nothing: the race is over"
        if self.step >= REACT and self.flipping is None:
            return f"{name}: " + ", ".join(_WORDS.get(k, k) for k in self.kinds)
        if due == "deck_shuffled":
            if self.step == SETUP:
                return f"{name}'s starting shuffle (# 1.2)"
            return f"{name} reshuffles the discard pile (# 5.6)"
        if due == "cards_drawn":
            return f"{name} draws {self.count} (# 1.2)"
        if due == "card_flipped":
            return f"{name} flips for the {self.flipping} (# 14.1)"
        if due == "cards_revealed":
            return f"{name} reveals {self.count} card{'s' if self.count != 1 else ''} (# 5.1)"
        text = _TEXT.get(due)
        if text is None:  # a module's own words for it (engine/module.py: Module.waiting), else its name
            unit = of_event(due)
            text = unit.waiting.get(due) if unit is not None else None
        return (text or due.replace("_", " ")).format(name=name, count=self.count)


_TEXT = {
    "race_started": "the race set-up",
    "grid_set": "the grid order (# 1.4)",
    "gear_chosen": "gears (# 3.1)",
    "cards_played": "played cards (# 4.1)",
}
_WORDS = {
    "cards_discarded": "discard",
    "cards_drawn": "draw",
    "deck_shuffled": "reshuffle (# 5.6)",
    "slipstream": "slipstream",
}


_new_waiting = object.__new__


def waiting_for(state: RaceState | None) -> Waiting:
    """What the race waits for now (see :class:`Waiting`)."""
    if state is None:
        return Waiting(STEPS[SETUP], [], "race_started")
    phase = state.phase
    if phase == "race":
        turn = state.turn
        if turn is None:
            if state.step == 1:
                return Waiting(STEPS[GEARS], list(state.pending), "gear_chosen")
            return Waiting(STEPS[PLAY], list(state.pending), "cards_played")
        car = state.cars[turn.car]
        sub = turn.sub
        if car.legend:  # a turn of another kind (# 19.5, MA9: a Legend's card) waits for one chance event
            rules = state.rules
            return Waiting(STEPS[REVEAL], [], rules.turn_waits[rules.turn_kind(state, car)], state.round)
        flipping = turn.flipping
        if flipping is not None:
            if car.deck_size == 0:
                due = "deck_shuffled"
            elif flipping == "stress" or flipping == "boost":  # the base's flips (# 5.2, 7.5)
                due = "card_flipped"
            else:  # a module's own flip may wait for another draw (Rules.flip_draws: # 18.12's scrapped card,
                due = state.rules.flip_draws.get(flipping, "card_flipped")  # # 18.18's shuffle of the deck)
            return Waiting(STEPS[sub], [car.name], due, 0, flipping)
        if turn.owed:  # a chance outcome only the table can give (e.g. event 18's Heat card, MA23)
            return Waiting(STEPS[sub], [car.name], turn.owed[0], turn.owed.count(turn.owed[0]))
        rules = state.rules
        base = rules.waits_plain  # step3_due, react_due, hand_size: the base's (which never make a step wait)
        if sub == REVEAL:
            due3 = None if base or rules.unchanged.step3_due else rules.step3_due(state, car, turn)  # # 18.6: first
            if due3 is not None:
                return Waiting(STEPS[REVEAL], [car.name], due3)
            return Waiting(STEPS[REVEAL], [car.name], "cards_revealed", turn.gear)
        if sub == REACT and not base and not rules.unchanged.react_due:
            due5 = rules.react_due(state, car, turn)  # # 18.11: which card's cost goes unpaid is a decision
            if due5 is not None:
                return Waiting(STEPS[REACT], [car.name], due5)
        deck_size = car.deck_size
        if deck_size == 0 and car.discard:  # a card is needed from an empty deck (# 5.6)
            due, n = "deck_shuffled", 0
        else:  # (base_hand_size is HAND_SIZE: not called where the race keeps it)
            n = (HAND_SIZE if base or rules.unchanged.hand_size else rules.hand_size(state, car)) - car.hand_size
            due = "cards_drawn"
            if n > deck_size:
                n = deck_size
        # Waiting(STEPS[sub], [car.name], due, n, None, sub < REPLENISH, state, (state.events, sub)), its fields set
        # here without the __init__ call: asked before nearly every event of a turn (tests/test_bots.py checks that
        # it equals the constructed one)
        w = _new_waiting(Waiting)
        w.step = STEPS[sub]
        w.cars = [car.name]
        w.due = due
        w.count = n
        w.flipping = None
        w.may_go_on = sub < REPLENISH
        w._state = state
        w._at = (state.events, sub)
        w._optional = None
        w._pool = None
        return w
    if phase == "grid":
        return Waiting(STEPS[SETUP], [], "grid_set")
    module_phase = state.rules.phase_waiting(state)  # a module's own set-up phase (# 18.5, 20.2: the draft, weather)
    if module_phase is not None:
        return Waiting(STEPS[SETUP], module_phase[1], module_phase[0])
    if phase == "deal":
        for car in (state.cars[n] for n in state.grid if not state.cars[n].legend):
            if car.needs_shuffle:
                return Waiting(STEPS[SETUP], [car.name], "deck_shuffled")
            size = state.rules.hand_size(state, car)  # # 1.2, 21.8
            if car.hand_size < size:
                return Waiting(STEPS[SETUP], [car.name], "cards_drawn", size - car.hand_size)
    return Waiting(STEPS[SETUP], [], None)


def _optional(state: RaceState, car: Car, turn: Turn, pool: ReactPool | None = None) -> tuple[list[str], ReactPool]:
    """The optional event types open now, and the React pool they were read from (empty outside React; ``pool``:
    that pool, when it was read already)."""
    sub = turn.sub
    if sub == REACT:
        if pool is None:
            pool = react_pool(state, car, turn)
        optional = pool.kinds()  # only what is open now: no adrenaline for other cars (# 6.1) …
    else:
        pool, optional = EMPTY, []  # (EMPTY.kinds(): the pool is empty outside React)
    unchanged = state.rules.unchanged
    # # 18.25: React cannot end yet, so nothing of a later step is open (the base's uses are never mandatory)
    if not unchanged.react_uses and pool.mandatory:
        return optional, pool
    if sub <= SLIPSTREAM and slipstream_block(state, car, turn) is None:
        optional.append("slipstream")
    if (
        sub <= DISCARD
        and not turn.cluttered
        and not (sub == DISCARD and turn.discarded)
        and (sub < DISCARD or circuits.may_discard(state.track, car.progress))  # # 22.6: no tunnel
    ):
        optional.append("cards_discarded")
    if not unchanged.turn_options:  # (the base adds no decision)
        for kind in dict.fromkeys(o["type"] for o in state.rules.turn_options(state, car, turn)):
            if kind not in optional:
                optional.append(kind)  # a module's (# 18.21: Refresh)
    return optional, pool


def legal_gears(state: RaceState, car: Car) -> list[int]:
    """# 3.1–3.4."""
    rules = state.rules
    track = state.track if rules.unchanged.shift_cost else None  # (base_shift_cost is circuits.shift_heat)
    if track is not None and not circuits.shift_heat_by_space(track):  # the cost is the gears' alone: kept
        key = (car.gear, car.engine)
        gears = _GEARS.get(key)
        if gears is None:
            gears = _GEARS[key] = tuple(_legal_gears(state, car, track))
        return list(gears)
    return _legal_gears(state, car, track)


def _legal_gears(state: RaceState, car: Car, track: Track | None) -> list[int]:
    out = []
    for g in range(1, 5):
        shift = abs(g - car.gear)
        if shift == 3:  # # 3.4
            continue
        if track is not None:
            cost = circuits.shift_heat(track, car.progress, car.gear, g)
        else:
            cost = state.rules.shift_cost(state, car, car.gear, g)
        if car.engine < cost:  # # 3.2, 3.3
            continue
        out.append(g)
    return out


# legal_gears where the race keeps the base shift cost and the circuit has no flooded space: by (gear, Engine).
_GEARS: dict[tuple[int, int], tuple[int, ...]] = {}


def playable_sets(car: Car, gear: int) -> list[list[str]]:
    """Distinct card choices for ``gear`` from a known hand (# 4.1, 4.2), or the forced cluttered play (# 13.1)."""
    hand = car.hand
    if hand is None:
        return []
    return hand_playable_sets(hand, gear)


def hand_playable_sets(hand: dict[str, int], gear: int) -> list[list[str]]:
    """:func:`playable_sets` of a hand (card -> count; cards of count 0 may be left out): for a bot that asks
    them of the cards it holds rather than of every token a Garage race counts (issue 32)."""
    key = (tuple(hand), tuple(hand.values()), gear)  # the race's tokens, in order, and their counts
    plays = _PLAYS.get(key)
    if plays is None:
        plays = _distinct(hand_play_pool(hand, gear), gear, gear)
        _keep(_PLAYS, key, plays)
    return list(map(list, plays))


def hand_play_pool(hand: dict[str, int], gear: int) -> tuple[str, ...]:
    """The cards a play in ``gear`` takes ``gear`` of (# 4.1): every card of ``hand`` but Heat, in the hand's order
    with its repeats (# 4.2, 18.6), or, with fewer than ``gear`` of them, the one forced play, Heat filling it
    (# 13.1). The plays are ``itertools.combinations(pool, gear)``: :func:`hand_playable_sets` before its repeats
    are dropped, for a caller that pairs each play with a sum taken in the same order (the heuristic's Garage
    plays, issue 32)."""
    playable = [c for c in expand(hand) if c != HEAT]  # # 4.2, 18.6: every card but Heat
    if len(playable) < gear:
        playable += [HEAT] * (gear - len(playable))  # # 13.1
    return tuple(playable)


# A hand's choices are asked at every play and discard by the simulator and the random bot (the heuristic keeps
# its own by hand): they are kept by hand (its tokens and counts) and gear or discard limit, a few thousand at most.
_PLAYS: dict[tuple[Any, ...], tuple[tuple[str, ...], ...]] = {}
_DISCARDS: dict[tuple[Any, ...], tuple[tuple[str, ...], ...]] = {}
_KEPT = 4096


def _keep(cache: dict[tuple[Any, ...], tuple[tuple[str, ...], ...]], key: tuple[Any, ...], value: Any) -> None:
    if len(cache) >= _KEPT:
        cache.clear()  # (the values never depend on what was kept: only the time to find them does)
    cache[key] = value


def _distinct(cards: tuple[str, ...], least: int, most: int) -> tuple[tuple[str, ...], ...]:
    """Each distinct choice of ``least`` to ``most`` of ``cards`` once, in order (fewest first, then in the
    order ``combinations`` meets them)."""
    out: list[tuple[str, ...]] = []
    for k in range(least, most + 1):
        out += dict.fromkeys(combinations(cards, k))
    return tuple(out)


def cooldown_left(turn: Turn, state: RaceState | None = None, car: Car | None = None) -> int:
    """Cooldown still allowed this turn; with the state and car, what the React pool holds as the car's sector
    has it now (no cooldown, cooling bonus: # 20.9, 20.10, MA5)."""
    if state is None or car is None:
        return turn.cooldown_allowance - turn.cooled
    return sum(u.n for u in state.rules.react_uses(state, car, turn) if u.symbol == "cooldown")


def react_options(state: RaceState, car: Car, turn: Turn) -> list[Event]:
    """React decisions open now (# 6.2, 7.1–7.6, and a module's symbols), each a ready-to-append event: the
    React pool's options (engine/react.py)."""
    return react_pool(state, car, turn).options()


def _slipstream_closed(state: RaceState, car: Car) -> str | None:
    """Why slipstream is not open to ``car`` now, or None when it is (# 8.1–8.7)."""
    turn = state.turn
    if turn is None or turn.car != car.name:
        return "it is not this car's turn"
    if turn.sub < 5 or turn.flipping is not None:
        return "the car has not moved yet"
    if turn.sub > 6:
        return "step 6 is over"
    return slipstream_block(state, car, turn)


def waits_at_steps_5_6(state: RaceState) -> bool:
    """Whether :func:`waiting_for` says a car's turn waits at step 5 or 6 (React, slipstream) with no flip under
    way (its ``step`` and ``flipping``), without building the :class:`Waiting`: the turn facts ask it after every
    event (issue 31: ``waiting_for`` there was a tenth of a corpus race). A Legend's turn waits at its reveal."""
    turn = state.turn
    if state.phase != "race" or turn is None or turn.flipping is not None or turn.sub not in (REACT, SLIPSTREAM):
        return False
    return not state.cars[turn.car].legend  # # 19.5, MA9


def slipstream_open(state: RaceState, car: Car) -> bool:
    """Whether slipstream is open to ``car`` now: :func:`slipstream_status` without the words (bots ask it)."""
    return _slipstream_closed(state, car) is None


def slipstream_status(state: RaceState, car: Car) -> tuple[bool, str]:
    """(open, reason): whether slipstream is open to ``car`` now and, if not, why (# 8.1–8.7)."""
    why = _slipstream_closed(state, car)
    if why is not None:
        return False, why
    totals = slipstream_totals(state, car)
    if len(totals) > 1:
        return True, f"open: {' or '.join(map(str, totals))} more spaces (# 8.1, 20.12)"
    return True, "open: 2 more spaces (# 8.1)"


def slipstream_choices(state: RaceState, car: Car) -> list[tuple[int, Event]]:
    """Every slipstream ``car`` may take now, as (distance, ready-to-append event); empty when it is not open:
    the basic 2 (# 8.2) with any subset of the Play Area's bonus cards (# 18.16), each with or without the
    sector's bonus (# 20.12), every total within the final finish line (# 8.6, MA17). Ordered by the fewest
    cards, then without the sector bonus: the first event of a distance is the plainest way to cover it."""
    ok, _ = slipstream_status(state, car)
    turn = state.turn
    if not ok or turn is None or "slipstream" not in waiting_for(state).optional:  # (not before a Scrap, # 18.25)
        return []
    cards = state.rules.slipstream_bonus_cards(state, car, turn)
    out: list[tuple[int, Event]] = []
    seen: set[tuple[int, tuple[str, ...]]] = set()
    for k in range(len(cards) + 1):
        for pick in combinations(cards, k):
            extra = sum(n for _, n in pick)
            names = tuple(sorted(token for token, _ in pick))
            for total in slipstream_totals(state, car, extra):
                if (total, names) in seen:
                    continue
                seen.add((total, names))
                ev: Event = {"type": "slipstream", "v": 1, "car": car.name, "taken": True}
                if pick:
                    ev["bonuses"] = [token for token, _ in pick]
                if total != 2 + extra:
                    ev["spaces"] = total  # with the sector bonus (# 20.12)
                out.append((total, ev))
    return out


def discard_options(car: Car, state: RaceState | None = None) -> list[list[str]]:
    """Distinct voluntary discards from a known hand (# 11.1): never Heat or Stress."""
    hand = car.hand
    if hand is None:
        return []
    limit = None  # # 21.8: an event card's cap (none in the base game)
    if state is not None and not state.rules.unchanged.discard_limit:
        limit = state.rules.discard_limit(state, car)
    if state is None:  # the base rule (# 11.1): never Heat or Stress
        discardable = DISCARDABLE
    elif state.rules.unchanged.can_discard:  # base_can_discard: the race's discardable cards (# 11.1)
        discardable = state.cards.discardable
    else:
        can = state.rules.can_discard
        pool = [c for c in expand(hand) if can(state, car, c)]
        most = min(len(pool), len(pool) if limit is None else limit)
        return list(map(list, _distinct(tuple(pool), 1, most)))  # each distinct discard once, fewest cards first
    key = (tuple(hand), tuple(hand.values()), discardable, limit)
    discards = _DISCARDS.get(key)
    if discards is None:
        pool = [c for c in expand(hand) if c in discardable]
        discards = _distinct(tuple(pool), 1, min(len(pool), len(pool) if limit is None else limit))
        _keep(_DISCARDS, key, discards)
    return list(map(list, discards))  # each distinct discard once, fewest cards first


def decisions(state: RaceState, name: str, waiting: Waiting | None = None) -> list[Event]:
    """Every decision event ``name`` may append now (open information; chance events excluded).

    In steps 5–8 the car may also simply go on: the next draw closes the optional steps; that choice is
    not an event and is not listed.
    """
    car = state.cars[name]
    w = waiting if waiting is not None else waiting_for(state)  # the caller's, if it asked already
    if name not in w.cars:
        return []
    if state.phase not in ("race", "over"):
        return state.rules.phase_decisions(state, name)  # a module's set-up phase (# 18.5: the draft's picks)
    turn = state.turn
    if turn is None:  # steps 1–2: nothing optional is open there (w.kinds is [w.due])
        if w.due == "gear_chosen":
            return [{"type": "gear_chosen", "v": 1, "car": name, "gear": g} for g in legal_gears(state, car)]
        if w.due == "cards_played":
            return [{"type": "cards_played", "v": 1, "car": name, "cards": s} for s in playable_sets(car, car.gear)]
        return []
    if turn.flipping is not None:
        return []
    if turn.sub == 3:
        if w.due != "cards_revealed":
            return state.rules.step3_options(state, car, turn)  # # 18.6, 18.20
        return [{"type": "cards_revealed", "v": 1, "car": name, "cards": s} for s in playable_sets(car, car.gear)]
    pool = w.react_pool() if w.may_go_on and w._state is state else None  # the pool w.optional read (steps 5-8)
    out = pool.options() if pool is not None else react_options(state, car, turn)
    if turn.sub == REACT and w.due not in ("cards_drawn", "deck_shuffled"):
        return out  # a decision React must take before it ends (# 18.11), or a React use that changes it (# 18.10)
    rules = state.rules  # a module's: slipstream bonuses (# 18.16), Refresh (# 18.21); none in the base game
    if "slipstream" in w.optional:
        out.append({"type": "slipstream", "v": 1, "car": name, "taken": True})
        if not rules.unchanged.slipstream_bonus:  # (the base has one total, the plain one)
            for total in slipstream_totals(state, car)[1:]:  # # 20.12: with a sector bonus
                out.append({"type": "slipstream", "v": 1, "car": name, "taken": True, "spaces": total})
        out.append({"type": "slipstream", "v": 1, "car": name, "taken": False})
    extra = [] if rules.unchanged.turn_options else rules.turn_options(state, car, turn)
    if extra:
        out += [o for o in extra if o["type"] == "slipstream"]
    if turn.sub == 8 and "cards_discarded" in w.optional:  # discards are decided after the corners
        out += [{"type": "cards_discarded", "v": 1, "car": name, "cards": d} for d in discard_options(car, state)]
    if extra:
        out += [o for o in extra if o["type"] != "slipstream"]
    return out


__all__ = [
    "GEAR_COOLDOWN",
    "Waiting",
    "cooldown_left",
    "decisions",
    "discard_options",
    "legal_gears",
    "playable_sets",
    "ReactPool",
    "ReactUse",
    "react_options",
    "react_pool",
    "slipstream_choices",
    "slipstream_open",
    "waits_at_steps_5_6",
    "slipstream_status",
    "waiting_for",
]
