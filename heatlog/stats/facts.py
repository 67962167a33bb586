"""Per-turn facts of a race, read off the engine's own turn records while its log is folded once.

Nothing here applies a rule: every number is a field of the engine's :class:`~heatlog.engine.Turn` (what the
turn did: gear, cards, speed, corners, boost, cooldown, spinout, draws) or a question the engine answers
(whether slipstream was open, the standings at the end of a round). See docs/stats.md for each column.

The facts are derived: they are rebuilt from the log whenever they are wanted (or read from the ``turns`` cache
table while it matches the log, :mod:`heatlog.stats.derived`), and nothing that decides what is legal or true
(the door, the audit) ever reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from ..engine import HeatlogError, MalformedInput, RaceState, Turn, apply
from ..engine.cards import STRESS
from ..engine.decide import waits_at_steps_5_6
from ..engine.module import MODULES, FactColumn
from ..engine.modules.circuits import flooded_surcharge
from ..engine.rules import slipstream_block

Event = dict[str, Any]


class HeatTotals:
    """Heat paid and cooled as the sums of their parts: one definition for a turn (:class:`TurnFacts`) and a
    tally of turns (``summary.Tally``), whose fields they read."""

    __slots__ = ()
    heat_shift: int
    heat_flooded: int
    heat_boost: int
    heat_corners: int
    heat_upgrades: int
    cooled_gear: int
    cooled_adrenaline: int
    cooled_upgrades: int

    @property
    def heat_paid(self) -> int:
        return self.heat_shift + self.heat_flooded + self.heat_boost + self.heat_corners + self.heat_upgrades

    @property
    def heat_cooled(self) -> int:
        return self.cooled_gear + self.cooled_adrenaline + self.cooled_upgrades


class _TurnRecord(NamedTuple):
    """The fields of :class:`TurnFacts`, in the order of the columns (a tuple: see there)."""

    race: int
    round: int
    turn: int  # place in the round's turn order (1 = first to move, # 2.2)
    car: str
    gear: int  # gear in force this turn (# A10)
    from_gear: int  # gear before step 1
    played: str  # the cards revealed, canonical order of the play ("4 3 S")
    cluttered: bool  # a cluttered hand (# 13): no move
    speed: int  # the turn's final speed: cards, Stress flips, boost, adrenaline (the speed corners see, # 9.3)
    start: int  # progress at the start of the turn
    end: int  # progress at the end of the turn (after a spinout: where the car was put back)
    moved: int  # spaces moved at step 3 (less than the cards' speed when blocked, # 5.5)
    heat_shift: int  # Heat paid for a two-gear shift (# 3.2); a flooded downshift's surcharge is heat_flooded
    heat_boost: int  # Heat paid for a boost (# 7.5)
    heat_corners: int  # Heat paid at corners (all that was left when spinning out, # 10.1)
    cooled_gear: int  # Heat cooled by the gear's cooldown (# 7.2)
    cooled_adrenaline: int  # Heat cooled by the adrenaline cooldown (# 6.2, 7.4)
    stress_played: int  # Stress cards among the played cards (# 5.2)
    stress_drawn: int | None  # Stress cards drawn at step 9 (None in table mode: draws are hidden, # 1.7)
    spinout: bool
    spinout_stress: int  # Stress taken at the spinout (# 10.3)
    boosted: bool
    boost_card: str | None  # the Basic card the boost found (None: none, or nothing to find, # A8)
    boost_value: int  # speed the boost added (0 without a boost)
    adrenaline: bool  # the car held adrenaline this round (# 6.1)
    adrenaline_move: bool  # took the +1 move (# 6.2)
    slipstream_offered: bool  # slipstream was open to the car when its step 6 closed (# 8.1)
    slipstream_taken: bool
    corners: int  # corner lines crossed and checked this turn
    corners_over: int  # of those, crossed above the limit (Heat owed, # 9.3)
    discarded: str  # cards discarded at step 8
    drawn: int  # cards drawn at step 9
    engine: int  # Heat left on the Engine after the turn
    lap: int  # laps completed after the turn
    finished: bool  # crossed the finish line this turn (# 16.1)
    place: int | None  # standing at the end of the round (None while the round is under way)
    led: bool  # first at the end of the round
    # the modules' columns (``Module.turn_columns``, declared and documented in their folders; values from their
    # ``turn_facts``): each must be a field here, after ``led``, in registry order (checked below, at import)
    heat_upgrades: int = 0  # the Garage's
    uses: str = ""  # the Garage's
    cooled_upgrades: int = 0  # the Garage's
    adrenaline_spaces: int = 0  # spaces the adrenaline +1 move added (# 6.2; 0 when blocked or not taken)
    slipstream_spaces: int = 0  # spaces slipstream moved the car (# 8.1; a sector's bonus included, MODULES.md 20.12)
    heat_flooded: int = 0  # Heat paid for shifting down from a flooded space (# 22.4; 0 elsewhere)


class TurnFacts(_TurnRecord, HeatTotals):
    """One car's turn (steps 3–9 of one round) as numbers. Columns of the derived ``turns`` table.

    A tuple of the columns, in :data:`TURN_COLUMNS` order, with a name for each (a ``NamedTuple``): it is made
    once, when its round closes (:class:`FactCollector`), and is then the row as every table wants it — the
    ``turns`` table's ``INSERT``, the ``derived`` table's JSON array, a corpus's columns (``zip(*turns)``, in C) —
    with nothing read again field by field (issue 31: the per-turn record was read three times)."""

    __slots__ = ()

    def row(self) -> dict[str, Any]:
        return dict(zip(TURN_COLUMNS, self, strict=True))


TURN_COLUMNS: tuple[str, ...] = _TurnRecord._fields
#: Each column's declared type, as written in :class:`TurnFacts` (``"int"``, ``"str"``, ``"bool"``, ``"int | None"``
#: …): the ``turns`` table's SQL types and a corpus's Arrow types are read off it.
TURN_FIELD_TYPES: dict[str, str] = {
    name: str(getattr(tp, "__forward_arg__", tp)) for name, tp in _TurnRecord.__annotations__.items()
}
#: Where a column sits in a :class:`TurnFacts` (the tuple's index of each name).
TURN_INDEX: dict[str, int] = {name: i for i, name in enumerate(TURN_COLUMNS)}
_CAR, _PLACE, _LED = TURN_INDEX["car"], TURN_INDEX["place"], TURN_INDEX["led"]


def _module_turn_columns() -> tuple[FactColumn, ...]:
    """Every registered module's turn columns, in registry order; checked against :class:`TurnFacts`: right after
    ``led``, of the declared type and default (a module that declares a column TurnFacts lacks is refused here)."""
    declared = tuple(c for m in MODULES.values() for c in m.turn_columns)
    at = TURN_COLUMNS.index("led") + 1
    kinds = {"int": "int", "str": "str", "bool": "bool"}
    defaults = _TurnRecord._field_defaults
    here = TURN_COLUMNS[at : at + len(declared)]
    if here != tuple(c.name for c in declared) or any(
        TURN_FIELD_TYPES[c.name] != kinds.get(c.type) or c.name not in defaults or defaults[c.name] != c.default
        for c in declared
    ):
        raise TypeError(f"the modules' turn columns {[c.name for c in declared]} are not TurnFacts' fields after led")
    return declared


MODULE_TURN_COLUMNS: tuple[FactColumn, ...] = _module_turn_columns()
_NO_MODULE_FACTS: tuple[Any, ...] = tuple(c.default for c in MODULE_TURN_COLUMNS)


def module_turn_facts(state: RaceState) -> Callable[[Turn], tuple[Any, ...]]:
    """How a turn of this race gets the modules' turn columns (:data:`MODULE_TURN_COLUMNS`' order): each module
    the race plays answers with its ``turn_facts``, the others' columns hold their defaults. Asked once per race."""
    playing = set(state.rules.modules)
    parts: list[Callable[[Turn], tuple[Any, ...]] | tuple[Any, ...]] = []
    for m in MODULES.values():
        if not m.turn_columns:
            continue
        hook = m.turn_facts if m.name in playing else None
        parts.append(hook if hook is not None else tuple(c.default for c in m.turn_columns))
    if all(isinstance(p, tuple) for p in parts):
        return _no_module_facts
    if len(parts) == 1:
        only = parts[0]
        assert not isinstance(only, tuple)
        return only

    def every(turn: Turn) -> tuple[Any, ...]:
        return tuple(v for p in parts for v in (p if isinstance(p, tuple) else p(turn)))

    return every


