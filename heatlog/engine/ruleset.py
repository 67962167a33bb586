"""One ``Rules`` object per race: the named points where modules change the base rules.

Built once, when the race starts, from its configuration (``race_started.modules`` and each module's own block
of options, ``race_started.<module>``), and shared by every copy of the state like the track. Each field is a
*policy point*: a question the base rules ask at exactly one place in ``rules.py``/``decide.py``. In a base race
every point **is** the plain base function below, so the base pays one attribute lookup and nothing else.

A module plugs in by registering a builder, ``register_module(name, build)``: ``build(rules, options)`` returns
the race's rules with some points replaced (``dataclasses.replace``), usually wrapping the point it is given so
that modules compose in the order the race lists them. The base step machine calls the points and never names a
module. docs/design.md ("How a module plugs in") has the worked example; tests/test_ruleset.py exercises it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import FrozenInstanceError, field, fields
from typing import TYPE_CHECKING, Any

from .cards import GEAR_COOLDOWN, HAND_SIZE, STRESS, VALUE, engine_heat, starting_deck
from .errors import IllegalEvent
from .modules import circuits
from .react import BOOST_COST, ReactUse, base_react_uses, react_pool
from .written import FACTORY, record

if TYPE_CHECKING:  # the points receive the live state; only annotations need the classes
    from .events import Event
    from .state import Car, RaceState, Turn
    from .track import Corner


# ---------------------------------------------------------------------------------------------- base points


def base_starting_deck(state: RaceState, car: Car) -> list[str]:
    """# 1.2, 22.9: the draw deck before shuffling (the circuit may set the number of Stress)."""
    return starting_deck(state.track.stress)


def base_engine_heat(state: RaceState, car: Car) -> int:
    """# 1.2, 17.2, 22.9: Heat on the Engine at the start (the circuit may set it)."""
    return engine_heat(car.handicap, state.track.heat)


def base_shift_cost(state: RaceState, car: Car, old: int, new: int) -> int:
    """# 3.2: Heat from the Engine for a shift (a two-gear shift costs 1; a jump of three is illegal, # 3.4);
    # 22.4: 1 more for a downshift by a car that started the round on a flooded space (its space at step 1)."""
    return circuits.shift_heat(state.track, car.progress, old, new)


def base_cooldown(state: RaceState, car: Car, gear: int) -> int:
    """# 7.2, A10: the React uses of cooldown the gear in force gives (adrenaline adds its own, # 7.4)."""
    return GEAR_COOLDOWN[gear]


def base_boost_cost(state: RaceState, car: Car) -> int:
    """# 7.5: Heat from the Engine for a boost."""
    return BOOST_COST


SLIPSTREAM_SPACES = 2  # # 8.2: the spaces a slipstream moves in the base game


def base_slipstream_distance(state: RaceState, car: Car) -> int:
    """# 8.2: the spaces a slipstream moves."""
    return SLIPSTREAM_SPACES


def base_corner_limit(state: RaceState, car: Car, turn: Turn, corner: Corner) -> int:
    """# 9.3: the printed speed limit."""
    return corner.limit


def base_corner_cost(state: RaceState, car: Car, corner: Corner, speed: int, limit: int) -> int:
    """# 9.3: Heat owed for crossing ``corner`` at ``speed`` (``limit``: what ``corner_limit`` gave)."""
    return speed - limit if speed > limit else 0


def base_cooldown_block(state: RaceState, car: Car) -> str | None:
    """Why ``car`` may not cool down where it stands now, or None (the base game never forbids it)."""
    return None


def base_cooldown_bonus(state: RaceState, car: Car) -> int:
    """Cooldown allowed beyond the gear's, where the car stands now (none in the base game)."""
    return 0


def base_slipstream_block(state: RaceState, car: Car) -> str | None:
    """Why ``car`` may not slipstream from where it stands, beyond # 8.1–8.7, or None (never in the base game)."""
    return None


def base_slipstream_bonus(state: RaceState, car: Car) -> int:
    """Spaces a slipstream from where ``car`` stands may add, as a second choice beside the plain one (none)."""
    return 0


