"""Bots: who decides for a simulated car.

A bot is a callable ``(state, car name, options, rng) -> decision event | None``. ``options`` are the legal
decisions from :func:`heatlog.engine.decide.decisions` (a lazy sequence: it is only computed when a bot
looks at it); ``None`` means "go on" and is only returned where a step may be skipped (steps 5–8).

Bots decide only through the engine's "what may this car decide now" (:mod:`heatlog.engine.decide`) and see
only what their player could see (# 1.7): their own hand, the multiset of their own deck (deck ∪ hand is
public bookkeeping, the hand is theirs), and public information — positions, gears, Engines, discard piles,
the track. Never the order of a deck, never another car's hand. ``tests/test_bots.py`` checks this by
scrambling every deck order and every other hand and asking again.

``random``    uniform over the legal decisions (plus "go on" where allowed).
``heuristic`` a one-turn planner with a one-turn look-ahead: see :class:`HeuristicBot`.
``search``    the heuristic's candidate plans judged by playouts in determinized worlds: see :class:`SearchBot`.
"""

from __future__ import annotations

import copy
import hashlib
import random
import re
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import combinations
from operator import attrgetter, itemgetter
from typing import Any, overload

from ..engine import Waiting, landing, react_pool
from ..engine.cards import BASIC, CARDS, DISCARDABLE, GEAR_COOLDOWN, HAND_SIZE, HEAT, SPINOUT_STRESS, STRESS, VALUE
from ..engine.decide import (
    decisions,
    hand_play_pool,
    hand_playable_sets,
    legal_gears,
    slipstream_open,
    waiting_for,
)
from ..engine.errors import HeatlogError, MalformedInput
from ..engine.module import GO_ON, BotPolicy, ranked, shared_slots
from ..engine.modules.circuits import shift_heat_by_space
from ..engine.rules import slipstream_totals
from ..engine.ruleset import Rules, base_boost_cost, base_corner_cost
from ..engine.state import Car, RaceState, Turn, counts, expand
from ..engine.steps import DISCARD, GEARS, PLAY, REVEAL, SLIPSTREAM
from ..engine.track import Corner

Event = dict[str, Any]
# A bot: (state, car name, legal decisions, rng) -> chosen decision, or None to go on (steps 5–8 only).
Bot = Callable[[RaceState, str, Sequence[Event], random.Random], Event | None]
# The heuristic's plan for steps 1–2: the gear and the cards to play (a tuple: its caches hold no list).
Plan = tuple[int, tuple[str, ...]]


class Options(Sequence[Event]):
    """The legal decisions of ``name`` now (``decisions(state, name)``), computed on first use.

    The heuristic bot never needs the full list (e.g. every subset of a hand for a discard), so the
    simulator hands bots this lazy view instead of paying for it on every step.
    """

    __slots__ = ("_items", "_name", "_state", "waiting")

    def __init__(self, state: RaceState, name: str, waiting: Waiting | None = None) -> None:
        self._state = state
        self._name = name
        self._items: list[Event] | None = None
        self.waiting = waiting if waiting is not None else waiting_for(state)  # what the race waits for now

    def _get(self) -> list[Event]:
        if self._items is None:
            self._items = decisions(self._state, self._name, self.waiting)
        return self._items

    @overload
    def __getitem__(self, i: int) -> Event: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Event]: ...
    def __getitem__(self, i: int | slice) -> Event | Sequence[Event]:
        return self._get()[i]

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self) -> Iterator[Event]:
        return iter(self._get())

    def items(self) -> list[Event]:
        """The decisions as a plain list (computed once; do not change it)."""
        return self._get()


def _waiting(state: RaceState, options: Sequence[Event]) -> Waiting:
    """What the race waits for: the simulator hands it over with the options, other callers may not."""
    return options.waiting if isinstance(options, Options) else waiting_for(state)


# ------------------------------------------------------------------------------------------------ random


def random_bot(state: RaceState, name: str, options: Sequence[Event], rng: random.Random) -> Event | None:
    """Uniform over the legal decisions (plus "go on" where the step may be skipped)."""
    if isinstance(options, Options):  # one list, not three to four calls through the lazy view per decision
        w = options.waiting
        options = options.items()
    else:
        w = waiting_for(state)
    if not options:
        return None
    if not w.may_go_on:
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


# ------------------------------------------------------------------------------------------------ heuristic

# ------------------------------------------------------------------------------------------------ heuristic


@dataclass(frozen=True, slots=True)
class Weights:
    """What the heuristic values, in spaces (tuned with ``bench/bench_bots.py``)."""

    heat: float = 1.0  # one Heat on the Engine: it pays a corner or a boost, and once paid it clogs a hand later
    heat_scarce: float = 1.2  # extra worth of the last Heat (the one that saves a spinout)
    heat_decay: float = 0.6
    per_corner: float = 1.0  # Heat a car expects to need per corner still ahead (more than that is surplus)
    surplus: float = 0.9  # a surplus Heat: it buys a boost, and it will clog a hand less near the finish
    spin: float = 14.0  # a spinout beyond the spaces it loses: gear 1 again, a slow turn or two (# 10.1–10.5)
    stress_taken: float = 1.5  # each Stress a spinout puts in the hand (# 10.3)
    heat_in_hand: float = 0.5  # a Heat left in the hand: a dead card until cooled (# 7.3)
    stress_in_hand: float = 0.0  # a Stress left in the hand: a random card that cannot be discarded (# 11.1)
    card: float = 0.05  # value kept in the hand, per point of card value
    ahead: float = 0.7  # weight of the look-ahead at the next turn
    finish: float = 30.0  # crossing the final line this turn (# 16.1); distance beyond it still ranks (# 16.7)
    typical: float = 2.4  # an average card's value, for the look-ahead
    boost_margin: float = 0.3  # a boost must beat not boosting by this much
    discard_margin: float = 0.4  # discard a card worth this much less than an average draw


# What a card is worth in the hand, for discards: a Stress is a random Basic card, a Heat a dead card.
UTILITY = {**{c: float(v) for c, v in VALUE.items()}, HEAT: -1.5, STRESS: 1.6}
_B1, _B2, _B3, _B4 = BASIC  # the cards a flip can find (# 14.1), worth VALUE each
_FOUND = tuple(VALUE[c] for c in BASIC)
ELIMINATED = 100.0  # MODULES.md 21.8 event 10: a spinout ends the car's race with 0 points (MA21)
_LOW = tuple(sorted((c for c in DISCARDABLE if VALUE[c] <= 3), key=VALUE.__getitem__))  # discard candidates


# A race's modules' bot policies (``Module.bot_policy``), in rank order, and the one whose cards the planner plans
# with (the first with ``card_plans``), by the race's list of modules: the heuristic names no module (issue 26).
Policies = tuple[tuple[BotPolicy, ...], BotPolicy | None]
_POLICIES: dict[tuple[str, ...], Policies] = {}
_NO_POLICIES: Policies = ((), None)


# the last list of modules asked and its policies, one tuple (replaced whole: a thread reads one pair or another);
# it holds the list, so the identity test cannot meet another list at its address (a module race asks ~2 an event)
_LAST_POLICIES: tuple[tuple[str, ...], Policies] = ((), _NO_POLICIES)


def race_policies(state: RaceState) -> Policies:
    """The bot policies of the modules ``state``'s race plays with, and its planner's (see ``_POLICIES``)."""
    global _LAST_POLICIES
    names = state.rules.modules
    if not names:
        return _NO_POLICIES
    last = _LAST_POLICIES
    if last[0] is names:
        return last[1]
    hit = _POLICIES.get(names)
    if hit is None:
        found = tuple(m.bot_policy() for m in ranked(names) if m.bot_policy is not None)
        hit = _POLICIES[names] = (found, next((p for p in found if p.card_plans is not None), None))
    _LAST_POLICIES = (names, hit)
    return hit


def spinout_ends(state: RaceState) -> bool:
    """Whether a spinout ends the car's race in ``state``'s race, asked of the race's modules' bot policies
    (``BotPolicy.spinout_eliminates``: the championship's event 10, MODULES.md 21.8, MA21)."""
    return any(p.spinout_eliminates(state) for p in race_policies(state)[0] if p.spinout_eliminates is not None)


_CAR_FIELDS = attrgetter(*(f.name for f in fields(Car)))  # every field of a car, in __init__ order


def _stand_in(car: Car) -> Car:
    """A car like ``car`` that a bot may move to ask the Rules about another place: a new object with the same
    values, sharing its lists and counts (read, never changed), so that the race's own car is never touched (a
    bot reads the state, it never changes it; ``copy.copy`` costs three times as much)."""
    return Car(*_CAR_FIELDS(car))


def _cools_by_place(rules: Rules) -> bool:
    """Whether a point of the race's Rules that sets a turn's cooldown is a module's (its allowance, block or
    bonus: the weather's sectors read the car's place, MODULES.md 20.9, 20.10): the planner then asks them for a
    car where each move would end."""
    u = rules.unchanged
    return not (u.cooldown and u.cooldown_block and u.cooldown_bonus)


def _utility(c: str) -> float:
    """A card's worth in the hand: the base cards' table, a module card by its planned Speed and flips."""
    u = UTILITY.get(c)
    if u is not None:
        return u
    value, plus, heat = _MODULE_CARDS.get(c, (0, 0, 0))
    return value + 2.5 * plus - 1.0 * heat


# Speeds kept in a plan's value row (TrackPlan.row); faster plays are valued directly. A row is shared by the stretch
# of track its values read (``stretch(p, ROW)``): a shorter row reads fewer corners, so the track plans of a weather
# race's draws share more of them (issue 32: 32 -> 14, a weather event -3 % and a base event -1 % of instructions,
# the same decisions; a play of Speed 14 or more is rare and valued directly, as before)
ROW = 14


class PlanMemo:
    """``HeuristicBot._plan``'s memo on one track plan, used only while it pays.

    In playouts the same plan comes back often (about half the asks of a review are hits: every playout of a
    decision starts from the same cars); in races played once it rarely does (about 3 %), and making the key
    and keeping 100,000 plans then costs more than the hits save (about 5 % of a heuristic race). So the memo
    counts its hits: after ``PROBE`` asks with fewer than one hit in ``PAYS``, it is emptied and left unused
    for the next ``IDLE`` plans, then tried again. A hit is the plan the bot would make anyway, so the memo
    being used or not never changes a decision.
    """

    __slots__ = ("asks", "hits", "idle", "plans")
    PROBE = 2048
    PAYS = 8
    IDLE = 32768
    LIMIT = 100_000  # plans kept at most

    def __init__(self) -> None:
        self.plans: dict[tuple[Any, ...], Plan] = {}
        self.asks = self.hits = self.idle = 0

    def in_use(self) -> bool:
        """Whether the plan about to be made should be looked up (and kept); counts the plans made without."""
        if self.idle:
            self.idle -= 1
            return False
        return True

    def get(self, key: tuple[Any, ...]) -> Plan | None:
        hit = self.plans.get(key)
        self.asks += 1
        if hit is not None:
            self.hits += 1
        if self.asks >= self.PROBE:
            if self.hits * self.PAYS < self.asks:
                self.idle = self.IDLE
                self.plans.clear()
            self.asks = self.hits = 0
        return hit

    def put(self, key: tuple[Any, ...], plan: Plan) -> None:
        if self.idle:  # (the ask that ended the probe)
            return
        if len(self.plans) > self.LIMIT:
            self.plans.clear()
        self.plans[key] = plan

    def __len__(self) -> int:
        return len(self.plans)