def _no_module_facts(turn: Turn) -> tuple[Any, ...]:
    """A race that plays no module with turn columns: their defaults (:func:`turn_values` does not call it)."""
    return _NO_MODULE_FACTS


@dataclass(slots=True)
class CarInfo:
    name: str
    colour: str
    place: int  # finishing place (# 16.8), or the standing now if the race is still under way
    finished: bool
    finish_round: int | None
    legend: bool = False  # a Legend (# 19.1): no Engine, hand or gear; the figures of those do not apply to it


@dataclass(slots=True)
class RaceFacts:
    """A race's turns as facts, with what the per-race statistics need besides them."""

    race: int
    name: str | None
    track: str
    mode: str
    laps: int
    over: bool  # every car has finished
    rounds: int  # rounds played (the last one possibly under way)
    cars: list[CarInfo]  # in finishing order (standings now, if the race is under way)
    turns: list[TurnFacts] = field(default_factory=list)
    track_name: str = ""  # the track's name, as other views show it (``track`` is its id, the key)

    def summary(self) -> dict[str, Any]:
        """Everything but the turns (the ``derived`` table's ``race`` column)."""
        return {
            "race": self.race,
            "name": self.name,
            "track": self.track,
            "track_name": self.track_name,
            "mode": self.mode,
            "laps": self.laps,
            "over": self.over,
            "rounds": self.rounds,
            "cars": [asdict(c) for c in self.cars],
        }

    @classmethod
    def from_summary(cls, data: dict[str, Any], turns: list[TurnFacts]) -> RaceFacts:
        cars = [CarInfo(**c) for c in data["cars"]]
        keys = ("race", "name", "track", "track_name", "mode", "laps", "over", "rounds")  # a row without one: rebuilt
        return cls(**{k: data[k] for k in keys}, cars=cars, turns=turns)

    @property
    def finishing_order(self) -> list[str]:
        return [c.name for c in self.cars]