def base_can_discard(state: RaceState, car: Car, card: str) -> bool:
    """# 11.1: never Heat or Stress. (Where a car may discard at all, # 22.6 tunnels, is judged at step 8, where
    the car then stands: ``rules._cards_discarded`` and ``decide.waiting_for``.)"""
    return card in state.cards.discardable  # the race's catalogue (the base: DISCARDABLE)


def base_clear_play_area(state: RaceState, car: Car, turn: Turn) -> None:
    """# 12.1: the Play Area goes to the discard pile before drawing."""
    car.discard.extend(car.play_area)
    car.play_area = []


def base_hand_size(state: RaceState, car: Car) -> int:
    """# 1.2, 12.2: the hand is drawn up to 7 (an event card may set another size, # 21.8, MA26)."""
    return HAND_SIZE


def base_adrenaline_cars(state: RaceState, order: list[str]) -> list[str]:
    """# 6.1, 6.4: the last car of the round's order gets adrenaline, the last two when five or more cars
    started (counted by cars that started, so finished cars still count)."""
    k = 2 if state.started >= 5 else 1
    return order[-k:]


def base_discard_limit(state: RaceState, car: Car) -> int | None:
    """# 11.1: any number of cards may be discarded at step 8 (None: no limit)."""
    return None


def base_after_corners(state: RaceState, car: Car, turn: Turn) -> None:
    """The end of step 7, after every corner check of the turn: nothing more in the base game (a module may
    give cards earned during the turn or eliminate a car that spun out)."""
    return None


def base_turn_kind(state: RaceState, car: Car) -> str:
    """Whose turn it is: a player's turn (steps 3–9) in the base game; Legends give their cars another kind."""
    return "player"


def base_enter_phase(state: RaceState, phase: str) -> None:
    """A set-up phase begins (a module's own phase, e.g. the Garage draft, # 18.4). Nothing in the base game."""


def base_reveal(state: RaceState, car: Car, turn: Turn, cards: list[str]) -> None:
    """# 5.1, 5.2: the revealed cards' Speed, and a "+" flip for each Stress (the cards are in the Play Area)."""
    speed = stress = 0
    for c in cards:
        if c == STRESS:
            stress += 1
        else:
            speed += VALUE[c]
    turn.speed, turn.stress_left = speed, stress
    if stress:
        turn.flipping = "stress"


def base_after_flip(state: RaceState, car: Car, turn: Turn, purpose: str, value: int, found: bool) -> int:
    """After a "+" flip found ``value`` (or nothing) for ``purpose`` (stress, boost, or a module's own):
    the extra spaces a boost moves beyond ``value`` (# 18.20). Nothing in the base game."""
    return 0


def base_step3_due(state: RaceState, car: Car, turn: Turn) -> str | None:
    """The decision step 3 still waits for before the car moves (e.g. a Garage card's value, # 18.6)."""
    return None


def base_leave_react(state: RaceState, car: Car, turn: Turn) -> bool:
    """React closes: resolve what is derived then (# 18.10, 18.12). True when the turn must wait for chance
    events first (scrapped cards). Nothing in the base game."""
    return False


def base_react_mandatory(state: RaceState, car: Car, turn: Turn) -> bool:
    """# 18.25: whether the React pool holds a use that must come before React ends. Asked only where the race
    changes the React uses (the base pool has none): this builds the pool; a module whose uses can be mandatory
    answers it without building one (the Garage: issue 32)."""
    return bool(react_pool(state, car, turn).mandatory)


def base_slipstream_cards(state: RaceState, ev: Event, car: Car, turn: Turn) -> int:
    """# 8.2, 18.16: the spaces a slipstream adds to the 2 by the bonuses its event names (none in the base)."""
    if ev.get("bonuses"):
        raise IllegalEvent(
            "no card of this race gives a slipstream bonus", round=state.round, car=car.name, input=ev, rule="18.16"
        )
    return 0


