"""Race state: mutable, cheap to copy, convertible to and from a position (# positions in docs/design.md).

The engine mutates a ``RaceState`` in place (fast replay) and takes a copy only where an event might fail
after a partial change, so a rejected event never leaves a trace.
"""

from __future__ import annotations

from dataclasses import field, fields
from operator import attrgetter
from typing import Any

from .cards import BASE_CATALOGUE, CARDS, Catalogue, engine_heat
from .cards import Counts as Counts  # (the multisets live with the cards; named here as before)
from .cards import counts as counts
from .cards import expand as expand
from .module import copy_slot, copy_turn_records
from .react import Happening
from .ruleset import BASE_RULES, Rules
from .steps import DONE, REVEAL, SETUP
from .track import Track
from .written import FACTORY, record


@record(slots=True)
class Car:
    name: str
    colour: str
    handicap: bool = False
    progress: int = 0  # absolute progress along the race (docs/design.md); grid spots are <= 0
    lane: int = 1
    gear: int = 1
    # deck ∪ hand as an exact multiset: every card entering or leaving it is public (# 1.7).
    pool: Counts = field(default_factory=lambda: dict.fromkeys(CARDS, 0))
    hand: Counts | None = None  # known hand (open mode) or None (table mode: hidden, # 1.7)
    hand_size: int = 0
    deck: list[str] | None = None  # known order, top of deck LAST (list.pop() draws); None = unknown
    deck_size: int = 0
    discard: list[str] = field(default_factory=list)  # bottom first; every card in it was public
    engine: int = 6
    play_area: list[str] = field(default_factory=list)
    committed: list[str] | None = None  # open mode: cards played face down at step 2, revealed at step 3
    stress_taken: int = 0
    needs_shuffle: bool = False  # set-up: the 18-card deck has not been shuffled yet (# 1.2)
    # Table mode: what the deck can at most hold. Exact after a reshuffle (the discard pile was public, # 1.7),
    # then only shrinks as cards are flipped; draws by count leave it as it is. None when the hand is known.
    deck_max: Counts | None = None
    # The cards the table knows to lie on top of the draw deck, top last: a Refresh put them back there (# 18.21,
    # MA15). Public, so kept in every mode (a table-mode projection keeps it): a draw or a flip takes them first,
    # a shuffle of the deck forgets them. A tuple: never changed in place, so a copy shares it.
    deck_top: tuple[str, ...] = ()
    finished: bool = False
    legend: bool = False  # a Legend car (# 19.1): no deck, hand, Engine or gear; moved by the Legend card

    def __init__(
        self,
        name: str,
        colour: str,
        handicap: bool = False,
        progress: int = 0,
        lane: int = 1,
        gear: int = 1,
        pool: Counts = FACTORY,
        hand: Counts | None = None,
        hand_size: int = 0,
        deck: list[str] | None = None,
        deck_size: int = 0,
        discard: list[str] = FACTORY,
        engine: int = 6,
        play_area: list[str] = FACTORY,
        committed: list[str] | None = None,
        stress_taken: int = 0,
        needs_shuffle: bool = False,
        deck_max: Counts | None = None,
        deck_top: tuple[str, ...] = (),
        finished: bool = False,
        legend: bool = False,
    ) -> None:
        self.name = name
        self.colour = colour
        self.handicap = handicap
        self.progress = progress
        self.lane = lane
        self.gear = gear
        self.pool = dict.fromkeys(CARDS, 0) if pool is FACTORY else pool
        self.hand = hand
        self.hand_size = hand_size
        self.deck = deck
        self.deck_size = deck_size
        self.discard = [] if discard is FACTORY else discard
        self.engine = engine
        self.play_area = [] if play_area is FACTORY else play_area
        self.committed = committed
        self.stress_taken = stress_taken
        self.needs_shuffle = needs_shuffle
        self.deck_max = deck_max
        self.deck_top = deck_top
        self.finished = finished
        self.legend = legend

    def deck_bound(self, card: str) -> int:
        """How many ``card`` the deck can hold at most: the one joint deduction (knowledge.py, # 1.7)."""
        from .knowledge import Knowledge  # local: knowledge reads Car

        return Knowledge.of(self).deck_max(card)

    def forced_in_hand(self, card: str) -> int:
        """How many ``card`` must be in the hand (knowledge.py)."""
        from .knowledge import Knowledge

        return Knowledge.of(self).hand_min(card)

    def deck_counts(self) -> Counts | None:
        """The deck as a multiset when the hand is known (open mode)."""
        hand = self.hand
        if hand is None:
            return None
        return {c: n - hand[c] for c, n in self.pool.items()}


