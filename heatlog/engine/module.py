"""A module is one registered unit: the ``Module`` descriptor and its registry (issue 26).

One ``Module`` per optional module of the rules names everything it adds to a race: its Rules builder, its
event types (registered in the catalogue with it), how it reads its options at ``race_started`` into its state,
its block in a position, its chance draws, its set-up phases, the schemas of its blocks, and the pieces the
shells use for its events (the recorder's question and notation, the words of the narration, the lines of the
board). The core and the shells iterate ``MODULES`` and never name a module.

Pure, like the rest of the engine: every piece is a plain function of the engine's state and events (words,
lines of text, events parsed from what was typed), with no I/O and no import of a shell, so the shells import
the engine and never the reverse. The pieces are data and text, never drawing code: a shell renders them.

Every module is a folder of its own (``engine/modules/<name>/__init__.py`` defining ``MODULE``), found by
``discover()`` when a race or a reader first needs a module (``events.complete``; a base race loads none: docs/
design.md, "lazy module discovery"): it lands with no edit elsewhere. The descriptor classes are in
``engine/unit.py`` (loaded at their first use as this module's names).
Every module keeps its state in ``state.modules[name]``, read through an accessor of its folder (the Garage's
``garage_slot``, the weather's ``conditions_of``: docs/design.md, "The weather's and the Garage's slots").
"""

from __future__ import annotations

import copy
import importlib
import os
import random
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from .events import complete, is_whole, register

if TYPE_CHECKING:
    from .decide import Waiting
    from .state import Car, RaceState, Turn

    # unit.py's names, re-exported (``from heatlog.engine.module import Module``: loaded by ``__getattr__``)
    from .unit import (
        GO_ON as GO_ON,
    )
    from .unit import (
        Ask as Ask,
    )
    from .unit import (
        Badge as Badge,
    )
    from .unit import (
        Badges as Badges,
    )
    from .unit import (
        BotPolicy as BotPolicy,
    )
    from .unit import (
        CardTable as CardTable,
    )
    from .unit import (
        EndValue as EndValue,
    )
    from .unit import (
        FactColumn as FactColumn,
    )
    from .unit import (
        Flag as Flag,
    )
    from .unit import (
        Module as Module,
    )
    from .unit import (
        Notation as Notation,
    )
    from .unit import (
        PositionCards as PositionCards,
    )
    from .unit import (
        Said as Said,
    )
    from .unit import (
        SampleRace as SampleRace,
    )
    from .unit import (
        SeasonHook as SeasonHook,
    )
    from .unit import (
        SetupCars as SetupCars,
    )
    from .unit import (
        SetupStep as SetupStep,
    )
    from .unit import (
        TurnAnswer as TurnAnswer,
    )
    from .unit import (
        TurnRecord as TurnRecord,
    )
    from .unit import (
        TurnRow as TurnRow,
    )

#: The descriptor classes live in engine/unit.py (a base race never loads them); they are this module's names too,
#: loaded at their first use (``__getattr__``, below).
_UNIT_NAMES = frozenset(
    (
        "Notation",
        "GO_ON",
        "EndValue",
        "BotPolicy",
        "FactColumn",
        "Flag",
        "Said",
        "SeasonHook",
        "SampleRace",
        "CardTable",
        "Module",
        "TurnRow",
        "TurnRecord",
        "PositionCards",
        "Ask",
        "TurnAnswer",
        "SetupStep",
        "SetupCars",
        "Badge",
        "Badges",
    )
)

Event = dict[str, Any]


def owed_words(kind: str) -> tuple[str, str]:
    """What a turn owes (``Turn.owed``: chance event ``kind``, ``Module.owed``) in words, and its rules item."""
    unit = of_event(kind)
    said = unit.owed.get(kind) if unit is not None else None
    return said if said is not None else (f"the {kind} the turn waits for", "")


def car_key_problem(cars: Any, modules: Collection[str]) -> str | None:
    """The words that refuse a car of ``cars`` setting a key of a registered module the race does not play
    (``Module.car_keys``), or None."""
    if not isinstance(cars, list):
        return None
    if not is_whole() and any(
        isinstance(c, dict) and any(v for k, v in c.items() if k not in BASE_CAR_KEYS) for c in cars
    ):
        complete()  # a key no base car sets: the module that claims it words the refusal
    for m in tuple(_MODULES.values()):  # (a copy, made at once: another thread may be registering the folders)
        if m.car_keys and m.name not in modules:
            for key, words in m.car_keys.items():
                if any(isinstance(c, dict) and c.get(key) for c in cars):
                    return words
    return None