def turn_facts(
    state: RaceState,
    turn: Turn,
    index: int,
    race: int,
    *,
    offered: bool,
    modules: Callable[[Turn], tuple[Any, ...]] | None = None,
) -> TurnFacts:
    """The facts of a completed ``turn``, read off its record (``state``: right after it ended), its round still
    under way (``place`` None, ``led`` False). ``modules``: the race's :func:`module_turn_facts` (worked out here
    when not given)."""
    return _FACTS(turn_values(state, turn, index, race, offered=offered, modules=modules))


_FACTS: Callable[[Iterable[Any]], TurnFacts] = TurnFacts._make


def turn_values(
    state: RaceState,
    turn: Turn,
    index: int,
    race: int,
    *,
    offered: bool,
    modules: Callable[[Turn], tuple[Any, ...]] | None = None,
) -> list[Any]:
    """:func:`turn_facts`' values, in :data:`TURN_COLUMNS` order, as a list: :class:`FactCollector` fills in
    ``place`` and ``led`` when the round closes, then makes the :class:`TurnFacts` (a tuple) of it."""
    cooled_adrenaline = turn.used.get("cooldown:adrenaline", 0)  # the React pool's record, by source
    happenings = turn.happenings
    boost_value = sum(h[2] for h in happenings if h[0] == "boost") if happenings else 0  # what the boost's flip found
    hidden_draws = turn.drawn > 0 and not turn.drawn_cards
    if modules is None:
        modules = module_turn_facts(state)
    # the modules' columns (Module.turn_facts; a race of none: their defaults, without a call)
    module_facts = _NO_MODULE_FACTS if modules is _no_module_facts else modules(turn)
    flooded = turn.shift_heat and flooded_surcharge(state.track, turn.start, turn.from_gear, turn.gear)  # # 22.4
    corners = turn.corners
    paid = over = 0
    for c in corners:  # (one loop, no generator: ~70 turns a race, most with no corner or one, issue 31)
        paid += c.paid
        over += c.cost > 0
    # a list display, in the order of the columns (TURN_COLUMNS; tests/test_stats.py checks it: each line names
    # its column)
    return [
        race,  # race
        turn.round,  # round
        index,  # turn
        turn.car,  # car
        turn.gear,  # gear
        turn.from_gear,  # from_gear
        " ".join(turn.played),  # played
        turn.cluttered,  # cluttered
        turn.speed,  # speed
        turn.start,  # start
        turn.end,  # end
        turn.moved,  # moved
        turn.shift_heat - flooded,  # heat_shift
        1 if turn.boosted and not turn.boost_free else 0,  # heat_boost: # 20.11: a free boost pays none
        paid,  # heat_corners
        turn.cooled - cooled_adrenaline,  # cooled_gear
        cooled_adrenaline,  # cooled_adrenaline
        turn.played.count(STRESS),  # stress_played
        None if hidden_draws else turn.drawn_cards.count(STRESS),  # stress_drawn
        turn.spinout,  # spinout
        turn.spinout_stress,  # spinout_stress
        turn.boosted,  # boosted
        turn.boost_card if turn.boosted else None,  # boost_card
        boost_value,  # boost_value
        turn.adrenaline,  # adrenaline
        turn.adrenaline_move,  # adrenaline_move
        offered or bool(turn.slipstream),  # slipstream_offered
        bool(turn.slipstream),  # slipstream_taken
        len(corners),  # corners
        over,  # corners_over
        " ".join(turn.discarded),  # discarded
        turn.drawn,  # drawn
        state.cars[turn.car].engine,  # engine
        turn.laps_after,  # lap
        turn.finished,  # finished
        None,  # place
        False,  # led
        *module_facts,  # MODULE_TURN_COLUMNS: the modules' columns
        turn.adrenaline_moved,  # adrenaline_spaces
        turn.slipstream_moved,  # slipstream_spaces
        flooded,  # heat_flooded
    ]