class Stretches:
    """The values of :class:`_TrackPlan` that read only a stretch of track, by what they read, shared by the track
    plans of one bot (one set of weights).

    A weather race's road conditions change some corners' limits (MODULES.md 20.8), so each draw has a track plan
    of its own, and every value in it used to start cold (issue 32: a weather race ran at 0.6× a base race per
    event with the heuristic, 1.0× with random bots). But a look-ahead reads only the corners a move can reach:
    a stretch is those corners relative to the start (distance, limit, extra Heat), the final line if it is in
    reach, how many corners are left and the spinout's weight, and two starts with the same stretch, on any
    track plan, have the same values. A stretch gets a number that is never given again, so that a plan's
    numbers stay true when the tables are emptied (at ``LIMIT`` entries).
    """

    __slots__ = ("ahead", "ids", "next_id", "rows")
    LIMIT = 400_000

    def __init__(self) -> None:
        self.ids: dict[tuple[Any, ...], int] = {}
        self.next_id = 0
        # (stretch, gear) -> _TrackPlan.next_turn by Engine 0–8 (read, never changed once kept)
        self.ahead: dict[tuple[int, int], list[float]] = {}
        self.rows: dict[tuple[int, int, int, bool], list[float | None]] = {}  # (stretch, …) -> _TrackPlan.row

    def number(self, stretch: tuple[Any, ...]) -> int:
        n = self.ids.get(stretch)
        if n is None:
            if len(self.ids) + len(self.ahead) + len(self.rows) > self.LIMIT:
                self.ids.clear()
                self.ahead.clear()
                self.rows.clear()
            n = self.ids[stretch] = self.next_id
            self.next_id += 1
        return n


# The amounts over a corner's limit whose Heat a track plan asks the Rules (``_TrackPlan.costs``): 0 .. COST_SPAN - 1.
# A corner crossed further over its limit costs the last of them: already more Heat than any Engine holds (# 10.1).
COST_SPAN = 32
_TABLES: dict[tuple[Any, ...], int] = {}  # every distinct cost or shift table asked, numbered (for stretch keys)


def _table_id(table: tuple[Any, ...]) -> int:
    n = _TABLES.get(table)
    if n is None:
        n = _TABLES[table] = len(_TABLES)
    return n


def _neutral_turn(state: RaceState, car: Car) -> Turn:
    """A turn of ``car`` with nothing in its Play Area: what a corner point reads of no card (# 9.3, 18.17)."""
    return Turn(car=car.name, round=state.round, gear=car.gear, from_gear=car.gear, start=car.progress)


def ask_limits(state: RaceState, car: Car, turn: Turn, conditions: bool = True) -> tuple[int, ...]:
    """Each corner's limit (the track's corners in order) for ``car`` in ``turn``, asked from the race's Rules
    (# 9.3; a road token, # 20.8; the Adjust of the turn's Play Area, # 18.17). ``conditions=False``: the printed
    limits (a bot that does not read the modules' corner effects)."""
    if not conditions:
        return tuple(c.limit for c in state.track.corners)
    limit = state.rules.corner_limit
    return tuple(limit(state, car, turn, c) for c in state.track.corners)


def ask_costs(state: RaceState, car: Car, corner: Corner, limit: int, conditions: bool = True) -> tuple[int, ...]:
    """The Heat owed for crossing ``corner`` at ``limit`` + 0 .. ``COST_SPAN`` - 1, asked from the race's Rules
    (# 9.3; an overheat token, # 20.13, MA19)."""
    cost = state.rules.corner_cost if conditions else base_corner_cost
    return tuple(cost(state, car, corner, limit + over, limit) for over in range(COST_SPAN))


def ask_shifts(state: RaceState, car: Car) -> tuple[tuple[int, ...], ...]:
    """The Heat of every step-1 shift of ``car`` where it stands, ``[from][to]`` (gears 1–4; index 0 unused; a
    jump of three, # 3.4, costs nothing here: it is never legal), asked from the race's Rules (# 3.2, 3.3; the
    flooded-space surcharge, # 22.4)."""
    shift = state.rules.shift_cost
    return tuple(
        tuple(0 if a == 0 or b == 0 or abs(a - b) == 3 else shift(state, car, a, b) for b in range(5)) for a in range(5)
    )


_ENGINE_TABLES: dict[Weights, list[list[float]]] = {}


def _engine_table(w: Weights) -> list[list[float]]:
    """``table[c][e]``: what e Heat on the Engine are worth with c corners left before the finish: the marginal
    Heat is worth more when few are left, and all of them less near the finish. By the weights (read, never
    changed): every track plan of a weather race's draws shares one (issue 32)."""
    hit = _ENGINE_TABLES.get(w)
    if hit is not None:
        return hit
    table: list[list[float]] = []
    for left in range(9):
        need = left * w.per_corner
        row = [0.0]
        decay = 1.0  # heat_decay ** i by multiplication: exactly rounded, the same on every machine
        for i in range(24):
            worth = w.heat * (1 + w.heat_scarce * decay) if i < need else w.surplus
            row.append(row[-1] + worth)
            decay *= w.heat_decay
        table.append(row)
    if len(_ENGINE_TABLES) > 64:
        _ENGINE_TABLES.clear()
    _ENGINE_TABLES[w] = table
    return table