def position_cards(state: RaceState) -> list[PositionCards]:
    """What every module of the race says about the cards of a position (``Module.position_cards``), in rank
    order."""
    out: list[PositionCards] = []
    for m in in_race(state):
        if m.position_cards is not None:
            said = m.position_cards(state)
            if said is not None:
                out.append(said)
    return out


def data_check(name: str, data: Any) -> None:
    """Module ``name``'s own check of its data file's content (``Module.data_check``), if it has one."""
    unit = _unit(name)
    if unit is not None and unit.data_check is not None:
        unit.data_check(data)


# The registry of modules. ``MODULES`` (public, PEP 562 ``__getattr__`` below) is every module folder's, registered
# at its first access (``events.complete``), in ``Module.order`` then name; the core reads ``_MODULES``, which holds no
# module until a race needs one: a race listing a module, an event or a position key that is no base race's, a
# look-up by name that misses, or anything that lists every module (docs/design.md, "Lazy module discovery").
_MODULES: dict[str, Module] = {}
#: The keys a car of race_started or of a position may set with a value in a base race (a module's car key,
#: ``Module.car_keys``, is none of them: tests/test_module_discovery.py checks it), the set-up phases of a base race,
#: and the keys of a base race's turn in a position (``Turn``'s own; a module's ``TurnRecord.keys`` are none of
#: them). Anything else in a race's data completes the registry before it is read.
BASE_CAR_KEYS = frozenset(
    (
        "name", "colour", "handicap", "progress", "lane", "gear", "unseen", "hand", "hand_size", "deck", "deck_size",
        "discard", "engine", "play_area", "committed", "stress_taken", "needs_shuffle", "deck_max", "deck_top",
        "finished", "space", "lap", "laps_done",
    )
)  # fmt: skip
BASE_PHASES = frozenset(("grid", "deal", "race", "over"))


def whole() -> dict[str, Module]:
    """Every module, registered (the public ``MODULES``)."""
    complete()
    return _MODULES


def _unit(name: str) -> Module | None:
    """The module named ``name`` (None: no module of that name, the registry whole)."""
    found = _MODULES.get(name)
    if found is None and complete():
        found = _MODULES.get(name)
    return found


if TYPE_CHECKING:
    MODULES: dict[str, Module]