class FactCollector:
    """Fold a race's events one at a time and collect the facts of every completed turn.

    Feed it with :meth:`apply` (or watch a fold already under way with :meth:`observe_before` /
    :meth:`observe_after`); :meth:`result` gives the :class:`RaceFacts`.
    """

    def __init__(self, race: int = 0, name: str | None = None) -> None:
        self.race = race
        self.name = name
        self.state: RaceState | None = None
        self.turns: list[TurnFacts] = []  # the turns of the rounds closed
        self._open: list[list[Any]] = []  # the round under way's turns (turn_values), made TurnFacts at its close
        self._round_list: list[Turn] | None = None
        self._seen = 0
        self._offered: dict[int, bool] = {}
        self._modules: Callable[[Turn], tuple[Any, ...]] | None = None  # module_turn_facts of the race, once

    def apply(self, event: Event) -> None:
        self.observe_before(self.state)
        try:
            self.state = apply(self.state, event, atomic=False)
        except HeatlogError as err:
            raise err.located(race=self.race) from None
        self.observe_after(self.state)

    def observe_before(self, state: RaceState | None) -> None:
        """Before an event: note whether slipstream is open to the car whose steps 5–6 are open. The last such
        note before its step 6 closes is what it was offered (# 8.1); the engine answers, not this code."""
        turn = state.turn if state is not None else None
        if turn is None or turn.slipstream is not None:
            return
        assert state is not None
        if waits_at_steps_5_6(state):  # (waiting_for's step and flip, without building it: issue 31)
            # decide.slipstream_open's answer: its other checks (the car's turn, steps 5-6, no flip) hold here
            self._offered[id(turn)] = slipstream_block(state, state.cars[turn.car], turn) is None

    def observe(self, state: RaceState) -> None:
        """:meth:`observe_after` then :meth:`observe_before` of the same state, in one call: the ``watch`` of a fold
        under way, which sees each state once (its checks inline: a race's ~400 events pay for two calls less each,
        issue 31)."""
        self.state = state
        turns = state.turns
        if turns is not self._round_list or len(turns) > self._seen:
            self.observe_after(state)
        turn = state.turn
        if turn is None or turn.slipstream is not None:
            return
        if waits_at_steps_5_6(state):  # (as observe_before)
            self._offered[id(turn)] = slipstream_block(state, state.cars[turn.car], turn) is None

    def observe_after(self, state: RaceState) -> None:
        if state.turns is not self._round_list:
            if self._round_list is not None:
                self._take(state, self._round_list)
                self._close_round(state)
            self._round_list = state.turns
            self._seen = 0
        if len(state.turns) > self._seen:
            self._take(state, state.turns)

    def _take(self, state: RaceState, turns: list[Turn]) -> None:
        modules = self._modules
        if modules is None:
            modules = self._modules = module_turn_facts(state)
        race, offered, out = self.race, self._offered, self._open
        for i in range(self._seen, len(turns)):
            t = turns[i]
            out.append(turn_values(state, t, i + 1, race, offered=offered.pop(id(t), False), modules=modules))
        self._seen = len(turns)

    def _close_round(self, state: RaceState) -> None:
        """The round's standings into its turns (``place``, ``led``), which become :class:`TurnFacts`."""
        places = {name: i for i, name in enumerate(state.standings(), start=1)}
        rows = self._open
        for row in rows:
            place = row[_PLACE] = places[row[_CAR]]
            row[_LED] = place == 1
        self.turns.extend(map(_FACTS, rows))
        self._open = []

    def result(self) -> RaceFacts:
        state = self.state
        if state is None:
            raise MalformedInput("the race has no events", race=self.race)
        if state.phase == "over" and self._round_list is not None:
            self._close_round(state)
            self._round_list = None
        standings = state.standings()
        cars = [
            CarInfo(
                name=n,
                colour=state.cars[n].colour,
                place=i,
                finished=n in state.hall_of_fame,
                finish_round=state.finish_rounds.get(n),
                legend=state.cars[n].legend,
            )
            for i, n in enumerate(standings, start=1)
        ]
        return RaceFacts(
            race=self.race,
            name=self.name,
            track=state.track.id,
            track_name=state.track.name,
            mode=state.mode,
            laps=state.laps,
            over=state.phase == "over",
            rounds=state.round,
            cars=cars,
            turns=self.turns + list(map(_FACTS, self._open)) if self._open else self.turns,  # (a round under way)
        )


def collect(events: Iterable[Event], *, race: int = 0, name: str | None = None) -> RaceFacts:
    """Fold an effective log (retractions applied) once and return its facts."""
    fc = FactCollector(race, name)
    for ev in events:
        fc.apply(ev)
    return fc.result()


def race_facts(log: Any, race: int) -> RaceFacts:
    """The facts of ``race`` of a :class:`heatlog.log.racelog.RaceLog`, folded from its log."""
    entries = log.effective(race).entries
    return collect((e.event for e in entries), race=race, name=log.store.race(race).name)