class _TrackPlan:
    """One race's corner lines (track × laps) as sorted absolute positions, with the heuristic's caches.

    The corners' limits and costs and the shifts' Heat are the race's Rules' answers (issue 26 build 7): asked
    once per plan (``ask_limits``, ``ask_costs``, ``ask_shifts``), not a second copy of the rules. ``corners``:
    each track corner's (limit, Heat owed by amount over it); a play whose cards change a limit (the Garage's
    Adjust, # 18.17) plans on a variant (``variant``) with the limits asked for that play.

    The caches hold values of pure functions of their keys (position, speed, Heat, gear), shared by every
    race on the same track and laps: that is what makes the heuristic cheap.
    """

    __slots__ = (
        "ahead_at",
        "ahead_cache",
        "by_play",
        "costs",
        "corner_limits",
        "cost_ids",
        "cost_tables",
        "ends",
        "engine_table",
        "final",
        "limits",
        "lines",
        "outcomes",
        "plans",
        "play_cards",
        "reach",
        "row_at",
        "rows",
        "shared",
        "shift0",
        "shift_ids",
        "shifts",
        "spin",
        "touch",
        "variants",
        "w",
    )

    def __init__(
        self,
        state: RaceState,
        w: Weights,
        corners: tuple[tuple[int, tuple[int, ...]], ...],
        shifts: tuple[tuple[tuple[int, ...], ...], ...],
        shared: Stretches | None = None,
    ) -> None:
        """``corners``: each track corner's limit and costs (``ask_limits``, ``ask_costs``); ``shifts``: the shift
        table (``ask_shifts``) where the car stands, by progress, or one table for every space (a circuit with no
        flooded space); ``shared``: the look-aheads by stretch of the bot's other track plans (:class:`Stretches`)."""
        n = state.track.spaces
        self.w = w
        # a spinout's worth: MODULES.md 21.8 event 10 eliminates the car (0 points, last place, MA21)
        self.spin = w.spin + (ELIMINATED if spinout_ends(state) else 0.0)
        self.final = state.final_line
        self.corner_limits = tuple(limit for limit, _ in corners)
        lines: list[tuple[int, int, tuple[int, ...]]] = []
        for k in range(-1, state.laps + 1):
            for c, (limit, costs) in zip(state.track.corners, corners, strict=True):
                line = c.after_space + k * n
                if line <= self.final:  # # 16.4: corners beyond the final line are ignored
                    lines.append((line, limit, costs))
        lines.sort(key=itemgetter(0, 1))
        self.lines = [line for line, _, _ in lines]
        self.limits = [limit for _, limit, _ in lines]
        self.costs = [costs for _, _, costs in lines]
        self.cost_ids = [_table_id(costs) for costs in self.costs]  # the stretch keys' numbers of the cost tables
        self.cost_tables: dict[tuple[int, int], tuple[int, ...]] = {}  # (corner, limit) -> ask_costs, for variants
        self.shifts = shifts
        self.shift0 = shifts[0]
        # the stretch keys' shift part: the tables' numbers by progress (None: one table for every space)
        self.shift_ids: list[int] | None = [_table_id(t) for t in shifts] if len(shifts) > 1 else None
        self.variants: dict[tuple[int, ...], _TrackPlan] = {}  # by the corners' limits
        self.by_play: dict[tuple[Any, ...], _TrackPlan] = {}  # by the cards of a play a limit may read
        # what by_play and touch were asked with: (the card plans, the road conditions, the Rules) (_module_context)
        self.play_cards: Any = None
        # the module cards known to change a corner's limit or not, and those that do (HeuristicBot._touching)
        self.touch: tuple[dict[str, bool], frozenset[str]] | None = None
        self.ahead_cache: dict[int, list[float]] = {}  # start * 8 + gear -> next_turn by Engine (Stretches.ahead)
        self.shared = Stretches() if shared is None else shared
        self.ahead_at: dict[int, int] = {}  # start -> the number of the stretch next_turn reads
        self.row_at: dict[int, int] = {}  # start -> the number of the stretch a row reads
        # the farthest a look-ahead move goes (next_turn's speeds): the corners it can read start below p + reach
        self.reach = max(max(g + g // 2, int(g * w.typical + 0.5)) for g in range(1, 5))
        self.outcomes: dict[tuple[int, int, int, int], float] = {}
        self.rows: dict[tuple[int, int, int, bool], list[float | None]] = {}
        self.plans = PlanMemo()  # HeuristicBot._plan's, by what it reads
        self.ends: dict[tuple[int, ...], float] = {}  # HeuristicBot._end_value's, by what it reads
        self.engine_table = _engine_table(w)

    def shift_table(self, p: int) -> tuple[tuple[int, ...], ...]:
        """The Heat of each shift (``[from][to]``) for a car that starts a round at ``p`` (# 3.2, 22.4)."""
        shifts = self.shifts
        if len(shifts) == 1:
            return self.shift0
        return shifts[p] if 0 <= p < len(shifts) else shifts[-1]

    def variant(self, state: RaceState, car: Car, limits: tuple[int, ...], conditions: bool = True) -> _TrackPlan:
        """This plan with the corners' limits ``limits`` (asked for a play or a turn whose cards change them,
        # 18.17), their costs asked from the Rules at those limits; kept by the limits."""
        if limits == self.corner_limits:
            return self
        hit = self.variants.get(limits)
        if hit is None:
            corners = []
            for i, (c, limit) in enumerate(zip(state.track.corners, limits, strict=True)):
                costs = self.cost_tables.get((i, limit))
                if costs is None:
                    costs = self.cost_tables[(i, limit)] = ask_costs(state, car, c, limit, conditions)
                corners.append((limit, costs))
            hit = self.variants[limits] = _TrackPlan(state, self.w, tuple(corners), self.shifts, self.shared)
        return hit

    def engine_value(self, e: int, p: int) -> float:
        if e <= 0:
            return 0.0
        left = len(self.lines) - bisect_left(self.lines, p)
        return self.engine_table[left if left < 8 else 8][e if e < 24 else 24]

    def corners(self, start: int, end: int, speed: int, engine: int) -> tuple[int, int | None]:
        """Heat owed for the corner lines crossed from ``start`` to ``end`` at ``speed`` (# 9.1, 9.3), paid one
        corner at a time, and the line of a spinout (# 10.1) if the Engine cannot pay one of them."""
        lines = self.lines
        i = bisect_left(lines, start)
        paid = 0
        n = len(lines)
        while i < n and lines[i] < end:
            over = speed - self.limits[i]
            if over > 0:  # # 9.3: nothing owed at or under the limit
                owed = self.costs[i][over if over < COST_SPAN else COST_SPAN - 1]  # the Rules' (# 20.13, MA19)
                if paid + owed > engine:
                    return paid, lines[i]
                paid += owed
            i += 1
        return paid, None

    def outcome(self, p: int, speed: int, engine: int, gear: int) -> float:
        """Value of a turn from ``p`` at ``speed`` in ``gear`` with ``engine`` Heat to pay its corners."""
        key = (p, speed, engine, gear)
        hit = self.outcomes.get(key)
        if hit is not None:
            return hit
        w = self.w
        end = p + speed
        # (corners and engine_value, inlined: a cold value is the most of a weather race's plans, issue 32)
        lines = self.lines
        n = len(lines)
        i = bisect_left(lines, p)
        paid = 0
        while i < n and lines[i] < end:  # # 9.1, 9.3: the corner lines crossed, paid one at a time
            over = speed - self.limits[i]
            if over > 0:
                owed = self.costs[i][over if over < COST_SPAN else COST_SPAN - 1]  # the Rules' (# 20.13, MA19)
                if paid + owed > engine:  # # 10.1–10.5: back before the line, Stress, gear 1, Engine emptied
                    lost = self.spin + w.stress_taken * SPINOUT_STRESS[gear]
                    value = self.outcomes[key] = (lines[i] - p) - lost + w.ahead * self.next_turn(lines[i], 1, 0)
                    return value
                paid += owed
            i += 1
        if end > self.final:
            value = speed + w.finish  # # 16.7: distance beyond the line ranks same-round finishers
        else:
            left = engine - paid
            # engine_value(left, end): the lines from i on are those left after the move
            worth = self.engine_table[n - i if n - i < 8 else 8][left if left < 24 else 24] if left > 0 else 0.0
            # next_turn(end, gear, left), inlined: a cold plan's values ask ~3 an event, a frame each (issue 32)
            best_of = self.ahead_cache.get(end * 8 + gear)
            if best_of is None:
                best_of = self._ahead(end, gear)
            ahead = -1e9 if left < 0 else best_of[left if left < 8 else 8]
            value = speed + worth + w.ahead * ahead
        self.outcomes[key] = value
        return value

    def row(self, p: int, engine: int, gear: int, adrenaline: bool) -> list[float | None]:
        """``value`` by speed (``0 .. ROW - 1``) for one start, Engine and gear: a list filled as speeds are asked
        (None: not asked yet; a faster play, a pile of "+" flips, is valued directly). A list, not a dict with
        ``__missing__``: a list's look-up is the interpreter's fastest and its row a third of the memory."""
        key = (p, engine, gear, adrenaline)
        hit = self.rows.get(key)
        if hit is not None:
            return hit
        if len(self.rows) > 200_000:
            self.rows.clear()
            self.outcomes.clear()
        at = self.row_at.get(p)
        if at is None:
            at = self.row_at[p] = self.stretch(p, ROW)
        shared = (at, engine, gear, adrenaline)
        row = self.shared.rows.get(shared)
        if row is None:
            row = self.shared.rows[shared] = [None] * ROW
        self.rows[key] = row
        return row

    def value(self, p: int, speed: int, engine: int, gear: int, adrenaline: bool) -> float:
        """``outcome``, or the better of it and one more space and speed with adrenaline (# 6.2)."""
        v = self.outcome(p, speed, engine, gear)
        if adrenaline:
            v2 = self.outcome(p, speed + 1, engine, gear)
            if v2 > v:
                return v2
        return v

    def next_turn(self, p: int, gear: int, engine: int) -> float:
        """Look-ahead: the best typical next turn from ``p`` in ``gear`` with ``engine`` Heat (# 3.1–3.3)."""
        # kept by start and gear, every Engine (0–8) at once: a cold plan asks ~6 of the 9 Engines of a start and
        # gear, each a look-up in the shared table before (issue 32); an int key, not a tuple (gear 0–4)
        best_of = self.ahead_cache.get(p * 8 + gear)
        if best_of is None:
            best_of = self._ahead(p, gear)
        if engine < 0:
            return -1e9  # (no gear affordable)
        return best_of[engine if engine < 8 else 8]  # (more Heat than 8 changes nothing here)

    def _ahead(self, p: int, gear: int) -> list[float]:
        """``next_turn`` from ``p`` in ``gear`` for every Engine 0–8: the shared table's, by the stretch it reads,
        or computed and kept there."""
        at = self.ahead_at.get(p)
        if at is None:
            at = self.ahead_at[p] = self.stretch(p, 0)
        shared = (at, gear)
        best_of = self.shared.ahead.get(shared)
        if best_of is not None:
            self.ahead_cache[p * 8 + gear] = best_of
            return best_of
        # every Engine of this stretch and gear at once: the corners a move crosses are the same for each, only
        # the spinout differs (a weather race's plans ask ~6 of the 9 of a stretch they meet, each cold; issue 32)
        w = self.w
        best_of = [-1e9] * 9
        lines, limits, costs = self.lines, self.limits, self.costs
        n = len(lines)
        i = bisect_left(lines, p)
        spin_worth, final, heat, finish = self.spin, self.final, w.heat, w.finish
        shifts = self.shift_table(p)[gear]  # the Rules' shift Heat from p (# 3.2, 22.4)
        for g in range(max(1, gear - 2), min(4, gear + 2) + 1):
            shift = shifts[g]
            if shift > 8:
                continue
            for speed in (g + g // 2, int(g * w.typical + 0.5)):
                end = p + speed
                owed: list[tuple[int, int]] = []  # the Heat owed at each corner line crossed (# 9.1, 9.3)
                total = 0
                j = i
                while j < n and lines[j] < end:
                    over = speed - limits[j]
                    if over > 0:  # # 9.3: nothing owed at or under the limit; the Rules' costs (# 20.13, MA19)
                        heat_owed = costs[j][over if over < COST_SPAN else COST_SPAN - 1]
                        owed.append((lines[j], heat_owed))
                        total += heat_owed
                    j += 1
                # the value with every corner paid (the Engine's Heat from ``shift + total`` on: no spinout)
                v = speed + finish if end > final else speed - heat * (total + shift)
                e_all = shift
                if owed:  # # 10.1: below, a corner the Engine cannot pay; the Engine grows, the spin moves on
                    k, m, paid = 0, len(owed), 0
                    line, heat_owed = owed[0]
                    while e_all < 9:
                        e = e_all - shift
                        while paid + heat_owed <= e:  # (the corners paid in order, as many as this Engine can)
                            paid += heat_owed
                            k += 1
                            if k == m:
                                break
                            line, heat_owed = owed[k]
                        if k == m:
                            break  # every corner paid from this Engine on
                        spun = (line - p) - spin_worth
                        if spun > best_of[e_all]:
                            best_of[e_all] = spun
                        e_all += 1
                while e_all < 9:
                    if v > best_of[e_all]:
                        best_of[e_all] = v
                    e_all += 1
        self.shared.ahead[shared] = self.ahead_cache[p * 8 + gear] = best_of
        return best_of

    def stretch(self, p: int, far: int) -> int:
        """The number of the stretch that the values of a start ``p`` read up to a speed of ``far`` (``next_turn``:
        0; a ``row``: ``ROW``, ``value`` reading one space more with adrenaline), relative to ``p``: the corner lines
        below ``p + far + reach`` (distance, limit, the Heat by amount over it; # 9.1, MODULES.md 20.8, 20.13), the
        final line if a move can cross it (# 16.7), the corners left from ``p`` as far as ``engine_value`` tells
        them apart (it reads at most 8, after a move of up to ``far``), the spinout's weight (# 10.1, MA21) and, on a
        circuit with flooded spaces, the shift tables where a look-ahead (# 22.4: ``p`` to ``p + far + 1``)."""
        lines, end = self.lines, p + far + self.reach
        i = bisect_left(lines, p)
        ids = self.shift_ids
        shifts = None if ids is None else tuple(ids[p : p + far + 2])
        seen: list[Any] = [self.spin, self.final - p if self.final < end else None, 0, shifts]
        while i < len(lines) and lines[i] < end:
            seen.append((lines[i] - p, self.limits[i], self.cost_ids[i]))
            i += 1
        if far:
            left = len(lines) - bisect_left(lines, p)
            seen[2] = min(left, 8 + len(seen) - 4)
        return self.shared.number(tuple(seen))


def _flip_values(car: Car) -> tuple[tuple[int, float], ...]:
    """What a "+" flip finds (# 5.2, 14.1): the first Basic card of the deck, which for a deck whose order
    the player does not know is any Basic card in it with equal chance; from the discard after a reshuffle
    (# 5.6) when the deck has none. Uses the deck only as a multiset (deck ∪ hand, minus the own hand)."""
    pool, hand = car.pool, car.hand
    if hand is not None:
        counts = (pool[_B1] - hand[_B1], pool[_B2] - hand[_B2], pool[_B3] - hand[_B3], pool[_B4] - hand[_B4])
    else:
        counts = (pool[_B1], pool[_B2], pool[_B3], pool[_B4])
    if not any(counts):
        counts = tuple(car.discard.count(c) for c in BASIC)  # type: ignore[assignment]
    hit = _FLIPS.get(counts)
    if hit is None:
        total = sum(counts)  # none at all: # A8, nothing to find
        hit = tuple((_FOUND[i], n / total) for i, n in enumerate(counts) if n) if total else ((0, 1.0),)
        hit = _FLIPS[counts] = _ONE_FLIPS.setdefault(hit, hit)  # one object per distinct answer (see _ONE_FLIPS)
    return hit


_FLIPS: dict[tuple[int, ...], tuple[tuple[int, float], ...]] = {}
# Every distinct answer of _flip_values, once and for good (never cleared, a few hundred at most): its id is then
# a key as good as the tuple (the plan memo and _SUMS key by it, without hashing the floats at every ask).
_ONE_FLIPS: dict[tuple[tuple[int, float], ...], tuple[tuple[int, float], ...]] = {}
_SUMS: dict[tuple[int, int], list[tuple[int, float]]] = {}


def _flip_sums(flips: tuple[tuple[int, float], ...], k: int) -> list[tuple[int, float]]:
    """Distribution of the sum of ``k`` flips (each Stress separately, # 5.2); ``flips``: from :func:`_flip_values`."""
    key = (id(flips), k)  # flips: an answer of _flip_values, kept for good (_ONE_FLIPS)
    hit = _SUMS.get(key)
    if hit is not None:
        return hit
    dist = [(0, 1.0)]
    for _ in range(k):
        acc: dict[int, float] = {}
        for s, p in dist:
            for v, q in flips:
                acc[s + v] = acc.get(s + v, 0.0) + p * q
        dist = sorted(acc.items())
    if len(_SUMS) > 10_000:
        _SUMS.clear()
    _SUMS[key] = dist
    return dist


_base_hand_key = itemgetter(*CARDS)  # a hand's counts as a tuple, in card order whatever the dict's order


def _hand_key(hand: dict[str, int]) -> tuple[Any, ...]:
    """A hand as a hashable key: the base cards' counts, or the (token, count) of each card held, in the hand's
    order, in a race with more cards (its hands count every token of the race, ~50 in a Garage race, most at 0:
    a key of them all cost a hash of 50 pairs at each of its look-ups, four or five a plan; issue 32)."""
    return _base_hand_key(hand) if len(hand) == len(CARDS) else tuple(filter(_COUNT, hand.items()))


_COUNT = itemgetter(1)  # (token, count) -> count: the cards held, by a C-level filter

# A play as the heuristic weighs it (``_plays``): (base value, "+" flips, Heat cost, cards, cards changing a limit).
Play = tuple[int, int, int, tuple[str, ...], tuple[str, ...]]
# (hand as counts, gear) -> the distinct plays for that gear by what they do (``_plays``).
_PLAYS: dict[tuple[tuple[Any, ...], int, frozenset[str]], list[Play]] = {}


# Module cards as the heuristic plans with them (``BotPolicy.card_plans``; the Garage's upgrades, # 18.6, 18.8,
# 18.10): (Speed it counts, "+" flips, Heat cost), by token: the plans of the race being decided (_read_card_plans).
_MODULE_CARDS: dict[str, tuple[int, int, int]] = {}
_PLANNED_CARDS: list[Any] = [None]  # the last card plans _read_card_plans read (held: its id stays its own)


def _read_card_plans(state: RaceState, planner: BotPolicy) -> None:
    """Make the race's card plans the ones ``_card_plan`` reads. A token is a card of the race's own catalogue (its
    ``race_started.cards``, # 18.2: an old or imported log may define ``U11`` otherwise than the card file): when
    the plans differ from those read last, the plays kept by hand (``_PLAYS``, ``_HAND_PREP``), made of the last
    plans, go with them. (Kept first-met by token, another catalogue's plan of a token was read for good: a
    race's decisions depended on the races the process had played before, principle 6.)"""
    global _MODULE_CARDS
    assert planner.card_plans is not None
    plans = planner.card_plans(state)
    if plans is _PLANNED_CARDS[0]:
        return  # (asked at every plan: a race's ~50 cards read once, not at each)
    _PLANNED_CARDS[0] = plans
    if plans != _MODULE_CARDS:  # (races of one upgrade set share one mapping: this is a race of other cards)
        _HAND_PREP[0] = None
        if _MODULE_CARDS:  # (before the first plans, no play of a module card was kept: the base races' stay)
            _PLAYS.clear()
        _MODULE_CARDS = dict(plans)  # (a new mapping, not this one emptied: a reader meets one or the other)


def _card_plan(c: str) -> tuple[int, int, int]:
    if c == STRESS:
        return 0, 1, 0
    v = VALUE.get(c)
    return (v, 0, 0) if v is not None else _MODULE_CARDS.get(c, _NO_PLAN)


_NO_PLAN = (0, 0, 0)  # a token without a plan: no Speed, no "+", no Heat cost


_BASE_SPEED = {**VALUE, STRESS: 0}  # _card_plan's value of a base card (a Stress: 0 and one "+" flip)
_BASE_KEYS = frozenset(CARDS)


def _plays(
    hand: dict[str, int], gear: int, hand_key: tuple[Any, ...], touching: frozenset[str] = frozenset()
) -> list[Play]:
    """The legal plays of ``hand`` (the engine's ``hand_playable_sets``, # 4.1, 4.2, 13.1) grouped by base value and
    number of "+" flips (Stress and a Garage card's boosts, # 18.8), as (base value, "+" flips, Heat cost, cards,
    module cards): plays that move alike are one choice. A Garage card with a Heat cost is kept apart (it spends
    Engine Heat, # 18.10). ``module cards``: the cards of the play that change a corner's limit (``touching``, the
    Garage's Adjust, # 18.17: ``HeuristicBot._touching``); a play holding some is a choice of its own, weighed on
    the limits the Rules give them (``HeuristicBot._play_plan``). Cached by hand (``hand_key``: ``_hand_key`` of
    the car's hand) and ``touching``: the same hand always has the same plays."""
    key = (hand_key, gear, touching)
    hit = _PLAYS.get(key)
    if hit is not None:
        return hit
    out: list[Play] = []
    plain = hand.keys() <= _BASE_KEYS  # base cards only: a play's value and Stress by two C-level calls
    if plain:
        met2: set[tuple[int, int]] = set()
        for cards in hand_playable_sets(hand, gear):
            if HEAT in cards:  # # 13: a cluttered play
                out.append((-1, 0, 0, tuple(cards), ()))
                continue
            # (as _card_plan: a Stress counts 0 and one "+", a base card its value, none a Heat cost)
            base, k = sum(map(_BASE_SPEED.__getitem__, cards)), cards.count(STRESS)
            if (base, k) not in met2:
                met2.add((base, k))
                out.append((base, k, 0, tuple(cards), ()))
    else:
        out = _module_plays(hand, gear, touching, hand_key)
    if len(_PLAYS) > 100_000:
        _PLAYS.clear()
    _PLAYS[key] = out
    return out


def _module_plays(
    hand: dict[str, int], gear: int, touching: frozenset[str], hand_key: tuple[Any, ...] | None = None
) -> list[Play]:
    """``_plays`` of a hand holding module cards (a Garage race's, # 18.6, 18.8, 18.10): the same plays in the same
    order, each the first play of the engine's list (``hand_playable_sets``, # 4.1, 4.2, 13.1) that does what it
    does. A Garage hand is seldom met twice (its cards are many and mostly distinct), so this is asked for most of
    its plans (issue 32): each card's (Speed, "+", Heat cost, and, when the hand holds a card that changes a limit,
    # 18.17, which such card) is packed in one integer once per hand (``hand_key``: asked again for each gear),
    a play's sum of them added up over the distinct plays of ``combinations(hand_play_pool(...))`` — the engine's
    plays in their order, each multiset of cards once (``_plays_by_runs``: about half of the combinations of a hand
    holding pairs) — and the first play of each distinct sum kept. A cluttered hand and cards planned outside the
    packed range are weighed the long way (``_module_plays_long``, the same answer).

    The sums are the interpreter's own additions in one loop a gear: in this interpreter a call of a C function per
    play (``sum``, ``dict.fromkeys``, ``list.index``) cost more than the bytecode it saves (cachegrind on the plays of
    8 all-upgrades races: ~86 k instructions a call, ~15 % of an all-upgrades event, before; issue 32)."""
    prep = _HAND_PREP[0]
    if prep is None or hand_key is None or prep[0] != hand_key or prep[1] != touching:
        prep = _module_prep(hand, gear, touching)
        _HAND_PREP[0] = (hand_key, *prep[1:]) if hand_key is not None else None
    pool, packs, with_ups = prep[2], prep[3], prep[4]
    if packs is None or len(pool) < gear:  # (a pool is the same at every gear it has enough cards for)
        return _module_plays_long(hand, gear, touching, with_ups)
    # each distinct sum and its first play's cards, in the order first met: over the hand's distinct plays
    # (``_plays_by_runs``), the first of each in the engine's order, as the sums are the same; the cards read from
    # the positions already unpacked (``tuple(map(pool.__getitem__, at))`` built a map and a method-wrapper a play)
    first: dict[int, tuple[str, ...]] = {}
    vals, runs = prep[5], prep[6]
    plays = _RUNS_PLAYS.get((runs, gear)) or _plays_by_runs(runs, gear)
    if gear == 1:
        for at in plays:
            total = vals[at[0]]
            if total not in first:
                first[total] = (pool[at[0]],)
    elif gear == 2:
        for at in plays:
            i, j = at
            total = vals[i] + vals[j]
            if total not in first:
                first[total] = (pool[i], pool[j])
    elif gear == 3:
        for at in plays:
            i, j, k = at
            total = vals[i] + vals[j] + vals[k]
            if total not in first:
                first[total] = (pool[i], pool[j], pool[k])
    elif gear == 4:
        for at in plays:
            i, j, k, m = at
            total = vals[i] + vals[j] + vals[k] + vals[m]
            if total not in first:
                first[total] = (pool[i], pool[j], pool[k], pool[m])
    else:
        for at in plays:
            total = 0
            for i in at:
                total += vals[i]
            if total not in first:
                first[total] = tuple(map(pool.__getitem__, at))
    out: list[Play] = []
    ups_of = prep[7]  # this hand's up bits -> the cards changing a limit they stand for
    for total, cards in first.items():
        d = _DECODED.get(total)  # (a shift or mask is no specialised instruction: each a call, a new int)
        if d is None:
            if len(_DECODED) > 65536:
                _DECODED.clear()
            d = _DECODED[total] = (total & 255, total >> 8 & 255, total >> 16 & 255, total >> 24)
        base, k, heat, up = d
        if up:  # # 18.17: the same up bits are the same cards (each such card's count, in the pool's order)
            ups = ups_of.get(up)
            if ups is None:  # (a comprehension is a call: once a hand and distinct bits, not once a play)
                ups = ups_of[up] = tuple([c for c in cards if c in touching])
        else:
            ups = ()
        out.append((base, k, heat, cards, ups))
    return out


# a play's packed sum (``_module_plays``) -> (Speed, "+", Heat cost, cards changing a limit): a few thousand sums
_DECODED: dict[int, tuple[int, int, int, int]] = {}


_HAND_PREP: list[Any] = [None]  # the last hand _module_plays packed: (hand key, touching, pool, packs, ...)
# (the counts of a pool's cards in its order, gear) -> the positions of the pool's distinct plays of ``gear`` cards, in
# the order ``combinations(pool, gear)`` first meets each: a few dozen patterns (hands of 4–8 cards)
_RUNS_PLAYS: dict[tuple[tuple[int, ...], int], tuple[tuple[int, ...], ...]] = {}


def _plays_by_runs(runs: tuple[int, ...], gear: int) -> tuple[tuple[int, ...], ...]:
    """The distinct plays of ``gear`` cards of a pool whose cards come in ``runs`` (each card's copies together,
    # 4.2, as ``expand`` lists them), as positions in the pool: the first combination of each distinct play, in the
    order ``combinations`` meets them (the engine's order, ``hand_playable_sets``). A play's cards are a multiset of
    the hand: the same cards at other positions are the same play, met later."""
    key = (runs, gear)
    hit = _RUNS_PLAYS.get(key)
    if hit is None:
        card_at = [k for k, n in enumerate(runs) for _ in range(n)]  # position -> which card
        seen: dict[tuple[int, ...], tuple[int, ...]] = {}
        for at in combinations(range(len(card_at)), gear):
            seen.setdefault(tuple([card_at[i] for i in at]), at)
        if len(_RUNS_PLAYS) > 4096:  # (a bound for hands no race deals: the answers never depend on what was kept)
            _RUNS_PLAYS.clear()
        hit = _RUNS_PLAYS[key] = tuple(seen.values())
    return hit


def _module_prep(hand: dict[str, int], gear: int, touching: frozenset[str]) -> tuple[Any, ...]:
    """(None, ``touching``, the engine's pool, each card's packed plan or None to go the long way, whether a card
    held changes a limit, the packed plans by position in the pool, the pool's runs: how many of each card, in its
    order, and an empty mapping of a play's up bits to its cards that change a limit, filled as met) for
    ``_module_plays``."""
    with_ups = False
    if touching:
        for c in touching:  # (a loop, not any() over a generator: each card a resumption of its frame, issue 32)
            if hand.get(c):
                with_ups = True
                break
    pool = hand_play_pool(hand, gear)
    if HEAT in pool:  # # 13.1: the one cluttered play (no card takes effect, # 18.26)
        return None, touching, pool, None, with_ups
    packs: dict[str, int] = {}
    vals: list[int] = []  # by position in the pool
    runs: list[int] = []  # the count of each card of the pool, in its order (expand's: each card's copies together)
    bit = 24
    module_cards = _MODULE_CARDS
    for c, n in hand.items():
        if not n:
            continue
        v = VALUE.get(c)  # (_card_plan inlined: a call a card held)
        if v is not None:
            plus = cost = 0
        elif c == STRESS:
            v, plus, cost = 0, 1, 0
        else:
            v, plus, cost = module_cards.get(c, _NO_PLAN)
        if not (0 <= v < 64 and 0 <= plus < 64 and 0 <= cost < 64):
            return None, touching, pool, None, with_ups
        packed = v | plus << 8 | cost << 16  # a play holds at most 4 cards: each sum stays below 256
        if with_ups and c in touching:  # the cards changing a limit, by count (they sit together in the pool)
            packed |= 1 << bit
            bit += 3
        packs[c] = packed
        if c != HEAT:
            runs.append(n)
            if n == 1:
                vals.append(packed)
            else:
                vals += [packed] * n
    return None, touching, pool, packs, with_ups, vals, tuple(runs), {}


def _module_plays_long(hand: dict[str, int], gear: int, touching: frozenset[str], with_ups: bool) -> list[Play]:
    """``_module_plays`` card by card over every play of the engine's list."""
    out: list[Play] = []
    if not with_ups:  # no card held changes a limit: as a base race
        # (``touching`` holds every such card met in the race: a hand without one has no play of its own to weigh)
        # (a race with more cards: each card's plan read once for this hand, not once per play it is in: issue 32)
        plans3 = {c: _card_plan(c) for c, n in hand.items() if n}
        met: set[tuple[int, int, int]] = set()
        for cards in hand_playable_sets(hand, gear):
            if HEAT in cards:  # # 13: a cluttered play (no card takes effect, # 18.26)
                out.append((-1, 0, sum((plans3.get(c) or _card_plan(c))[2] for c in cards), tuple(cards), ()))
                continue
            base = k = heat = 0
            for c in cards:
                v, plus, cost = plans3[c]
                base += v
                k += plus
                heat += cost
            if (base, k, heat) not in met:
                met.add((base, k, heat))
                out.append((base, k, heat, tuple(cards), ()))
        return out
    # a play holding cards that change a limit is its own choice: it is weighed on the limits they give
    plans = {c: (*_card_plan(c), c in touching) for c, n in hand.items() if n}
    seen: set[tuple[Any, ...]] = set()
    for cards in hand_playable_sets(hand, gear):
        if HEAT in cards:  # # 13: a cluttered play (no card takes effect, # 18.26)
            out.append((-1, 0, sum((plans.get(c) or _card_plan(c))[2] for c in cards), tuple(cards), ()))
            continue
        base = k = heat = 0
        ups: tuple[str, ...] = ()
        for c in cards:
            v, plus, cost, up = plans[c]
            base += v
            k += plus
            heat += cost
            if up:
                ups += (c,)
        if (base, k, heat, ups) not in seen:
            seen.add((base, k, heat, ups))
            out.append((base, k, heat, tuple(cards), ups))
    return out


_NO_TOUCH: frozenset[str] = frozenset()
_NO_HAND: dict[str, int] = {}  # (asked of the Play Area alone: never changed)
_NO_FLIP: list[tuple[int, float]] = [(0, 1.0)]  # the outcomes of a play with no "+" flip (never changed)
_POINTS: dict[tuple[Any, ...], int] = {}


def _hand_points(hand_key: tuple[Any, ...], hand: dict[str, int]) -> int:
    """The hand's total card value (``VALUE``), by its ``_hand_key``."""
    hit = _POINTS.get(hand_key)
    if hit is None:
        if len(_POINTS) > 100_000:
            _POINTS.clear()
        hit = _POINTS[hand_key] = sum(VALUE[c] * hand[c] for c in VALUE)
    return hit


def _module_context(state: RaceState, tp: _TrackPlan, cards_of: Any) -> None:
    """Keep ``tp``'s answers for module cards (``by_play``: the plan of a play's limits, ``touch``: which cards change
    a limit) while what they were asked with holds: the race's card plans (one mapping per card catalogue: races on
    the same cards share it, issue 32), the road conditions (each weather race its own) and Rules of the same
    modules and options (the points the limits are asked of); empty them when another race reads otherwise."""
    kept = tp.play_cards
    rules = state.rules
    shared = shared_slots(state)  # (the road conditions, among others: immutable slots, replaced by a draw)
    if kept is not None and kept[0] is cards_of and kept[1] == shared and kept[2] is rules:
        return
    if (
        kept is None
        or kept[0] is not cards_of
        or kept[1] != shared
        or kept[2].modules != rules.modules
        or kept[2].options != rules.options
    ):
        tp.by_play.clear()
        tp.touch = None
    tp.play_cards = (cards_of, shared, rules)


def draw_worth(car: Car, need: int) -> float | None:
    """The mean worth (``_utility``) of a card ``car`` draws when it refills ``need`` cards: of its deck (pool less
    hand, # 1.7), and of its discard pile and Play Area too when the refill reaches into the reshuffle (# 5.6,
    12.3); None when there is nothing to draw. The products are summed in the same order as one sum over the
    deck's counts (whatever ``sum``'s float method); a card not there adds an exact zero, so it is left out."""
    hand, pool = car.hand, car.pool
    assert hand is not None
    if car.deck_size >= need + 2 and len(pool) > len(_BASE_KEYS):
        # a race with more cards (a Garage race's counts hold every token of the race, ~50, most at 0: issue 32):
        # the deck's counts of the tokens the pool holds, in the pool's order, without building every count
        held = [(c, n - hand[c]) for c, n in filter(_COUNT, pool.items())]
        total = sum(map(_COUNT, held))
        if not total:
            return None
        return sum([(UTILITY[c] if c in UTILITY else _utility(c)) * n for c, n in held if n]) / total
    source = car.deck_counts()  # (a fresh dict)
    assert source is not None
    if car.deck_size < need + 2:  # the refill reaches into the reshuffled discard (# 5.6, 12.3)
        for c in car.discard:
            source[c] += 1
        for c in car.play_area:
            source[c] += 1
    total = sum(source.values())
    if not total:
        return None
    if source.keys() <= UTILITY.keys():  # the base cards only: the same products, without asking for each
        return sum([UTILITY[c] * n for c, n in source.items() if n]) / total
    return sum([(UTILITY[c] if c in UTILITY else _utility(c)) * n for c, n in source.items() if n]) / total


class HeuristicBot:
    """Drives like a sensible player, one turn at a time, with a look at the next.

    Steps 1–2 (gear and cards, planned together): every legal gear with every distinct play of the hand is
    scored by its expected outcome — the spaces gained (a Stress counted at its expected flip, # 5.2), the
    Heat left on the Engine after the corners it crosses (# 9.3; the last Heat are worth the most, and all
    of them less as the finish nears), a spinout it can foresee (speed against limits and Engine, # 10),
    the Heat it can cool in gears 1–2 (# 7.2, 7.8), what stays in the hand (Heat and Stress are dead weight;
    a cluttered play wastes the turn, so it shifts down instead, # 13), and a look-ahead at the next turn
    from where it lands (4th gear just before a tight corner costs Heat or a two-gear shift next turn).

    React (# 7): adrenaline cooldown, then cool every Heat it may; the adrenaline move, a boost (expected over
    the flip) and slipstream (# 8) are taken when they score better than not taking them — i.e. when the
    Heat is affordable and the corners crossed allow the extra speed.

    Discard (# 11.1): cards worth less than an average draw from its own deck, keeping a low card when a tight
    corner is near.
    """

    name = "heuristic"

    def __init__(self, weights: Weights | None = None, *, reads_conditions: bool = True) -> None:
        """``reads_conditions=False``: a bot that plans with the printed corner limits and ignores the sector
        effects (MODULES.md 20) — the legal decisions still follow them; for measuring what reading them is
        worth (bench/bench_bots.py)."""
        self.w = weights or Weights()
        self.reads_conditions = reads_conditions
        self._by_id: dict[int, tuple[Any, int, _TrackPlan, Any, Any]] = {}
        self._by_content: dict[tuple[Any, ...], _TrackPlan] = {}
        self._planned: dict[str, tuple[Any, ...]] = {}  # step 1's plan per car, reused at step 2
        # the module cards that change a corner's limit when played (_touching), by the race's card catalogue
        self._stretches = Stretches()  # the values of every track plan of this bot, by the stretch they read

    def __call__(self, state: RaceState, name: str, options: Sequence[Event], rng: random.Random) -> Event | None:
        car = state.cars[name]
        # (_waiting, inlined: asked at every decision)
        w = options.waiting if options.__class__ is Options else waiting_for(state)
        if name not in w.cars or w.flipping is not None:
            return None
        step = w.step  # compared with the plain step numbers: an Enum attribute costs four times a global
        for policy in race_policies(state)[0]:  # the race's modules' own decisions (Module.bot_policy)
            decide = policy.decide
            if decide is not None:
                chosen = decide(state, car, w, options, self._end_now)
                if chosen is GO_ON:
                    return None
                if chosen is not None or w.due in policy.owns:
                    return chosen
        if step == GEARS:
            gear, _ = self._plan(state, car)
            return {"type": "gear_chosen", "v": 1, "car": name, "gear": gear}
        if step == PLAY:
            _, cards = self._plan(state, car, gear=car.gear)
            return {"type": "cards_played", "v": 1, "car": name, "cards": list(cards)}
        if step == REVEAL:  # table mode: the reveal is the play
            _, cards = self._plan(state, car, gear=car.gear)
            return {"type": "cards_revealed", "v": 1, "car": name, "cards": list(cards)}
        if step <= SLIPSTREAM:
            return self._react(state, car, w)
        if step == DISCARD:
            # the engine says whether a discard is open (# 11.1, 13.3, 22.6 tunnels): no copy of those rules here
            return self._discard(state, car) if "cards_discarded" in w.optional else None
        return None

    def _track_plan(self, state: RaceState, car: Car | None = None) -> _TrackPlan:
        """The race's track plan with the corners and shifts of no card in play, asked from its Rules as ``car``
        (any car of the race when None: no point reads the car today). Kept by what the answers read — the
        track, the laps, the road conditions and the Rules — and shared by content."""
        track = state.track
        hit = self._by_id.get(id(track))
        rules = state.rules  # the same race's rules: the same spinout weight (fixed when the race started)
        shared = shared_slots(state)  # (the road conditions, among others: immutable slots, replaced by a draw)
        same = hit is not None and hit[4] is rules and hit[0] is track and hit[3] == shared
        if same and hit is not None and hit[1] == state.laps:
            return hit[2]
        spin = self.w.spin + (ELIMINATED if spinout_ends(state) else 0.0)
        if len(self._by_id) > 64:
            self._by_id.clear()
        if len(self._by_content) > 64:
            self._by_content.clear()
        if car is None:
            car = next(iter(state.cars.values()))
        # the corners as the Rules answer for a turn with no card in play (issue 26 build 7): draws of road
        # conditions that change the corners alike (most tokens lie on sectors, which the plan does not read) and
        # races on the same circuit share one plan
        conditions = self.reads_conditions
        limits = ask_limits(state, car, _neutral_turn(state, car), conditions)
        corners = tuple(
            (limit, ask_costs(state, car, c, limit, conditions)) for c, limit in zip(track.corners, limits, strict=True)
        )
        if rules.unchanged.shift_cost and not shift_heat_by_space(track):  # the shift's Heat is the gears' alone
            shifts: tuple[tuple[tuple[int, ...], ...], ...] = (ask_shifts(state, car),)
            by_space: Any = None
        else:  # # 22.4: by the space a car starts the round on (asked for a car standing there)
            probe = copy.copy(car)
            table = []
            for p in range(state.final_line + 64):  # (past the line: every start a race can hold)
                probe.progress = p
                table.append(ask_shifts(state, probe))
            shifts = tuple(table)
            by_space = shifts if rules.unchanged.shift_cost else (shifts, id(rules))
        content = (track.id, track.spaces, state.final_line, corners, by_space, spin)
        plan = self._by_content.get(content)
        if plan is None:
            plan = self._by_content[content] = _TrackPlan(state, self.w, corners, shifts, self._stretches)
        self._by_id[id(track)] = (track, state.laps, plan, shared, rules)  # holds the track: its id stays
        return plan

    def _turn_plan(self, state: RaceState, car: Car) -> _TrackPlan:
        """The track plan with the corners' limits the race's Rules give ``car`` in its turn under way (the Adjust
        of its Play Area, # 18.17): React, a card's value and Accelerate weigh the corners of this turn."""
        tp = self._track_plan(state, car)
        turn = state.turn
        planner = race_policies(state)[1]
        if turn is None or state.rules.unchanged.corner_limit or not self.reads_conditions or planner is None:
            return tp  # (only a module's cards change a limit by being played, as _play_plan reads them)
        if self._touching(state, car, tp, planner, _NO_HAND, turn.played).isdisjoint(turn.played):
            return tp  # no card that changes a limit in the Play Area: the limits the plan asked (as _plays)
        return tp.variant(state, car, ask_limits(state, car, turn))

    def _end_now(self, state: RaceState, car: Car, q: int, speed: int) -> float:
        """The value of ending the turn under way at ``q`` with ``speed`` (``_end_value`` on the turn's plan), as a
        module's bot policy weighs its choices (``BotPolicy.decide``: a card's value, Accelerate)."""
        return self._end_value(state, self._turn_plan(state, car), car, q, speed, car.engine)

    def _play_plan(
        self,
        state: RaceState,
        car: Car,
        tp: _TrackPlan,
        gear: int,
        cards: tuple[str, ...],
        ups: tuple[str, ...],
        short: bool,
    ) -> _TrackPlan:
        """The track plan for a play holding the module cards ``ups``: the limits the Rules give a turn with this
        Play Area, its Heat costs paid (or, ``short``, the cards replaced, # 18.11) — a card's Adjust (# 18.17).
        Kept by those cards, the only ones a corner point reads of a play."""
        planner = race_policies(state)[1]  # the race's module whose cards may change a limit (the Garage's)
        if planner is None or planner.planned_turn is None or planner.card_plans is None or not self.reads_conditions:
            return tp
        planned_turn = planner.planned_turn
        _module_context(state, tp, planner.card_plans(state))
        key = (ups, short)
        hit = tp.by_play.get(key)
        if hit is None:
            turn = planned_turn(state, car, gear, list(cards), not short)
            hit = tp.by_play[key] = tp.variant(state, car, ask_limits(state, car, turn))
        return hit

    def _touching(
        self,
        state: RaceState,
        car: Car,
        tp: _TrackPlan,
        planner: BotPolicy,
        hand: dict[str, int],
        played: Sequence[str] = (),
    ) -> frozenset[str]:
        """The module cards held in ``hand`` or ``played`` (and any met before in this race) that change a corner's
        limit when played: asked of the Rules once per card and catalogue, with a turn whose Play Area holds the
        card alone, its cost paid (# 18.17: the Garage's Adjust). A card that changes no limit alone is taken to
        change none in company (the Adjust symbols add up, # 18.17), so most plays are weighed on the plan itself.
        ``planner``: the race's policy that plans its module cards (``race_policies``)."""
        planned_turn = planner.planned_turn
        if planned_turn is None or planner.card_plans is None:
            return _NO_TOUCH
        _module_context(state, tp, planner.card_plans(state))  # the answers are kept while what they read holds
        kept = tp.touch
        if kept is None:
            known, touching = dict.fromkeys(_BASE_KEYS, False), _NO_TOUCH
        else:
            known, touching = kept
        missing = hand.keys() - known.keys()  # (a set: the answers do not depend on order)
        fresh = [c for c in missing if hand[c]] if missing else []  # (a comprehension is a call: only when needed)
        if played:
            fresh += [c for c in played if c not in known and c not in fresh]
        if fresh or kept is None:
            for c in fresh:
                known[c] = ask_limits(state, car, planned_turn(state, car, car.gear, [c], True)) != tp.corner_limits
            touching = frozenset(c for c, t in known.items() if t)
            tp.touch = (known, touching)
        return touching

    def _plan(self, state: RaceState, car: Car, gear: int | None = None) -> Plan:
        hand = car.hand
        if hand is None:
            raise MalformedInput("the heuristic bot plays open races only: it needs its own hand")
        # Everything the plan depends on besides the state's identity, so that a plan is never reused for
        # another race or round whose state happens to get the same id (the adrenaline holders, the track).
        adrenaline = car.name in state.adrenaline  # # 6.1: fixed at the start of the round, public
        context = (adrenaline, state.track.id, state.final_line)
        key = (id(state), state.round, _hand_key(hand), car.progress, car.engine, gear, *context)
        planned = self._planned.get(car.name)
        if gear is not None and planned is not None and planned[0] == key:
            return gear, planned[1]  # step 2: the car is as step 1 left it when it planned this play
        tp = self._track_plan(state, car)
        gears = [gear] if gear is not None else legal_gears(state, car)
        # A race whose cooldown does not depend on where the car lands (``_cools_by_place``: no weather): the plan
        # is a pure function of what this key holds (the hand, where the car is, its Engine and gear, adrenaline,
        # what a flip finds, the gears it may choose) on this track plan, so a plan made once (another side of a
        # playout, another playout) is made again from the cache.
        memo: tuple[Any, ...] | None = None
        flips: tuple[tuple[int, float], ...] | None = None
        plans = tp.plans
        plain = race_policies(state)[1] is None  # no module's cards in the hands (the Garage's)
        if plain and not (self.reads_conditions and _cools_by_place(state.rules)) and plans.in_use():
            flips = _flip_values(car)
            memo = (gear is None, key[2], car.progress, car.engine, car.gear, adrenaline, id(flips), *gears)
            hit = plans.get(memo)
            if hit is not None:
                if gear is None:
                    self._remember(tp, car, key, context, hit)
                return hit
        best = self._plan_of(state, car, tp, gear, gears, adrenaline, key[2], flips)
        if memo is not None:
            plans.put(memo, best)
        if gear is None:
            self._remember(tp, car, key, context, best)
        return best

    def _remember(self, tp: _TrackPlan, car: Car, key: tuple[Any, ...], context: tuple[Any, ...], best: Plan) -> None:
        """What step 2 will see: the planned gear, its shift's Heat paid (the Rules', # 3.2, 22.4)."""
        paid = tp.shift_table(car.progress)[car.gear][best[0]]
        self._planned[car.name] = ((*key[:4], car.engine - paid, best[0], *context), best[1])

    def _plan_of(
        self,
        state: RaceState,
        car: Car,
        tp: _TrackPlan,
        gear: int | None,
        gears: list[int],
        adrenaline: bool,
        hand_key: tuple[Any, ...],
        flips: tuple[tuple[int, float], ...] | None = None,
    ) -> Plan:
        """The best gear and play (the class's docstring, steps 1–2). ``hand_key``: ``_hand_key(car.hand)``;
        ``flips``: ``_flip_values(car)`` when the caller has it."""
        hand = car.hand
        assert hand is not None
        w = self.w
        p = car.progress
        heat_in_hand = hand[HEAT]
        stress_in_hand = hand[STRESS]
        sums: dict[int, list[tuple[int, float]]] = {}
        hand_points = _hand_points(hand_key, hand)
        planner = race_policies(state)[1]  # the module whose cards the race's hands hold (the Garage's)
        if planner is not None:
            _read_card_plans(state, planner)
        best_score = -1e18
        best: Plan = (car.gear, ())
        w_stress, w_card, w_heat_in_hand = w.stress_in_hand, w.card, w.heat_in_hand
        rules = state.rules
        # the Rules' cooldown where a typical move of each gear ends, asked for a car standing there (a sector's
        # no cooldown or extra cooling, MODULES.md 20.9, 20.10): only where a point of it reads the car's place
        probe = _stand_in(car) if self.reads_conditions and _cools_by_place(rules) else None
        own_gear, own_engine = car.gear, car.engine
        extra_cool = 1 if adrenaline else 0
        module_cards = planner is not None  # (a card with a Heat cost is a module card)
        cards_held = hand
        if len(hand) > len(_BASE_KEYS):  # a race with more cards: its hands count every token of the race (~50)
            cards_held = dict(hand_key)  # the cards held: 7 tokens, not 50, at each gear (_hand_key's pairs)
        # the module cards in hand that change a corner's limit (# 18.17)
        touching = (
            self._touching(state, car, tp, planner, cards_held)
            if planner is not None and self.reads_conditions
            else _NO_TOUCH
        )
        shifts = tp.shift_table(p)[own_gear]  # the Rules' Heat of each shift from here (# 3.2, 22.4)
        by_play = tp.by_play  # (after _touching: kept for this race's cards, Rules and conditions)
        for g in gears:
            shift = shifts[g] if gear is None else 0  # (paid at step 1)
            allowance = GEAR_COOLDOWN[g] + extra_cool  # # 7.2, 7.4
            if probe is not None:  # # 7.2; MODULES.md 20.9, 20.10: the Rules' answers where the move ends
                if not rules.unchanged.cooldown:
                    allowance = rules.cooldown(state, car, g) + extra_cool  # (where the turn starts)
                probe.progress = p + int(g * w.typical + 0.5)
                allowance = 0 if rules.cooldown_block(state, probe) else allowance + rules.cooldown_bonus(state, probe)
            cool = allowance if allowance < heat_in_hand else heat_in_hand
            engine = own_engine - shift + cool  # # 7.8: cooling first funds the corners
            row = tp.row(p, engine, g, adrenaline)
            keep = w_card * hand_points - w_heat_in_hand * (heat_in_hand - cool) - w_stress * stress_in_hand
            plays = _plays(cards_held, g, hand_key, touching)
            rows_left: dict[tuple[_TrackPlan, int], list[float | None]] | None = None  # this gear: rows by Engine
            for base, k, heat, cards, ups in plays:
                t: _TrackPlan | None = None  # the plan whose values by speed the play's flips are summed over
                if base < 0:  # # 13.2: no move, gear 1, the play (Heat too) goes to discard; # 18.26: a cluttered
                    # play's cards take no effect, so a Heat-cost card in it costs no Heat (first: ``heat`` is its
                    # cards' cost, which the Heat-cost branch below would pay for a move at Speed -1)
                    left = own_engine - shift
                    score = w.ahead * tp.next_turn(p, 1, left) + tp.engine_value(left, p) - 3.0
                    score -= w_heat_in_hand * (heat_in_hand - cards.count(HEAT))
                elif (heat and module_cards) or ups:
                    if heat and module_cards:  # # 18.10: its Heat cost, paid from the Engine (or replaced, # 18.11)
                        short = heat > engine  # # 18.11: the card would be replaced by a flip
                        t = tp
                        if ups:  # # 18.17 (by_play: checked for this race by _touching above, asked again on a miss)
                            t = by_play.get((ups, short)) or self._play_plan(state, car, tp, g, cards, ups, short)
                        score = -3.0 if short else 0.0
                        left = engine - heat if heat < engine else 0
                    else:  # # 18.17: the play's Adjust changes the corners' limits: weighed on its own plan
                        t = by_play.get((ups, False)) or self._play_plan(state, car, tp, g, cards, ups, False)
                        score = 0.0
                        left = engine
                    # the values by speed of this Engine on this plan, kept as the base plays' (``row``): a Garage
                    # hand holds many plays with a Heat cost, each valued at every flip's outcome (issue 32)
                    if t is tp and left == engine:
                        trow = row
                    else:  # (a gear's plays with a Heat cost mostly share a few Engines left: asked once each)
                        if rows_left is None:
                            rows_left = {}
                        got = rows_left.get((t, left))
                        if got is None:
                            got = rows_left[(t, left)] = t.row(p, left, g, adrenaline)
                        trow = got
                elif k == 0:
                    v = row[base] if base < ROW else None
                    if v is None:  # (value, inlined: a cold plan's row asks ~3 an event, a frame each)
                        v = tp.outcome(p, base, engine, g)
                        if adrenaline:  # # 6.2: one more space and speed, if it is better
                            v2 = tp.outcome(p, base + 1, engine, g)
                            if v2 > v:
                                v = v2
                        if base < ROW:
                            row[base] = v
                    score = v + (keep + w_stress * k - w_card * base)
                else:  # a base play with "+" flips: its value at each flip's outcome, on the plan of the race
                    t, trow, left, score = tp, row, engine, 0.0
                if t is not None:
                    if k:
                        dist = sums.get(k)
                        if dist is None:
                            if flips is None:
                                flips = _flip_values(car)
                            dist = sums[k] = _flip_sums(flips, k)
                    else:
                        dist = _NO_FLIP
                    for extra, prob in dist:
                        s = base + extra
                        v = trow[s] if s < ROW else None
                        if v is None:  # (value, inlined)
                            v = t.outcome(p, s, left, g)
                            if adrenaline:  # # 6.2
                                v2 = t.outcome(p, s + 1, left, g)
                                if v2 > v:
                                    v = v2
                            if s < ROW:
                                trow[s] = v
                        score += prob * v
                    score += keep + w_stress * k - w_card * base
                if score > best_score:
                    best_score = score
                    best = (g, cards)
        return best

    # ---- steps 4–6: react and slipstream

    def _react(self, state: RaceState, car: Car, w: Waiting | None = None) -> Event | None:
        turn = state.turn
        assert turn is not None and car.hand is not None
        cool: Event | None = None
        by_kind: dict[str, Event] = {}
        # what React offers now (the engine's one pool): the one the Waiting read, rather than another (issue 32)
        pool = w.react_pool() if w is not None and w.may_go_on and turn.car == car.name else None
        if pool is None:
            pool = react_pool(state, car, turn)
        # pool.options() in its order without building every cooldown: its cooldowns come first, the last moves the most
        cool = pool.most_cooldown()
        for u in pool.uses:
            if u.symbol == "cooldown":
                continue
            for o in u.events:
                kind = o["type"]
                if kind == "cooldown":  # (a module's use whose events are cooldowns)
                    if cool is None or o["count"] > cool["count"]:
                        cool = o
                elif kind == "adrenaline":
                    by_kind["adrenaline " + o["bonus"]] = o
                else:
                    by_kind[kind] = o
        if "adrenaline cooldown" in by_kind and car.hand[HEAT] > pool.left("cooldown"):
            return by_kind["adrenaline cooldown"]  # # 7.4: one more Heat to cool
        if cool is not None:
            return cool  # # 7.3: a Heat in the hand is a dead card; on the Engine it pays corners
        is_open: bool | None = None
        if "adrenaline move" not in by_kind and "boost" not in by_kind:
            is_open = slipstream_open(state, car)
            if not is_open:
                return None  # nothing left to weigh
        tp = self._turn_plan(state, car)
        here = self._end_value(state, tp, car, car.progress, turn.speed, car.engine)
        if "adrenaline move" in by_kind:
            q, _ = landing(state, car, car.progress + 1)
            if self._end_value(state, tp, car, q, turn.speed + 1, car.engine) > here:
                return by_kind["adrenaline move"]
        if "boost" in by_kind:  # # 7.5: 1 Heat for a flip's value, as speed and spaces
            value = 0.0
            # the boost's Heat where the car stands, the race's Rules' (# 7.5; a free boost, MODULES.md 20.11)
            cost = (state.rules.boost_cost if self.reads_conditions else base_boost_cost)(state, car)
            for v, prob in _flip_values(car):
                q, _ = landing(state, car, car.progress + v)
                value += prob * self._end_value(state, tp, car, q, turn.speed + v, car.engine - cost)
            if value > here + self.w.boost_margin:
                return by_kind["boost"]
        if is_open is None:
            is_open = slipstream_open(state, car)
        if is_open:  # # 8.1–8.5: two more spaces, not speed; corners crossed are still checked
            best: int = 0
            best_value: float = here
            totals = slipstream_totals(state, car) if self.reads_conditions else [2]
            for total in totals:  # MODULES.md 20.12: a sector bonus is optional
                q, _ = landing(state, car, car.progress + total)
                worth = self._end_value(state, tp, car, q, turn.speed, car.engine)
                if q > car.progress and worth > best_value:
                    best, best_value = total, worth
            slip: Event = {"type": "slipstream", "v": 1, "car": car.name, "taken": best > 0}
            if best > 2:
                slip["spaces"] = best
            return slip
        return None

    def _end_value(self, state: RaceState, tp: _TrackPlan, car: Car, q: int, speed: int, engine: int) -> float:
        """Value of ending this turn at ``q`` with ``speed``: every corner crossed this turn is checked at that
        speed (# 9.1, 9.2)."""
        turn = state.turn
        assert turn is not None
        start = turn.start
        end = turn.reached if turn.reached > q else q
        # a pure function of these on this track plan: most React decisions ask what another one asked before
        key = (start, end, q, speed, engine, turn.gear, car.gear)
        hit = tp.ends.get(key)
        if hit is not None:
            return hit
        w = self.w
        # (corners, engine_value and next_turn's kept path, inlined: a weather race's plans are new for each draw of
        # road conditions, so most of its React values are computed, ~0.75 an event against ~0.4; issue 32)
        lines = tp.lines
        n = len(lines)
        i = bisect_left(lines, start)
        cost = 0
        spin: int | None = None
        while i < n and lines[i] < end:  # # 9.1, 9.3: every corner line crossed this turn, at this speed
            over = speed - tp.limits[i]
            if over > 0:
                owed = tp.costs[i][over if over < COST_SPAN else COST_SPAN - 1]  # the Rules' (# 20.13, MA19)
                if cost + owed > engine:  # # 10.1: the Engine cannot pay it
                    spin = lines[i]
                    break
                cost += owed
            i += 1
        if spin is not None:
            value = (spin - start) - tp.spin - w.stress_taken * SPINOUT_STRESS[turn.gear]
        elif q > tp.final:
            value = (q - start) + w.finish
        else:
            left = engine - cost
            gear = car.gear
            best_of = tp.ahead_cache.get(q * 8 + gear)
            if best_of is None:
                best_of = tp._ahead(q, gear)
            ahead = -1e9 if left < 0 else best_of[left if left < 8 else 8]
            if left > 0:  # engine_value(left, q): the corner lines from q on
                k = n - bisect_left(lines, q)
                worth = tp.engine_table[k if k < 8 else 8][left if left < 24 else 24]
            else:
                worth = 0.0
            value = (q - start) + worth + w.ahead * ahead
        if len(tp.ends) > 200_000:
            tp.ends.clear()
        tp.ends[key] = value
        return value

    # ---- step 8: discard

    def _discard(self, state: RaceState, car: Car) -> Event | None:
        turn = state.turn
        assert turn is not None
        hand = car.hand
        assert hand is not None
        rules = state.rules  # (a point still its base function is not called: base_hand_size is HAND_SIZE, …)
        unchanged = rules.unchanged
        need = (HAND_SIZE if unchanged.hand_size else rules.hand_size(state, car)) - car.hand_size  # # 12.2, 21.8
        planner = race_policies(state)[1]
        if planner is not None:  # a module card's worth (_utility) is read of this race's card plans
            _read_card_plans(state, planner)
        draw = draw_worth(car, need)
        if draw is None:
            return None
        tp = self._track_plan(state, car)
        i = bisect_left(tp.lines, car.progress)
        tight = i < len(tp.lines) and tp.lines[i] - car.progress <= 8 and tp.limits[i] <= 3
        out: list[str] = []
        for c in (HEAT, STRESS):  # an event card may let these go (# 21.8: events 13, 17): the worst cards first
            if hand[c] and rules.can_discard(state, car, c):
                out += [c] * hand[c]
        kept_low = False
        for c in _LOW:
            for _ in range(hand[c]):
                if 0 < VALUE[c] <= 2 and tight and not kept_low:
                    kept_low = True  # a low card for the tight corner ahead
                    continue
                if UTILITY[c] < draw - self.w.discard_margin and rules.can_discard(state, car, c):
                    out.append(c)
        if not hand.keys() <= UTILITY.keys():  # Garage upgrades worth less than a draw (# 11.1: they may be discarded)
            for c, n in filter(_COUNT, hand.items()):  # (the cards held, in the hand's order)
                if c not in UTILITY and _utility(c) < draw - self.w.discard_margin:
                    out.extend([c] * n)
        limit = None if unchanged.discard_limit else rules.discard_limit(state, car)  # # 21.8: event 15 caps it
        if limit is not None:
            out = out[:limit]
        if not out:
            return None
        return {"type": "cards_discarded", "v": 1, "car": car.name, "cards": out}


heuristic_bot = HeuristicBot()


# ------------------------------------------------------------------------------------------------ search


def _seed(*parts: object) -> int:
    """A 64-bit seed from its parts (SHA-256: the same on every machine and in every process)."""
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")


def determinize(state: RaceState, me: str, rng: random.Random) -> RaceState:
    """A full-information world drawn from what ``me`` knows of ``state`` at steps 1–2, for a bot's search.

    Its own hand is kept and its deck (as a multiset: deck ∪ hand is public, # 1.7) is shuffled; every other
    car's hand and deck are dealt again from its pool (deck ∪ hand, public bookkeeping) in a random order, its
    hand size kept. The other cars' gears chosen earlier this round (hidden at the table, # 2.1) are taken
    back, their shift's Heat returned to the Engine (# 3.2), and they choose again in the world. An
    approximation of the car's information set: past reveals and discards are not conditioned on
    (:mod:`heatlog.analysis.infoset` is the exact one, from a log; a bot has only the state)."""
    w = state.copy()
    for name in sorted(w.cars):
        car = w.cars[name]
        if car.hand is None or car.deck is None:  # (a Legend has neither, # 19.1)
            continue
        if name == me:
            deck = sorted(car.deck)
            rng.shuffle(deck)
            car.deck = deck
            continue
        cards = sorted(expand(car.pool))
        rng.shuffle(cards)
        n = car.hand_size
        car.hand = counts(cards[:n], tuple(car.hand))
        car.deck = cards[n:]
    if w.turn is None and w.step == GEARS:
        back = [n for n in w.shifts if n != me]
        for name in back:
            before, paid = w.shifts.pop(name)
            car = w.cars[name]
            if paid:  # the Heat the shift paid: the race's Rules' (# 3.2, 22.4), as the turn counts it
                cost = w.rules.shift_cost(w, car, before, car.gear)
                car.engine += cost
                del car.discard[len(car.discard) - cost :]
            car.gear = before
        if back:
            w.pending = [n for n in w.order if n in back or n in w.pending]
    return w


class SearchBot:
    """The heuristic's candidate plans, judged by playing the race on in worlds drawn from what the car knows.

    At step 1 (gear and cards, planned together as the heuristic plans them) the candidates are the
    heuristic's best play for each legal gear, its own choice first. Each is played on in ``worlds``
    determinized worlds (:func:`determinize`), with the heuristic driving every car after it (the rollout
    policy) and common random numbers: every candidate meets the same worlds and the same shuffles. By
    default (``horizon=2``) the play-out stops after this round and the next, and the car's position is
    valued as the heuristic values one (:meth:`position_value`, in spaces: progress, the Heat on the Engine,
    the next turn from there, the Stress a spinout added); with ``horizon=None`` the race is played to the
    end and valued by the car's score, (cars − place) / (cars − 1). A candidate is chosen over the
    heuristic's own plan only when its mean value is higher by more than ``margin`` (0.5 spaces by default):
    within the noise of a few worlds the heuristic's plan stands. Step 2 plays the cards so chosen; every
    other decision (React, slipstream, discard) is the heuristic's.

    Deterministic: the worlds' seeds are SHA-256 hashes of one number drawn from the bot's ``rng`` and the
    world's index; the heuristic's caches change no decision. Open base races (with Legends, weather,
    championships); a Garage race or a table-mode state is left to the heuristic. Measured against the
    heuristic and random cars in ``bench/bench_bots.py`` (docs/analysis.md, "A stronger bot").
    """

    name = "search"

    def __init__(
        self, worlds: int = 8, margin: float = 0.5, base: HeuristicBot | None = None, horizon: int | None = 2
    ) -> None:
        self.worlds = worlds
        self.horizon = horizon
        self.margin = margin
        self.base = base if base is not None else heuristic_bot
        # the cards chosen with the gear at step 1, by car, for step 2: per thread (a Dask worker, or the review's
        # evaluator, plays several races at once in threads of one process with this one bot)
        self._local = threading.local()

    @property
    def _chosen(self) -> dict[str, tuple[tuple[Any, ...], tuple[str, ...]]]:
        local = self._local
        try:
            return local.chosen
        except AttributeError:
            local.chosen = {}
            return local.chosen

    def __call__(self, state: RaceState, name: str, options: Sequence[Event], rng: random.Random) -> Event | None:
        w = _waiting(state, options)
        car = state.cars[name]
        if (
            all(p.searched for p in race_policies(state)[0])  # (the Garage's: left to the heuristic)
            and state.mode == "open"
            and state.turn is None
            and name in w.cars
            and car.hand is not None  # (a Legend has none, # 19.1)
        ):
            if w.step == GEARS:
                gear, cards = self.plan(state, name, rng)
                key = (state.round, _hand_key(car.hand), car.progress, gear)
                self._chosen[name] = (key, cards)
                return {"type": "gear_chosen", "v": 1, "car": name, "gear": gear}
            if w.step == PLAY:
                chosen = self._chosen.pop(name, None)
                if chosen is not None and chosen[0] == (state.round, _hand_key(car.hand), car.progress, car.gear):
                    return {"type": "cards_played", "v": 1, "car": name, "cards": list(chosen[1])}
        return self.base(state, name, options, rng)

    def candidates(self, state: RaceState, name: str) -> list[Plan]:
        """The heuristic's plan first, then its best play for each other legal gear."""
        car = state.cars[name]
        assert car.hand is not None
        base = self.base
        first = base._plan(state, car)
        tp = base._track_plan(state)
        adrenaline = name in state.adrenaline
        hand_key = _hand_key(car.hand)
        out = [first]
        for g in legal_gears(state, car):
            plan = base._plan_of(state, car, tp, None, [g], adrenaline, hand_key)
            if plan not in out:
                out.append(plan)
        return out

    def scores(self, state: RaceState, name: str, plans: Sequence[Plan], seed: int) -> list[float]:
        """Each plan's mean score over the same ``worlds`` worlds (common random numbers)."""
        from ..engine.game import apply_decision, play_out  # (the game API: imported where it is used)

        base = self.base
        n = len(state.cars) - 1 or 1
        total = [0.0] * len(plans)
        r = state.round
        for i in range(self.worlds):
            world = determinize(state, name, random.Random(_seed(seed, i, "world")))
            for k, (gear, cards) in enumerate(plans):
                wk = world.copy()
                apply_decision(wk, {"type": "gear_chosen", "v": 1, "car": name, "gear": gear})
                play = {"type": "cards_played", "v": 1, "car": name, "cards": list(cards)}

                def decide(s: RaceState, who: str, play: Event = play) -> Event | None:
                    if who == name and s.turn is None and s.step == PLAY and s.round == r:
                        return play
                    return base(s, who, Options(s, who), _NO_RNG)

                if self.horizon is None:
                    play_out(wk, decide, random.Random(_seed(seed, i, "play")))
                    place = wk.standings().index(name) + 1
                    total[k] += (len(state.cars) - place) / n
                else:
                    play_out(wk, decide, random.Random(_seed(seed, i, "play")), max_rounds=r + self.horizon - 1)
                    total[k] += self.position_value(wk, name, r + self.horizon)
        return [t / self.worlds for t in total]

    def position_value(self, state: RaceState, name: str, at_round: int) -> float:
        """The heuristic's value of where a car stands at the start of round ``at_round``, in spaces: its
        progress, the Heat on its Engine (``engine_value``), the next turn it can make from there in its gear
        (the look-ahead) and the Stress its spinouts put in its cards (# 10.3); a finish counts the line, the
        heuristic's finish bonus and a round's worth of spaces (``TYPICAL_ROUND``) for each round it was early."""
        car = state.cars[name]
        tp = self.base._track_plan(state)
        w = self.base.w
        done = state.finish_rounds.get(name)
        if done is not None:
            return tp.final + w.finish + TYPICAL_ROUND * (at_round - 1 - done)
        p = car.progress
        value = p + tp.engine_value(car.engine, p) + w.ahead * tp.next_turn(p, car.gear, car.engine)
        return value - w.stress_taken * car.pool.get(STRESS, 0)

    def plan(self, state: RaceState, name: str, rng: random.Random) -> Plan:
        """The gear and cards of this round: the best candidate by :meth:`scores`."""
        plans = self.candidates(state, name)
        if len(plans) == 1:
            return plans[0]
        seed = rng.getrandbits(64)
        try:
            values = self.scores(state, name, plans, seed)
        except HeatlogError:  # a world the engine refuses (a module's corner case): the heuristic's plan
            return plans[0]
        best = 0
        for k in range(1, len(plans)):
            if values[k] > values[best] + (self.margin if best == 0 else 0.0):
                best = k
        return plans[best]


TYPICAL_ROUND = 10.0  # spaces a car makes in a round, about (a finish earlier by a round is worth this)
_NO_RNG = random.Random(0)  # the heuristic draws nothing: its generator is never read

search_bot = SearchBot()

BOTS: dict[str, Bot] = {"random": random_bot, "heuristic": heuristic_bot, "search": search_bot}


# The review's search evaluator (heatlog/bots/search.py): a search bot named with the last round it searches.
_NAME = re.compile(r"search@([0-9]{1,4})")


class SearchUntil:
    """:class:`SearchBot`'s decisions while the race's round is at most ``last``; the heuristic's after (and at
    every step the search leaves to it: React, slipstream, discards, a Garage race)."""

    def __init__(self, last: int, search: SearchBot | None = None) -> None:
        self.last = last
        self.search = search if search is not None else SearchBot()
        self.name = f"search@{last}"

    def __call__(self, state: RaceState, name: str, options: Sequence[Event], rng: random.Random) -> Event | None:
        if state.round <= self.last:
            return self.search(state, name, options, rng)
        return heuristic_bot(state, name, options, rng)

    def __repr__(self) -> str:
        return f"SearchUntil({self.last})"


@lru_cache(maxsize=64)
def _until(last: int) -> SearchUntil:
    return SearchUntil(last)


def search_until(name: str) -> SearchUntil | None:
    """The bot a name ``search@N`` stands for (one per process and ``N``), or None for any other name."""
    m = _NAME.fullmatch(name)
    return _until(int(m.group(1))) if m is not None else None


def get_bot(name: str) -> Bot:
    """The bot called ``name`` (random, heuristic, search; ``search@N``: search up to round N, then the heuristic,
    the review's search evaluator, :mod:`heatlog.bots.search`)."""
    try:
        return BOTS[name]
    except KeyError:
        bot = search_until(name)  # (the review's evaluator: a name that carries its last round)
        if bot is not None:
            return bot
        raise MalformedInput(f"unknown bot {name!r} (choose {', '.join(BOTS)})") from None