class _SharedEmpty:
    """What the shared empty defaults of a Turn have in common: a change raises (it would change the default of
    every turn), and they are hashed, copied and deep-copied as themselves (a dataclass takes a hashable default)."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        kind = "list" if isinstance(self, list) else "dict"
        raise TypeError(f"a Turn's empty default {kind} is shared: assign a new {kind} instead of changing it")

    def __hash__(self) -> int:
        return 0

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self


class _Unfilled(_SharedEmpty, list):  # type: ignore[misc]  # (list has __hash__ = None; these are immutable)
    """An empty list that refuses to grow: the one shared default of a Turn's lists that most turns never fill
    (the cards played and discarded, which are set whole, the corner checks, and a module record's lists: the
    championship's). A turn is made for every car's turn, and eight lists fewer to make and free is a few per cent
    of a replay. It equals ``[]``, is a ``list`` (JSON, schemas, ``isinstance``) and is copied, deep-copied and
    pickled as itself; code that fills such a list assigns a new one (``turn.owed = [*turn.owed, kind]``); an append
    raises instead of changing the default of every turn."""

    __slots__ = ()
    _refuse = _SharedEmpty._refuse
    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return _no_cards, ()


class _NoUses(_SharedEmpty, dict):  # type: ignore[misc]
    """The empty dict that refuses to grow: the shared default of ``Turn.used`` (most turns use no counted React
    use). Like :class:`_Unfilled`: equal to ``{}``, a ``dict``, copied and pickled as itself; code that counts a
    use assigns a new dict first."""

    __slots__ = ()
    _refuse = _SharedEmpty._refuse
    __setitem__ = __delitem__ = __ior__ = update = setdefault = pop = popitem = clear = _refuse

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return _no_uses, ()


def _no_cards() -> list[Any]:
    return NO_CARDS


def _no_uses() -> dict[str, int]:
    return NO_USES


NO_CARDS: list[Any] = _Unfilled()  # the shared empty default of a Turn's rarely filled lists
NO_USES: dict[str, int] = _NoUses()  # the shared empty default of Turn.used
NO_RECORDS: dict[str, Any] = _NoUses()  # the shared empty default of Turn.modules (pickled as NO_USES: as empty)


@record(slots=True)
class CornerCheck:
    line: int  # absolute progress of the corner line
    after_space: int
    limit: int
    speed: int
    cost: int
    paid: int
    spinout: bool

    def __init__(
        self,
        line: int,
        after_space: int,
        limit: int,
        speed: int,
        cost: int,
        paid: int,
        spinout: bool,
    ) -> None:
        self.line = line
        self.after_space = after_space
        self.limit = limit
        self.speed = speed
        self.cost = cost
        self.paid = paid
        self.spinout = spinout


@record(slots=True)
class Turn:
    """What happens in one car's steps 3–9; also the record the views narrate."""

    car: str
    round: int
    gear: int  # gear in force this turn (after step 1; # A10)
    from_gear: int
    shift_heat: int = 0
    start: int = 0  # progress at the start of the turn
    reached: int = 0  # furthest progress reached this turn (corners crossed, # A6)
    sub: int = REVEAL  # the turn's step (Step number): 3 reveal, 5 react, 6 slipstream, 8 discard, 9 refill, 10 over
    played: list[str] = NO_CARDS
    cluttered: bool = False
    speed: int = 0
    stress_left: int = 0  # Stress still to resolve (# 5.2)
    flipping: str | None = None  # "stress" or "boost" while a "+" flip is under way (# 14.1)
    flips: list[tuple[str, str]] = field(default_factory=list)  # (purpose, card)
    stress_found: list[str] = field(default_factory=list)
    moved: int = 0  # spaces actually moved at step 3
    cooldown_allowance: int = 0
    cooled: int = 0
    boosted: bool = False
    boost_card: str | None = None
    boost_moved: int = 0
    boost_free: bool = False  # the boost cost no Heat (heat-control sector, # 20.11)
    adrenaline: bool = False  # this car holds adrenaline this round (# 6.1)
    adrenaline_move: bool = False
    adrenaline_cooldown: bool = False
    adrenaline_moved: int = 0
    slipstream: bool | None = None  # None: not offered / not decided
    slipstream_moved: int = 0
    corners: list[CornerCheck] = NO_CARDS
    spinout: bool = False
    spinout_stress: int = 0
    discarded: list[str] = NO_CARDS
    drawn: int = 0
    drawn_cards: list[str] = field(default_factory=list)
    laps_before: int = 0
    laps_after: int = 0
    end: int = 0  # progress at the end of the turn
    end_lane: int = 0
    finished: bool = False
    shuffles: int = 0
    eliminated: bool = False  # the car left the race this turn (event 10, MA21)
    # Chance events the turn waits for before it goes on (e.g. "heat_removed" when only the table knows where
    # the card comes from), in order: nothing else may happen in the turn until they are recorded.
    owed: list[str] = NO_CARDS
    # What happened, in order: (kind, source, amount, moved) tuples (engine/react.py lists the kinds). Derived,
    # like every field here; views, narration and statistics read it instead of working anything out again.
    happenings: list[Happening] = field(default_factory=list)
    used: dict[str, int] = NO_USES  # React uses consumed: "symbol:source" -> amount (react.py)
    # The records of the turn's modules, by module name (engine/module.py, ``TurnRecord``: a Legend's move, the
    # Garage's record, the championship's lists), each read through an accessor of its module's folder; the
    # shared empty default in a turn no module keeps a record of (``Turn.keep`` sets one).
    modules: dict[str, Any] = NO_RECORDS

    def __init__(
        self,
        car: str,
        round: int,
        gear: int,
        from_gear: int,
        shift_heat: int = 0,
        start: int = 0,
        reached: int = 0,
        sub: int = REVEAL,
        played: list[str] = NO_CARDS,
        cluttered: bool = False,
        speed: int = 0,
        stress_left: int = 0,
        flipping: str | None = None,
        flips: list[tuple[str, str]] = FACTORY,
        stress_found: list[str] = FACTORY,
        moved: int = 0,
        cooldown_allowance: int = 0,
        cooled: int = 0,
        boosted: bool = False,
        boost_card: str | None = None,
        boost_moved: int = 0,
        boost_free: bool = False,
        adrenaline: bool = False,
        adrenaline_move: bool = False,
        adrenaline_cooldown: bool = False,
        adrenaline_moved: int = 0,
        slipstream: bool | None = None,
        slipstream_moved: int = 0,
        corners: list[CornerCheck] = NO_CARDS,
        spinout: bool = False,
        spinout_stress: int = 0,
        discarded: list[str] = NO_CARDS,
        drawn: int = 0,
        drawn_cards: list[str] = FACTORY,
        laps_before: int = 0,
        laps_after: int = 0,
        end: int = 0,
        end_lane: int = 0,
        finished: bool = False,
        shuffles: int = 0,
        eliminated: bool = False,
        owed: list[str] = NO_CARDS,
        happenings: list[Happening] = FACTORY,
        used: dict[str, int] = NO_USES,
        modules: dict[str, Any] = NO_RECORDS,
    ) -> None:
        self.car = car
        self.round = round
        self.gear = gear
        self.from_gear = from_gear
        self.shift_heat = shift_heat
        self.start = start
        self.reached = reached
        self.sub = sub
        self.played = played
        self.cluttered = cluttered
        self.speed = speed
        self.stress_left = stress_left
        self.flipping = flipping
        self.flips = [] if flips is FACTORY else flips
        self.stress_found = [] if stress_found is FACTORY else stress_found
        self.moved = moved
        self.cooldown_allowance = cooldown_allowance
        self.cooled = cooled
        self.boosted = boosted
        self.boost_card = boost_card
        self.boost_moved = boost_moved
        self.boost_free = boost_free
        self.adrenaline = adrenaline
        self.adrenaline_move = adrenaline_move
        self.adrenaline_cooldown = adrenaline_cooldown
        self.adrenaline_moved = adrenaline_moved
        self.slipstream = slipstream
        self.slipstream_moved = slipstream_moved
        self.corners = corners
        self.spinout = spinout
        self.spinout_stress = spinout_stress
        self.discarded = discarded
        self.drawn = drawn
        self.drawn_cards = [] if drawn_cards is FACTORY else drawn_cards
        self.laps_before = laps_before
        self.laps_after = laps_after
        self.end = end
        self.end_lane = end_lane
        self.finished = finished
        self.shuffles = shuffles
        self.eliminated = eliminated
        self.owed = owed
        self.happenings = [] if happenings is FACTORY else happenings
        self.used = used
        self.modules = modules

    def keep(self, module: str, record: Any) -> None:
        """Keep ``record`` as module ``module``'s record of this turn (``Turn.modules``)."""
        if self.modules:
            self.modules[module] = record
        else:  # (the shared empty default: a dict of the turn's own)
            self.modules = {module: record}

    def happened(self, kind: str) -> list[Happening]:
        """The happenings of one kind, in order."""
        return [h for h in self.happenings if h[0] == kind]

    @property
    def step3_speed(self) -> int:
        """The Speed of step 3 (# 5.1: the revealed cards, Stress replaced by what its flips found); 0 before
        the move, after a cluttered reveal and for a Legend."""
        for kind, _source, amount, _moved in self.happenings:
            if kind == "speed":
                return amount
        return 0

    @property
    def spaces_moved(self) -> int:
        """The spaces moved at step 3 and by React moves (# 5.3, 6.2, 7.5; a module's React moves too), not the
        slipstream (# 8.4) nor a spinout (a module may count its own turns otherwise: ``Module.spaces_moved``)."""
        return sum(h[3] for h in self.happenings if h[3] > 0 and h[0] != "slipstream")

    @property
    def revealed(self) -> bool:
        """Whether the turn is past step 3 (its cards revealed and its move made)."""
        return self.sub > REVEAL

    @property
    def complete(self) -> bool:
        """Whether the turn is over (a finished Turn record)."""
        return self.sub >= DONE

    def copy(self) -> Turn:
        """An independent copy of a turn in progress, equal to ``copy.deepcopy(turn)`` without its generic walk:
        every list and dict is copied (their items are strings, ints and tuples of them), each CornerCheck too;
        the modules' records by their modules (``TurnRecord.copy``: a Legend's move is frozen and shared, the
        Garage's record deep-copied). (tests/test_state_copy.py checks that no mutable part is shared.)"""
        new = Turn(*_TURN_VALUES(self))
        new.played = list(self.played)
        new.flips = list(self.flips)
        new.stress_found = list(self.stress_found)
        new.corners = [CornerCheck(*_CORNER_VALUES(c)) for c in self.corners]
        new.discarded = list(self.discarded)
        new.drawn_cards = list(self.drawn_cards)
        new.owed = list(self.owed)
        new.happenings = list(self.happenings)
        new.used = dict(self.used)
        if self.modules:
            new.modules = copy_turn_records(self.modules)
        return new


@record(slots=True)
class RaceState:
    track: Track
    laps: int
    variant: str
    mode: str  # "table" or "open"
    cars: dict[str, Car]
    started: int  # number of cars that started (# 6.4)
    phase: str = "grid"  # grid, deal, race, over
    round: int = 0
    step: int = SETUP  # steps 0–2 (Step's numbers); a car's turn holds its own step (Turn.sub)
    order: list[str] = field(default_factory=list)  # this round's fixed order (# 2.2)
    adrenaline: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # cars still to act in simultaneous steps 1–2
    turn_index: int = 0
    turn: Turn | None = None
    turns: list[Turn] = field(default_factory=list)  # completed turns of the current round
    last_turns: dict[str, Turn] = field(default_factory=dict)  # each car's last completed turn (not in positions)
    finished_round: list[str] = field(default_factory=list)  # finishers of the current round (# 16.8)
    hall_of_fame: list[str] = field(default_factory=list)
    finish_rounds: dict[str, int] = field(default_factory=dict)
    # Cars eliminated from the race (event 10, MA21), in the order they left: off the track, finished for the
    # round order; each takes the last free Hall-of-Fame place, so they join ``hall_of_fame`` reversed at the end.
    eliminated: list[str] = field(default_factory=list)
    grid: list[str] = field(default_factory=list)
    spots: dict[tuple[int, int], str] = field(default_factory=dict)  # (space, lane) -> car on track
    shifts: dict[str, tuple[int, bool]] = field(default_factory=dict)  # step 1: gear before, paid Heat
    events: int = 0  # events applied (informational)
    rules: Rules = BASE_RULES  # the race's policy points (engine/ruleset.py): immutable, shared by copies
    cards: Catalogue = BASE_CATALOGUE  # the card types this race can meet (engine/cards.py): shared by copies
    # The state of a module registered as one unit (engine/module.py): its slot, by the module's name. Empty in a
    # base race; a slot is copied by its module's ``copy`` (None: immutable, shared).
    modules: dict[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        track: Track,
        laps: int,
        variant: str,
        mode: str,
        cars: dict[str, Car],
        started: int,
        phase: str = "grid",
        round: int = 0,
        step: int = SETUP,
        order: list[str] = FACTORY,
        adrenaline: list[str] = FACTORY,
        pending: list[str] = FACTORY,
        turn_index: int = 0,
        turn: Turn | None = None,
        turns: list[Turn] = FACTORY,
        last_turns: dict[str, Turn] = FACTORY,
        finished_round: list[str] = FACTORY,
        hall_of_fame: list[str] = FACTORY,
        finish_rounds: dict[str, int] = FACTORY,
        eliminated: list[str] = FACTORY,
        grid: list[str] = FACTORY,
        spots: dict[tuple[int, int], str] = FACTORY,
        shifts: dict[str, tuple[int, bool]] = FACTORY,
        events: int = 0,
        rules: Rules = BASE_RULES,
        cards: Catalogue = BASE_CATALOGUE,
        modules: dict[str, Any] = FACTORY,
    ) -> None:
        self.track = track
        self.laps = laps
        self.variant = variant
        self.mode = mode
        self.cars = cars
        self.started = started
        self.phase = phase
        self.round = round
        self.step = step
        self.order = [] if order is FACTORY else order
        self.adrenaline = [] if adrenaline is FACTORY else adrenaline
        self.pending = [] if pending is FACTORY else pending
        self.turn_index = turn_index
        self.turn = turn
        self.turns = [] if turns is FACTORY else turns
        self.last_turns = {} if last_turns is FACTORY else last_turns
        self.finished_round = [] if finished_round is FACTORY else finished_round
        self.hall_of_fame = [] if hall_of_fame is FACTORY else hall_of_fame
        self.finish_rounds = {} if finish_rounds is FACTORY else finish_rounds
        self.eliminated = [] if eliminated is FACTORY else eliminated
        self.grid = [] if grid is FACTORY else grid
        self.spots = {} if spots is FACTORY else spots
        self.shifts = {} if shifts is FACTORY else shifts
        self.events = events
        self.rules = rules
        self.cards = cards
        self.modules = {} if modules is FACTORY else modules

    @property
    def final_line(self) -> int:
        return self.laps * self.track.spaces

    def copy(self) -> RaceState:
        """An independent copy (the track, the rules, the card catalogue and the modules' rules are immutable and
        shared; so are completed turns)."""
        new = RaceState(*_STATE_VALUES(self))  # every field as it is, then each mutable one copied
        new.cars = {name: _copy_car(c) for name, c in self.cars.items()}
        new.order = list(self.order)
        new.adrenaline = list(self.adrenaline)
        new.pending = list(self.pending)
        new.turn = self.turn.copy() if self.turn is not None else None
        new.turns = list(self.turns)  # completed turns are never changed again
        new.last_turns = dict(self.last_turns)
        new.finished_round = list(self.finished_round)
        new.hall_of_fame = list(self.hall_of_fame)
        new.finish_rounds = dict(self.finish_rounds)
        new.eliminated = list(self.eliminated)
        new.grid = list(self.grid)
        new.spots = dict(self.spots)
        new.shifts = dict(self.shifts)
        new.modules = {name: copy_slot(name, slot) for name, slot in self.modules.items()} if self.modules else {}
        return new

    def last_turn(self, name: str) -> Turn | None:
        """The last turn ``name`` finished, in this round or an earlier one (None before its first, or when the
        state was built from a position after it: positions hold no finished turns)."""
        return self.last_turns.get(name)

    def lap_of(self, car: Car) -> int:
        """Lap the car is on (1-based), capped at the race's laps once finished."""
        if car.progress <= 0:
            return 1
        return min(self.laps, (car.progress - 1) // self.track.spaces + 1)

    def laps_done(self, car: Car) -> int:
        if car.progress <= 0:
            return 0
        return min(self.laps, (car.progress - 1) // self.track.spaces)

    def ranking_key(self, car: Car) -> tuple[int, int]:
        """Front to back: further progress first, then the race-line spot (# 1.5, 2.2, 16.7)."""
        return (-car.progress, 0 if car.lane == self.track.race_lane(car.progress) else 1)

    def on_track(self) -> list[Car]:
        return [c for c in self.cars.values() if not c.finished or c.name in self.finished_round]

    def is_over(self) -> bool:
        return self.phase == "over"

    def standings(self) -> list[str]:
        """Hall of Fame first (# 16.8), then cars still racing, front to back, then the cars eliminated during
        the race (MA21: the last to leave ahead of the first)."""
        hof, eliminated = self.hall_of_fame, self.eliminated
        if not hof and not eliminated:  # most rounds: every car still racing (the stats ask once a round)
            return [c.name for c in sorted(self.cars.values(), key=self.ranking_key)]
        out = set(hof).union(eliminated)
        racing = sorted([c for c in self.cars.values() if c.name not in out], key=self.ranking_key)
        return [*hof, *[c.name for c in racing], *[n for n in reversed(eliminated) if n not in hof]]


# Every field of each, in __init__ order: a copy starts as a new object with the same values (cheaper than
# ``copy.copy``, which goes through ``__reduce_ex__``), then copies what is mutable.
_CAR_VALUES = attrgetter(*(f.name for f in fields(Car)))
_CORNER_VALUES = attrgetter(*(f.name for f in fields(CornerCheck)))
_TURN_VALUES = attrgetter(*(f.name for f in fields(Turn)))
_STATE_VALUES = attrgetter(*(f.name for f in fields(RaceState)))


def _copy_car(c: Car) -> Car:
    new = Car(*_CAR_VALUES(c))
    new.pool = dict(c.pool)
    new.hand = dict(c.hand) if c.hand is not None else None
    new.deck = list(c.deck) if c.deck is not None else None
    new.discard = list(c.discard)
    new.play_area = list(c.play_area)
    new.committed = list(c.committed) if c.committed is not None else None
    new.deck_max = dict(c.deck_max) if c.deck_max is not None else None
    return new


def make_state(
    track: Track, laps: int, variant: str, mode: str, cars: list[dict[str, Any]], handicap: list[str]
) -> RaceState:
    roster: dict[str, Car] = {}
    for c in cars:
        hc = c["name"] in handicap
        legend = bool(c.get("legend", False))  # # 19.1: a Legend has no Engine
        engine = 0 if legend else engine_heat(hc, track.heat)
        roster[c["name"]] = Car(name=c["name"], colour=c.get("colour", ""), handicap=hc, engine=engine, legend=legend)
    return RaceState(track=track, laps=laps, variant=variant, mode=mode, cars=roster, started=len(roster))