def base_cooldown_cards(state: RaceState, ev: Event, car: Car, turn: Turn) -> tuple[list[int], int]:
    """# 7.2, 18.13: the Play Area cards whose own cooldown a ``cooldown`` event names (``ev["cards"]``), as
    (their places in ``turn.played``, the cooldown they add). Asked only when the event names cards: no card
    of the base game has a cooldown of its own."""
    raise IllegalEvent(
        "no card of this race has a cooldown of its own: cooldown names no cards",
        round=state.round,
        car=car.name,
        input=ev,
        rule="18.13",
    )


def base_cooldown_cards_spent(turn: Turn, picks: list[int], n: int) -> None:
    """The cards ``cooldown_cards`` named cooled ``n`` Heat (each spent whole, MA32): the race's own record of
    it. Never asked in the base game (it names no cards)."""


def base_flip_shuffle(state: RaceState, ev: Event, car: Car, turn: Turn, order: list[str] | None) -> None:
    """The shuffle a flip of the race's own asks for (``Rules.flip_draws`` maps it to ``deck_shuffled``: the
    Garage's Salvage, # 18.18), with its ``order`` when known. Never asked in the base game (no such flip)."""
    raise IllegalEvent("no flip of this race shuffles the draw deck", round=state.round, car=car.name, input=ev)


def base_slipstream_bonus_cards(state: RaceState, car: Car, turn: Turn) -> list[tuple[str, int]]:
    """# 18.16: the Play Area cards whose slipstream bonus a slipstream may name now, (token, spaces) in Play
    Area order (none in the base game)."""
    return []


def base_no_events(state: RaceState, car: Car, turn: Turn) -> list[Event]:
    """Decisions a module adds to a turn (React uses, step-3 choices …): none in the base game."""
    return []


def base_react_due(state: RaceState, car: Car, turn: Turn) -> str | None:
    """A decision React must take before anything else (# 18.11: which card's cost is unpayable), or None."""
    return None


def base_phase_waiting(state: RaceState) -> tuple[str, list[str]] | None:
    """What a module's own set-up phase waits for (event type, the cars that may send it), or None."""
    return None


def base_phase_decisions(state: RaceState, name: str) -> list[Event]:
    """The decisions of ``name`` in a module's set-up phase (# 18.5: the draft's picks)."""
    return []


# ---------------------------------------------------------------------------------------------- the object