def __getattr__(name: str) -> Any:
    """The public registry, whole: its first access registers every module folder (``events.complete``)."""
    if name == "MODULES":
        return whole()
    if name in _UNIT_NAMES:
        from . import unit

        return getattr(unit, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register_unit(module: Module) -> Module:
    """Register ``module``: its descriptor, its event types and its Rules builder (once). Every module folder is
    registered first (a unit registered by hand, a test's, comes after them, as it always did)."""
    from .events import _REGISTRY as REGISTRY
    from .ruleset import _BUILDERS as BUILDERS
    from .ruleset import register_module

    complete()
    if module.name in _MODULES:
        raise ValueError(f"module {module.name!r} is registered twice")
    for entry in module.events:
        if entry.module != module.name:
            raise ValueError(f"{module.name}: event type {entry.name!r} says it is {entry.module!r}'s")
        if REGISTRY.get(entry.name) is not entry:  # (the first waves' types are in the catalogue already)
            register(entry)
    if module.build is not None and BUILDERS.get(module.name) is not module.build:
        register_module(module.name, module.build)
    _MODULES[module.name] = module
    return module


_TURN_RECORDS: list[tuple[int, tuple[tuple[str, TurnRecord], ...]]] = []


def turn_records() -> tuple[tuple[str, TurnRecord], ...]:
    """Every module's ``turn_record`` as (its name, the record's descriptor), in registration order."""
    complete()
    return _turn_records()


def _turn_records() -> tuple[tuple[str, TurnRecord], ...]:
    """The registered modules' ``turn_record``s, made once per registry size: what a position's turn is read by
    (a turn holding a key no base turn has completes the registry first, engine/position.py)."""
    kept = _TURN_RECORDS[0] if _TURN_RECORDS else None
    if kept is None or kept[0] != len(_MODULES):
        units = tuple(_MODULES.values())  # (at once: another thread may be registering the folders)
        kept = (len(units), tuple((m.name, m.turn_record) for m in units if m.turn_record is not None))
        _TURN_RECORDS[:] = [kept]
    return kept[1]


def copy_turn_records(records: dict[str, Any]) -> dict[str, Any]:
    """A copy of a turn's module records (``Turn.modules``), each by its module's ``TurnRecord.copy`` (none:
    shared)."""
    out = {}
    for name, rec in records.items():
        m = _unit(name)
        how = m.turn_record.copy if m is not None and m.turn_record is not None else None
        out[name] = rec if how is None else how(rec)
    return out


def copy_slot(name: str, slot: Any) -> Any:
    """A copy of module ``name``'s slot in ``state.modules`` (the slot itself when the module says it is
    immutable)."""
    m = _unit(name)
    return slot if m is None or m.copy is None else m.copy(slot)


def shared_slots(state: RaceState) -> tuple[Any, ...]:
    """The slots of ``state.modules`` that copies share (a module with no ``copy``: immutable, replaced by the
    event that changes it, as the weather's draws): a memo of what the race's Rules answer keys on them (the
    bots' track plan keyed on the road conditions). () in a base race."""
    own = state.modules
    if not own:
        return ()
    out = []  # (a loop, not a generator: a weather race's bot asks at every plan, issue 32)
    for k, v in own.items():
        m = _unit(k)
        if m is not None and m.copy is None:
            out.append(v)
    return tuple(out)


def in_race(state: RaceState) -> Iterator[Module]:
    """The registered modules the race plays with, by ``rank`` (the order their Rules compose)."""
    listed = state.rules.modules
    if not listed:
        return
    yield from ranked(listed)


def ranked(names: Iterator[str] | tuple[str, ...] | list[str]) -> list[Module]:
    """The registered modules of ``names``, by ``rank`` (then registration order); unknown names are left out.
    A name not registered yet completes the registry first (a race listing a module loads it)."""
    wanted = set(names)
    if not wanted <= _MODULES.keys():
        complete()
    units = tuple(_MODULES.values())  # (at once: another thread may be registering the folders)
    return sorted((m for m in units if m.name in wanted), key=lambda m: m.rank)


def of_event(kind: str) -> Module | None:
    """The module whose event type ``kind`` is (None: a base type, or unknown)."""
    from .events import entry_of

    entry = entry_of(kind)
    return _unit(entry.module) if entry is not None and entry.module != "base" else None


def notation_of(kind: str) -> Notation | None:
    """The notation a module declares for its event type ``kind``, if any."""
    m = of_event(kind)
    return m.notation.get(kind) if m is not None else None


def notation_kinds() -> frozenset[str]:
    """The recorder's question kinds the modules' notations name (``Notation.kind``): an answer to one of them is
    read by the notation of the event the race waits for."""
    return frozenset(n.kind for m in whole().values() for n in m.notation.values())


def event_words(ev: Event, cards: Callable[[list[str]], str]) -> str | None:
    """A module's event in a few words (``Module.event_words``, else its ``notation``'s ``words``); None for a
    base event or an unknown kind. ``cards(tokens)`` words the cards the event names."""
    kind = ev.get("type")
    m = of_event(kind) if isinstance(kind, str) else None
    if m is None:
        return None
    if m.event_words is not None:
        said = m.event_words(ev, cards)
        if said is not None:
            return said
    told = m.notation.get(str(kind))
    return told.words(ev) if told is not None else None


def before_decks(phase: str) -> tuple[str, str] | None:
    """The words and the rules item that refuse a starting shuffle or draw in the set-up ``phase`` a module
    adds (``Module.before_decks``), or None."""
    if phase in BASE_PHASES:
        return None  # (a base phase: no module's, and a base race asks at every shuffle and draw)
    for m in whole().values():
        said = m.before_decks.get(phase)
        if said is not None:
            return said
    return None


def unplayable(phase: str) -> tuple[str, str, str] | None:
    """Why a play-out cannot start from the set-up ``phase`` (``Module.unplayable``): (the phase in words, why,
    the rules item), or None: a play-out may start there."""
    for m in whole().values():
        said = m.unplayable.get(phase)
        if said is not None:
            return said
    return None


def setup_phases() -> frozenset[str]:
    """Every phase a race can stand in: the base's and every module's."""
    return frozenset((*BASE_PHASES, *(p for m in whole().values() for p in m.phases)))


def chance_event(state: RaceState, rng: random.Random) -> Event | None:
    """The modules' chance draw the race waits for, if one of them draws it."""
    for m in in_race(state):
        if m.chance is not None:
            ev = m.chance(state, rng)
            if ev is not None:
                return ev
    return None


def summary(state: RaceState) -> dict[str, Any]:
    """The facts every module of the race adds to a simulated race's JSON (``Module.summary``), in rank order."""
    out: dict[str, Any] = {}
    for m in in_race(state):
        if m.summary is not None:
            out.update(m.summary(state))
    return out


def summary_words(race: Mapping[str, Any]) -> list[str]:
    """Every registered module's words on a simulated race's JSON (``Module.summary_words``), for its title."""
    out: list[str] = []
    for m in whole().values():
        said = m.summary_words(race) if m.summary_words is not None else None
        if said is not None:
            out.append(said)
    return out


def race_words(state: RaceState) -> list[str]:
    """Each module of the race in a few words, in rank order, for a header: its ``summary_words`` of its
    ``summary`` (its options, as ``simulate``'s title says them), else its name (a weather race before its tile is
    drawn: "weather")."""
    out: list[str] = []
    for m in in_race(state):
        said = m.summary_words(m.summary(state)) if m.summary is not None and m.summary_words is not None else None
        out.append(said or m.name)
    return out


def marks(state: RaceState) -> list[str]:
    """The lines every module of the race shows on the board and under the HTML replay's circuit (its view
    pieces, ``Module.marks``), in rank order."""
    out: list[str] = []
    for m in in_race(state):
        if m.marks is not None:
            out.extend(m.marks(state))
    return out


def rules_lines(state: RaceState) -> list[str]:
    """The rules every module of the race sets, in words (``Module.rules_lines``), in rank order."""
    out: list[str] = []
    for m in in_race(state):
        if m.rules_lines is not None:
            out.extend(m.rules_lines(state))
    return out


def press_corners(state: RaceState) -> set[int] | None:
    """The lines that are press corners this race (``Module.press_corners``); None when no module of the race
    chooses them."""
    for m in in_race(state):
        if m.press_corners is not None:
            return m.press_corners(state)
    return None


def car_facts(state: RaceState, name: str) -> dict[str, str | None]:
    """The facts every module of the race adds about car ``name`` (``Module.car_facts``), label -> words."""
    out: dict[str, str | None] = {}
    for m in in_race(state):
        if m.car_facts is not None:
            out.update(m.car_facts(state, name))
    return out


def react_hint(state: RaceState, car: Car) -> str:
    """What every module of the race says about ``car``'s place for the React question (``Module.react_hint``)."""
    return "".join(m.react_hint(state, car) for m in in_race(state) if m.react_hint is not None)


def car_cards(state: RaceState, name: str) -> list[str]:
    """The cards beyond the base car ``name`` owns, every module of the race's (``Module.car_cards``)."""
    out: list[str] = []
    for m in in_race(state):
        if m.car_cards is not None:
            out.extend(m.car_cards(state, name))
    return out


def card_typed(word: str, cards: Mapping[str, Any], held: Collection[str] | None = None) -> str | None:
    """The token a host's ``word`` names among the race's ``cards`` beyond the base, read by the registered
    module that reads them (``Module.card_typed``); None when no module does."""
    for m in whole().values():
        if m.card_typed is not None:
            return m.card_typed(word, cards, held)
    return None


def cards_held(state: RaceState, name: str) -> frozenset[str]:
    """The tokens of every card car ``name`` can hold in this race: its deck and hand, discard pile, Play Area
    and its own cards beyond the base (``Module.car_cards``: its upgrades, # 18.5); a typed card's name means one
    of them first. Empty for a name that is no car."""
    car = state.cars.get(name)
    if car is None:
        return frozenset()
    tokens = {c for c, n in car.pool.items() if n > 0} | set(car.discard)
    turn = state.turn
    if turn is not None and turn.car == name:
        tokens.update(turn.played)
    tokens.update(car_cards(state, name))
    return frozenset(tokens)


def react_word(state: RaceState, name: str, word: str, cards: Callable[[str], list[str]]) -> Event | None:
    """The event a word of car ``name``'s line means to a module of the race (``Module.react_word``), or None."""
    for m in in_race(state):
        if m.react_word is not None:
            ev = m.react_word(state, name, word, cards)
            if ev is not None:
                return ev
    return None


def react_answer(ev: Event, nm: Callable[[str], str], modules: Collection[str]) -> str | None:
    """The word a module of the race (``modules``: race_started's list) types for ``ev`` on a car's line
    (``Module.react_answer``), or None."""
    for m in ranked(tuple(modules)):
        if m.react_answer is not None:
            said = m.react_answer(ev, nm)
            if said is not None:
                return said
    return None


def ask(state: RaceState, w: Waiting) -> Ask | None:
    """A module's own question inside a car's turn (``Module.ask``), or None."""
    for m in in_race(state):
        if m.ask is not None:
            asked = m.ask(state, w)
            if asked is not None:
                return asked
    return None


def turn_answer(kind: str) -> TurnAnswer | None:
    """How the recorder reads an answer to a module's question ``kind`` inside a car's turn
    (``Module.turn_answers``), or None: not a module's question (the recorder reads its own)."""
    for m in whole().values():
        told = m.turn_answers.get(kind)
        if told is not None:
            return told
    return None


def grid_given(race_started: Mapping[str, Any]) -> bool:
    """Whether a module's block of ``race_started`` says the race's grid is given by its season
    (``Module.grid_given``)."""
    return any(
        m.grid_given(race_started[name])
        for name, m in whole().items()
        if m.grid_given is not None and name in race_started
    )


def react_help(state: RaceState) -> str:
    """The words of every module's own React answers (``Module.react_help``), for the React question's hint."""
    return "".join(m.react_help for m in in_race(state))


def react_offers(state: RaceState, options: list[Event], label: Callable[[str], str]) -> tuple[list[str], list[str]]:
    """The answers every module of the race opens at the React question (``Module.react_offers``), in rank order:
    (the prompt's words, the Tab completions)."""
    words: list[str] = []
    answers: list[str] = []
    for m in in_race(state):
        if m.react_offers is not None:
            said, typed = m.react_offers(options, label)
            words += said
            answers += typed
    return words, answers


def react_pending(state: RaceState, turn: Turn) -> bool:
    """Whether React ends with a module's own chance still due (``Module.react_pending``)."""
    return any(m.react_pending(state, turn) for m in in_race(state) if m.react_pending is not None)


def discard_words(state: RaceState, car: Car, turn: Turn) -> str:
    """What the car may still do at the discard, every module's words (``Module.discard_words``)."""
    return "".join(m.discard_words(state, car, turn) for m in in_race(state) if m.discard_words is not None)


def spaces_moved(state: RaceState, turn: Turn) -> int:
    """The spaces ``turn`` moved at step 3 and by React moves, as a module of the race may count them
    (``Module.spaces_moved``), else as the turn counts them."""
    for m in in_race(state):
        if m.spaces_moved is not None:
            n = m.spaces_moved(turn)
            if n is not None:
                return n
    return turn.spaces_moved


def turn_row(state: RaceState, turn: Turn) -> TurnRow | None:
    """``turn``'s row as a module of the race plays it (``Module.turn_row``: a Legend's, # 19.7), else None."""
    for m in in_race(state):
        if m.turn_row is not None and (row := m.turn_row(turn)) is not None:
            return row
    return None


def removed_cards(state: RaceState) -> Callable[[Turn], list[str]]:
    """How to read the cards a turn's records of the race's modules took out of the game (``Module.removed_cards``,
    event 18's Heat, MA23), in module order: the reader is made once for a race (its modules never change)."""
    readers = tuple(m.removed_cards for m in in_race(state) if m.removed_cards is not None)

    def read(turn: Turn) -> list[str]:
        return [source for r in readers for source in r(turn)]

    return read


def card_namer(state: RaceState) -> Callable[[RaceState, str], str] | None:
    """How a module of the race names its cards in the narration (``Module.card_name``), or None."""
    for m in in_race(state):
        if m.card_name is not None:
            return m.card_name
    return None


_T = TypeVar("_T")
_READ: dict[tuple[Any, str], Any] = {}  # read_once's answers


def read_once(read: Callable[[Any], _T], data: Any) -> _T:
    """``read(data)``, kept by what it reads: a module's ``race_started`` block read into rules that never change
    (the weather's tiles, the Legend deck), so that every race on the same data shares one answer (a simulated
    Legends race read its deck three times, every weather race its tiles anew: issue 32). The key is ``repr``,
    type for type (``1``, ``True`` and ``1.0``, a list and a tuple differ); data that is not a dict, is very long or
    too deep is read each time. A refusal (``ValueError``) is never kept: it is raised again."""
    key = None
    if type(data) is dict:
        try:
            text = repr(data)
        except RecursionError:
            text = ""
        if 0 < len(text) < 100_000:
            key = (read, text)
            hit: _T | None = _READ.get(key)
            if hit is not None:
                return hit
    answer = read(data)
    if key is not None:
        if len(_READ) >= 16:
            _READ.clear()
        _READ[key] = answer
    return answer


def copy_data(data: Any) -> Any:
    """A copy of JSON data (dicts, lists, strings, numbers, true/false/null) for a block a module embeds in
    ``race_started``, as ``copy.deepcopy`` gives it but several times faster (every simulated race copies its
    modules' data files: issue 32); anything else is handed to ``copy.deepcopy``."""
    kind = type(data)
    if kind is dict:
        return {k: copy_data(v) for k, v in data.items()}
    if kind is list:
        return [copy_data(v) for v in data]
    if kind is str or kind is int or kind is float or kind is bool or data is None:
        return data
    return copy.deepcopy(data)


def lazy(package: str, name: str) -> Any:
    """The function ``name`` of the module ``package`` (a dotted name), imported at its first call: how the
    catalogue names a module's handler or Rules builder without loading the module's package, which a base race
    never needs (issue 10: start-up), and without an import back from the package into the catalogue (the
    package imports the catalogue's constants; the catalogue names the package's functions)."""
    fn: Any = None

    def call(*args: Any) -> Any:
        nonlocal fn
        if fn is None:
            fn = getattr(importlib.import_module(package), name)
        return fn(*args)

    call.__name__ = call.__qualname__ = name
    return call


def descriptors() -> list[Module]:
    """Every module folder's descriptor, by ``Module.order`` then name, without registering any (no Rules, no
    catalogue: what a command line needs to build its options costs the folders' ``__init__`` files alone)."""
    from . import modules as package
    from .unit import Module

    found: list[Module] = []
    for folder in _packages_in(package.__path__):
        unit = getattr(importlib.import_module(f"{package.__name__}.{folder}"), "MODULE", None)
        if isinstance(unit, Module):
            found.append(unit)
    return sorted(found, key=lambda m: (m.order, m.name))


def season_units() -> list[Module]:
    """Every module folder's descriptor that a championship season plays (``Module.season``), in the modules'
    order: what the season iterates, registering none (``descriptors``)."""
    return [unit for unit in descriptors() if unit.season is not None]


def flags_for(command: str) -> tuple[list[Module], list[Flag]]:
    """Every module folder's descriptor and their flags for ``command`` (one per parameter, in the modules'
    order); two modules declaring the same parameter is a bug of the second."""
    units = descriptors()
    seen: dict[str, Flag] = {}
    for unit in units:
        for f in (*unit.flags, *(unit.season.result_flags if unit.season is not None else ())):
            if command not in f.commands:
                continue
            if f.param in seen:
                raise RuntimeError(f"{unit.name}: the option {f.param!r} of {command} is another module's")
            seen[f.param] = f
    return units, list(seen.values())


def flag_default(flag: Flag) -> Any:
    """A flag's value when it is not given."""
    if flag.kind == "bool":
        return bool(flag.default)
    if flag.kind == "int":
        return flag.default if flag.default is not None else 0
    return flag.default


def from_flags(unit: Module, values: Mapping[str, Any], command: str, data: Any) -> Any:
    """Module ``unit``'s options from the values of its flags for ``command`` (``Module.from_flags``; without
    one, its switch puts it in the race with its ``example`` block), or None: not in the race."""
    if unit.from_flags is not None:
        return unit.from_flags(values, command, data)
    if any(values.get(f.param) for f in unit.flags if command in f.commands) and unit.example is not None:
        return unit.example(data)
    return None


def discover() -> None:
    """Register every module that is a folder of ``engine/modules/`` (its ``__init__`` defines ``MODULE``), by
    ``Module.order`` then name: the runner of ``events.complete`` (installed by rules.py), which calls it once, when
    a race or a reader first needs a module. A folder's ``__init__`` holds its descriptor only (its hooks import the
    rest at their first call)."""
    for unit in descriptors():
        if unit.name not in _MODULES:
            register_unit(unit)


def _packages_in(paths: Iterable[str]) -> list[str]:
    """The names of the packages (folders with an ``__init__.py``) in ``paths``, as ``pkgutil.iter_modules``
    lists them, without importing ``pkgutil`` (its import was a fifth of the discovery, at every start)."""
    names: list[str] = []
    for path in paths:
        try:
            entries = sorted(os.listdir(path))
        except OSError:
            continue
        for name in entries:
            if name.isidentifier() and name not in names and os.path.isfile(os.path.join(path, name, "__init__.py")):
                names.append(name)
    return names