@record(frozen=True, slots=True)
class Rules:
    """The policy points of one race (see the module docstring). Immutable; shared by state copies."""

    modules: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)  # each module's options, as race_started holds them
    starting_deck: Callable[[RaceState, Car], list[str]] = base_starting_deck
    engine_heat: Callable[[RaceState, Car], int] = base_engine_heat
    shift_cost: Callable[[RaceState, Car, int, int], int] = base_shift_cost
    cooldown: Callable[[RaceState, Car, int], int] = base_cooldown
    boost_cost: Callable[[RaceState, Car], int] = base_boost_cost
    # # 6.2, 7.1–7.6: the React pool's uses open now (engine/react.py); a module adds its symbols' uses
    react_uses: Callable[[RaceState, Car, Turn], list[ReactUse]] = base_react_uses
    slipstream_distance: Callable[[RaceState, Car], int] = base_slipstream_distance
    corner_limit: Callable[[RaceState, Car, Turn, Corner], int] = base_corner_limit
    corner_cost: Callable[[RaceState, Car, Corner, int, int], int] = base_corner_cost
    cooldown_block: Callable[[RaceState, Car], str | None] = base_cooldown_block
    cooldown_bonus: Callable[[RaceState, Car], int] = base_cooldown_bonus
    slipstream_block: Callable[[RaceState, Car], str | None] = base_slipstream_block
    slipstream_bonus: Callable[[RaceState, Car], int] = base_slipstream_bonus
    can_discard: Callable[[RaceState, Car, str], bool] = base_can_discard
    clear_play_area: Callable[[RaceState, Car, Turn], None] = base_clear_play_area
    turn_kind: Callable[[RaceState, Car], str] = base_turn_kind
    hand_size: Callable[[RaceState, Car], int] = base_hand_size
    adrenaline_cars: Callable[[RaceState, list[str]], list[str]] = base_adrenaline_cars
    discard_limit: Callable[[RaceState, Car], int | None] = base_discard_limit
    after_corners: Callable[[RaceState, Car, Turn], None] = base_after_corners
    # Other kinds of turn (e.g. "legend"): start the turn of a car whose turn_kind names them and run it;
    # (car, turn) when the turn is over (the step machine goes on), None while it waits for an event.
    turns: Mapping[str, Callable[[RaceState, Car], tuple[Car, Turn] | None]] = field(default_factory=dict)
    setup_phases: tuple[str, ...] = ("grid", "deal")  # # 1.2–1.4; a module may add one (e.g. a garage draft)
    enter_phase: Callable[[RaceState, str], None] = base_enter_phase
    phase_waiting: Callable[[RaceState], tuple[str, list[str]] | None] = base_phase_waiting
    phase_decisions: Callable[[RaceState, str], list[Event]] = base_phase_decisions
    reveal: Callable[[RaceState, Car, Turn, list[str]], None] = base_reveal
    after_flip: Callable[[RaceState, Car, Turn, str, int, bool], int] = base_after_flip
    step3_due: Callable[[RaceState, Car, Turn], str | None] = base_step3_due
    step3_options: Callable[[RaceState, Car, Turn], list[Event]] = base_no_events
    react_due: Callable[[RaceState, Car, Turn], str | None] = base_react_due
    leave_react: Callable[[RaceState, Car, Turn], bool] = base_leave_react
    slipstream_cards: Callable[[RaceState, Event, Car, Turn], int] = base_slipstream_cards
    slipstream_bonus_cards: Callable[[RaceState, Car, Turn], list[tuple[str, int]]] = base_slipstream_bonus_cards
    # steps 6–9: a module's other decisions (the Garage's slipstream bonuses, Refresh)
    turn_options: Callable[[RaceState, Car, Turn], list[Event]] = base_no_events
    # # 18.25: a mandatory use is left in the React pool (React may not end); asked where react_uses is a module's
    react_mandatory: Callable[[RaceState, Car, Turn], bool] = base_react_mandatory
    # # 7.2, 18.13: a cooldown naming cards (their own cooldown, spent whole), and the record of what they cooled
    cooldown_cards: Callable[[RaceState, Event, Car, Turn], tuple[list[int], int]] = base_cooldown_cards
    cooldown_cards_spent: Callable[[Turn, list[int], int], None] = base_cooldown_cards_spent
    # A module's own flips (``Turn.flipping``) that wait for another chance event than ``card_flipped``, by the
    # event (the Garage's: a Scrap's ``card_scrapped``, # 18.12; a Salvage's ``deck_shuffled``, # 18.18, its
    # draw deck shuffled whole: that shuffle is the race's ``flip_shuffle``). Empty in the base game.
    flip_draws: Mapping[str, str] = field(default_factory=dict)
    flip_shuffle: Callable[[RaceState, Event, Car, Turn, list[str] | None], None] = base_flip_shuffle
    # The chance event a turn of another kind (``turns``) waits for while it waits, by kind (a Legend's card,
    # # 19.5, MA9). Empty in the base game.
    turn_waits: Mapping[str, str] = field(default_factory=dict)
    # # 7.2: whether a module's ``react_uses`` may add cooldown uses of its own to the pool (a cooldown event then
    # reads the whole pool); False: the pool's cooldown uses are the base's (``react.cooldown_uses``), which is all
    # a cooldown reads (the Garage's card cooldowns are named by the event, # 18.13). Read where react_uses is not
    # the base's. A module whose uses add a cooldown sets it True (a module built after it keeps it).
    pool_cooling: bool = True
    # Derived: the names of the points that are still their base function (a base race: every point). The step
    # machine skips a point here whose base does nothing (step3_due, after_flip …): a base race pays for no module.
    plain: frozenset[str] = field(init=False, repr=False, compare=False)
    # Derived: the same as one flag per point (``rules.unchanged.hand_size``: the point is its base function),
    # for the step machine's hot path (an attribute read costs a seventh of a frozenset lookup).
    unchanged: Any = field(init=False, repr=False, compare=False)
    # Derived: React's points (cooldown block and bonus, boost cost) are all their base function: the base React
    # uses are read without calling them (react.base_react_uses).
    react_plain: bool = field(init=False, repr=False, compare=False)
    # Derived: what a turn waits for is the base's (step3_due, react_due, hand_size: decide.waiting_for).
    waits_plain: bool = field(init=False, repr=False, compare=False)

    def __init__(
        self,
        modules: tuple[str, ...] = (),
        options: Mapping[str, Any] = FACTORY,
        starting_deck: Callable[[RaceState, Car], list[str]] = base_starting_deck,
        engine_heat: Callable[[RaceState, Car], int] = base_engine_heat,
        shift_cost: Callable[[RaceState, Car, int, int], int] = base_shift_cost,
        cooldown: Callable[[RaceState, Car, int], int] = base_cooldown,
        boost_cost: Callable[[RaceState, Car], int] = base_boost_cost,
        react_uses: Callable[[RaceState, Car, Turn], list[ReactUse]] = base_react_uses,
        slipstream_distance: Callable[[RaceState, Car], int] = base_slipstream_distance,
        corner_limit: Callable[[RaceState, Car, Turn, Corner], int] = base_corner_limit,
        corner_cost: Callable[[RaceState, Car, Corner, int, int], int] = base_corner_cost,
        cooldown_block: Callable[[RaceState, Car], str | None] = base_cooldown_block,
        cooldown_bonus: Callable[[RaceState, Car], int] = base_cooldown_bonus,
        slipstream_block: Callable[[RaceState, Car], str | None] = base_slipstream_block,
        slipstream_bonus: Callable[[RaceState, Car], int] = base_slipstream_bonus,
        can_discard: Callable[[RaceState, Car, str], bool] = base_can_discard,
        clear_play_area: Callable[[RaceState, Car, Turn], None] = base_clear_play_area,
        turn_kind: Callable[[RaceState, Car], str] = base_turn_kind,
        hand_size: Callable[[RaceState, Car], int] = base_hand_size,
        adrenaline_cars: Callable[[RaceState, list[str]], list[str]] = base_adrenaline_cars,
        discard_limit: Callable[[RaceState, Car], int | None] = base_discard_limit,
        after_corners: Callable[[RaceState, Car, Turn], None] = base_after_corners,
        turns: Mapping[str, Callable[[RaceState, Car], tuple[Car, Turn] | None]] = FACTORY,
        setup_phases: tuple[str, ...] = ("grid", "deal"),
        enter_phase: Callable[[RaceState, str], None] = base_enter_phase,
        phase_waiting: Callable[[RaceState], tuple[str, list[str]] | None] = base_phase_waiting,
        phase_decisions: Callable[[RaceState, str], list[Event]] = base_phase_decisions,
        reveal: Callable[[RaceState, Car, Turn, list[str]], None] = base_reveal,
        after_flip: Callable[[RaceState, Car, Turn, str, int, bool], int] = base_after_flip,
        step3_due: Callable[[RaceState, Car, Turn], str | None] = base_step3_due,
        step3_options: Callable[[RaceState, Car, Turn], list[Event]] = base_no_events,
        react_due: Callable[[RaceState, Car, Turn], str | None] = base_react_due,
        leave_react: Callable[[RaceState, Car, Turn], bool] = base_leave_react,
        slipstream_cards: Callable[[RaceState, Event, Car, Turn], int] = base_slipstream_cards,
        slipstream_bonus_cards: Callable[[RaceState, Car, Turn], list[tuple[str, int]]] = base_slipstream_bonus_cards,
        turn_options: Callable[[RaceState, Car, Turn], list[Event]] = base_no_events,
        react_mandatory: Callable[[RaceState, Car, Turn], bool] = base_react_mandatory,
        cooldown_cards: Callable[[RaceState, Event, Car, Turn], tuple[list[int], int]] = base_cooldown_cards,
        cooldown_cards_spent: Callable[[Turn, list[int], int], None] = base_cooldown_cards_spent,
        flip_draws: Mapping[str, str] = FACTORY,
        flip_shuffle: Callable[[RaceState, Event, Car, Turn, list[str] | None], None] = base_flip_shuffle,
        turn_waits: Mapping[str, str] = FACTORY,
        pool_cooling: bool = True,
    ) -> None:
        object.__setattr__(self, "modules", modules)
        object.__setattr__(self, "options", {} if options is FACTORY else options)
        object.__setattr__(self, "starting_deck", starting_deck)
        object.__setattr__(self, "engine_heat", engine_heat)
        object.__setattr__(self, "shift_cost", shift_cost)
        object.__setattr__(self, "cooldown", cooldown)
        object.__setattr__(self, "boost_cost", boost_cost)
        object.__setattr__(self, "react_uses", react_uses)
        object.__setattr__(self, "slipstream_distance", slipstream_distance)
        object.__setattr__(self, "corner_limit", corner_limit)
        object.__setattr__(self, "corner_cost", corner_cost)
        object.__setattr__(self, "cooldown_block", cooldown_block)
        object.__setattr__(self, "cooldown_bonus", cooldown_bonus)
        object.__setattr__(self, "slipstream_block", slipstream_block)
        object.__setattr__(self, "slipstream_bonus", slipstream_bonus)
        object.__setattr__(self, "can_discard", can_discard)
        object.__setattr__(self, "clear_play_area", clear_play_area)
        object.__setattr__(self, "turn_kind", turn_kind)
        object.__setattr__(self, "hand_size", hand_size)
        object.__setattr__(self, "adrenaline_cars", adrenaline_cars)
        object.__setattr__(self, "discard_limit", discard_limit)
        object.__setattr__(self, "after_corners", after_corners)
        object.__setattr__(self, "turns", {} if turns is FACTORY else turns)
        object.__setattr__(self, "setup_phases", setup_phases)
        object.__setattr__(self, "enter_phase", enter_phase)
        object.__setattr__(self, "phase_waiting", phase_waiting)
        object.__setattr__(self, "phase_decisions", phase_decisions)
        object.__setattr__(self, "reveal", reveal)
        object.__setattr__(self, "after_flip", after_flip)
        object.__setattr__(self, "step3_due", step3_due)
        object.__setattr__(self, "step3_options", step3_options)
        object.__setattr__(self, "react_due", react_due)
        object.__setattr__(self, "leave_react", leave_react)
        object.__setattr__(self, "slipstream_cards", slipstream_cards)
        object.__setattr__(self, "slipstream_bonus_cards", slipstream_bonus_cards)
        object.__setattr__(self, "turn_options", turn_options)
        object.__setattr__(self, "react_mandatory", react_mandatory)
        object.__setattr__(self, "cooldown_cards", cooldown_cards)
        object.__setattr__(self, "cooldown_cards_spent", cooldown_cards_spent)
        object.__setattr__(self, "flip_draws", {} if flip_draws is FACTORY else flip_draws)
        object.__setattr__(self, "flip_shuffle", flip_shuffle)
        object.__setattr__(self, "turn_waits", {} if turn_waits is FACTORY else turn_waits)
        object.__setattr__(self, "pool_cooling", pool_cooling)
        self.__post_init__()

    def __post_init__(self) -> None:
        plain = frozenset(name for name, base in _BASE_POINTS.items() if getattr(self, name) is base)
        object.__setattr__(self, "plain", plain)  # frozen: set once, here (dataclasses.replace comes here too)
        object.__setattr__(self, "unchanged", Unchanged(**{name: name in plain for name in _BASE_POINTS}))
        object.__setattr__(self, "react_plain", plain >= _REACT_POINTS)
        object.__setattr__(self, "waits_plain", plain >= _WAIT_POINTS)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its configuration, rebuilt where it is loaded (a module's points may be closures, which
        do not pickle: playouts send states to worker processes)."""
        return build_rules, (list(self.modules), dict(self.options))

    def __deepcopy__(self, memo: dict[int, Any]) -> Rules:
        return self  # immutable, shared like the track

    def phase_after(self, phase: str) -> str:
        """The set-up phase that follows ``phase`` ("race" after the last)."""
        phases = self.setup_phases
        i = phases.index(phase)
        return phases[i + 1] if i + 1 < len(phases) else "race"


# Each point's base function (the defaults above), for ``Rules.plain``.
_BASE_POINTS: dict[str, Any] = {f.name: f.default for f in fields(Rules) if callable(f.default)}
# ``Rules.unchanged``: one flag per point, True where the race keeps the base function (immutable, shared).


class Unchanged:
    """``Rules.unchanged``: one flag per point, True where the race keeps the base function. Immutable, shared;
    written out rather than made by ``make_dataclass``, which compiled its methods at every start (issue 32)."""

    __slots__ = tuple(_BASE_POINTS)

    def __init__(self, **flags: bool) -> None:
        for name in self.__slots__:
            object.__setattr__(self, name, flags[name])

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        return "Unchanged(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, name) for name in self.__slots__))


_REACT_POINTS = frozenset(("cooldown_block", "cooldown_bonus", "boost_cost"))
_WAIT_POINTS = frozenset(("step3_due", "react_due", "hand_size"))
BASE_RULES = Rules()

Build = Callable[[Rules, Any], Rules]  # (rules so far, the module's options from race_started) -> rules
# The Rules builders by module. ``MODULES`` (public, PEP 562 ``__getattr__``) is every module's: its first access
# registers every module folder (``events.complete``); ``build_rules`` completes them when a race lists a module not
# registered yet (docs/design.md, "Lazy module discovery").
_BUILDERS: dict[str, Build] = {}

if TYPE_CHECKING:
    MODULES: dict[str, Build]


def __getattr__(name: str) -> Any:
    """The public registry of builders, whole (``events.complete``)."""
    if name == "MODULES":
        from .events import complete

        complete()
        return _BUILDERS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register_module(name: str, build: Build) -> None:
    """Make ``name`` a module a race may list in ``race_started.modules``."""
    if name in _BUILDERS:
        raise ValueError(f"module {name!r} is registered twice")
    _BUILDERS[name] = build


def build_rules(modules: Any, config: Mapping[str, Any]) -> Rules:
    """The rules of a race listing ``modules`` (in order), each reading its options from ``config[name]``.
    A ``ValueError`` names an unknown module. No module: the base rules, unchanged."""
    if not modules:
        return BASE_RULES
    if not isinstance(modules, list) or not all(isinstance(m, str) for m in modules):
        raise ValueError("modules must be a list of module names")
    if len(set(modules)) != len(modules):
        raise ValueError("a module is listed twice")
    builds = []
    for name in modules:
        build = _BUILDERS.get(name)
        if build is None:
            from .events import complete

            if complete():  # a race listing a module loads the modules (every folder's, in their order)
                build = _BUILDERS.get(name)
        if build is None:
            known = ", ".join(sorted(_BUILDERS)) or "none registered"
            raise ValueError(f"unknown module {name!r} ({known})")
        builds.append(build)
    options = {m: config.get(m) for m in modules}
    try:  # the same modules and options give the same Rules (each build reads only them): one per configuration
        key: Any = (tuple(modules), tuple(builds), json.dumps(options, sort_keys=True, allow_nan=False))
    except (TypeError, ValueError):
        key = None  # (options that are not JSON: built afresh, not kept)
    hit = _BUILT.get(key) if key is not None else None
    if hit is not None:
        return hit
    if key is not None:  # the kept Rules hold a copy of the options, not the event's own dicts
        options = json.loads(key[2])
    rules = Rules(modules=tuple(modules), options=options)
    for name, build in zip(modules, builds, strict=True):
        rules = build(rules, options[name])
    if key is not None:
        if len(_BUILT) >= 64:  # the oldest configuration goes (clearing them all made a kept answer depend on
            del _BUILT[next(iter(_BUILT))]  # how many others were built before: the full suite's order)
        _BUILT[key] = rules
    return rules


# build_rules's answers by configuration (modules, their builders, the options' JSON text): a race_started of a
# module race built its Rules anew, a third of its cost in a Garage race (issue 32). Rules are immutable.
_BUILT: dict[Any, Rules] = {}
