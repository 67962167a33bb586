"""A season's state, derived (MODULES.md 21): the view of its stream and of its races' final states, the set-up
each race of it is due (# 21.8 circuit values, # 21.12 grid), and what a race entered by its result gives it.

Pure over what the store and the race log hand it: it reads the season's stream through ``log.store`` and the
races through the log it is given, and imports neither the log nor the services above it, so the race log's door
asks it for a season race's grid (:func:`grid_due`, # 21.12) without an import circle. :mod:`heatlog.season`
makes, enters, audits and files seasons over it, and still exports every name that moved here."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from ..engine import apply
from ..engine.errors import HeatlogError, IllegalEvent, StoreError
from ..engine.module import Module, season_units
from ..engine.modules.championship.rules import (
    POINTS,
    EventCard,
    RaceResult,
    Standing,
    next_grid,
    race_points,
    race_values,
    standings,
)
from ..engine.track import Track
from ..formats.words import counted
from ..store import GENESIS, SEASON_STREAM, DamagedLog, canonical, chain_hash
from .played_by import PlayedOn, played_on
from .race_start import race_started_event

if TYPE_CHECKING:
    from .racelog import RaceLog

Event = dict[str, Any]


SEASON_VERSION = 2  # season_started v2: races carry the championship module (v1: laps and points only)


def seasons(log: RaceLog) -> list[tuple[int, str | None, str]]:
    """(id, name, created) of every season, oldest first; a season whose row in ``seasons`` was deleted behind
    heatlog's back (:func:`hidden_seasons`) is listed too, without name or date, rather than hidden."""
    return log.store.streams(SEASON_STREAM)


def season_events(log: RaceLog, season: int, *, checked: bool = True) -> list[Event]:
    """The season stream's events in order (StoreError if there is no such season). ``checked``: the stream's
    hash chain is checked first, as every read of a race's log is (a broken chain raises StoreError naming the
    first problem; ``season audit`` lists them all)."""
    return log.store.stream_events(SEASON_STREAM, season, checked=checked)


def _race_by_first_hash(log: RaceLog, digest: str) -> int | None:
    return log.store.race_with_hash(1, digest)  # the hash as the file stores it (heatlog.store.eventrows)


@dataclass
class SeasonRace:
    index: int
    track: dict[str, Any]
    event: EventCard
    card: dict[str, Any] = field(default_factory=dict)  # the event card as the season embeds it
    race: int | None = None  # the race in this database, once entered
    link: str | None = None  # the hash of its first event
    result: RaceResult | None = None  # once it is over
    # once it is over, in a season with the Garage (# 21.2, 21.11, MA7): the upgrades each driver owns, the
    # sponsorship cards each still holds, the one-time cards out of the supply, and what the race's draft put in
    # the Garage box (None: a market recorded by its size only)
    upgrades: dict[str, list[str]] = field(default_factory=dict)
    sponsors: dict[str, list[str]] = field(default_factory=dict)
    sponsors_used: dict[str, int] = field(default_factory=dict)
    box: dict[str, int] | None = None
    # issue 29: how its result came to be: bots played it on from some round (``heatlog play-on``, bug 15), or
    # the group entered its result without recording it (:func:`enter_result`: no race log, not replayable)
    played_on: PlayedOn | None = None
    by_result: bool = False
    entry: Event | None = None  # its race_result, when entered by result
    problem: str | None = None  # why a race_result written past the door does not hold (the standings stop before it)

    @property
    def how(self) -> str:
        """``table`` (recorded), ``bots`` (finished by bots) or ``result`` (entered by its result)."""
        return "result" if self.by_result else "bots" if self.played_on is not None else "table"

    def how_words(self) -> str:
        """What every view says beside the race's result ("" for a race its table recorded)."""
        if self.by_result:
            return "entered by result (not replayable round by round)"
        return self.played_on.words() if self.played_on is not None else ""


@dataclass
class SeasonView:
    id: int
    name: str
    drivers: list[dict[str, str]]
    options: dict[str, Any]
    mode: str
    races: list[SeasonRace]
    tables: list[list[Standing]] = field(default_factory=list)  # standings after each finished race
    version: int = SEASON_VERSION  # season_started's v: 1 = races without the championship module
    link: str = ""  # the chain hash of season_started: the season's id in every database (race_started.championship)

    @property
    def next_index(self) -> int | None:
        """The race to start next (1-based), or None if every race was started."""
        for r in self.races:
            if r.link is None and not r.by_result:
                return r.index
        return None

    @cached_property
    def blocks(self) -> list[tuple[Module, Any]]:
        """Every module the season plays with its season block (``season_blocks``), in the modules' order."""
        return season_blocks(self.options)

    @cached_property
    def module_cars(self) -> list[dict[str, str]]:
        """The cars the season's modules add to every race after the drivers (``SeasonHook.cars``: the Legends,
        # 19.16), or none."""
        out: list[dict[str, str]] = []
        for unit, block in self.blocks:
            if unit.season is not None and unit.season.cars is not None:
                out += unit.season.cars(block)
        return out

    @property
    def cars(self) -> list[str]:
        """Every car that races and scores: the drivers, then the modules' (# 21.10: Legends score too)."""
        return [d["name"] for d in self.drivers] + [c["name"] for c in self.module_cars]

    def module_cars_words(self) -> str:
        """The modules' cars counted in their words ("3 Legends"), "" when there are none."""
        out = []
        for unit, block in self.blocks:
            if unit.season is not None and unit.season.cars is not None and unit.season.cars(block):
                out.append(counted(len(unit.season.cars(block)), unit.season.car_noun))
        return " and ".join(out)

    @property
    def over(self) -> bool:
        return all(r.result is not None for r in self.races)

    @cached_property
    def effects(self) -> frozenset[str]:
        """The event-card effects the season's races apply because of its modules (``SeasonHook.effects``: the
        Garage's sponsorship cards and press corners, # 21.4-21.9)."""
        out: frozenset[str] = frozenset()
        for unit, _ in self.blocks:
            if unit.season is not None:
                out |= unit.season.effects
        return out

    @property
    def sponsors(self) -> bool:
        """Whether the season's races hold the sponsorship cards (# 21.4-21.9: they come with a module, the
        Garage: ``SeasonHook.effects``)."""
        return bool(self.effects)


def season_blocks(options: Mapping[str, Any]) -> list[tuple[Module, Any]]:
    """Every module a season plays with its block of ``season_started.options`` (``Module.season``; kept under the
    module's name), in the modules' order."""
    return [(unit, options[unit.name]) for unit in season_units() if options.get(unit.name) is not None]


def season_files(unit: Module) -> dict[str, Any]:
    """The data files a module's season hook reads (``SeasonHook.files``: the Garage's cards and the sponsorship
    cards), by path under ``heatlog/data/``, read once (the engine reads no file)."""
    return {path: _data_file(path) for path in unit.season.files} if unit.season is not None else {}


@cache
def _data_file(path: str) -> Any:
    from ..formats.module_data import data_file  # noqa: PLC0415

    return data_file(path)


def _started_event(events: list[Event], season: int) -> Event:
    if not events or events[0].get("type") != "season_started":
        raise StoreError(f"season {season} has no season_started event: the database is damaged")
    return events[0]


def season_view(log: RaceLog, season: int, damaged: Callable[[DamagedLog], None] | None = None) -> SeasonView:
    """The season as its stream and its races' logs make it: which races ran, their results, the standings.
    A race whose log is damaged raises :class:`DamagedLog`, or, with ``damaged``, is told to it and the
    standings stop before it, as before a race not over (its result cannot be read)."""
    events = season_events(log, season)
    found: dict[str, int | None] = {}
    for ev in events[1:]:
        if ev.get("type") == "race_entered":
            found[ev["race"]] = _race_by_first_hash(log, ev["race"])

    def final_state(race: int) -> Any:
        try:
            return log.project(race).state
        except DamagedLog as err:
            if damaged is None:
                raise
            damaged(err)
            return None

    return build_view(season, events, found, final_state, lambda race: [e.event for e in log.effective(race).entries])


def build_view(
    season: int,
    events: list[Event],
    races_by_link: dict[str, int | None],
    final_state: Callable[[int], Any],
    race_events: Callable[[int], list[Event]] | None = None,
) -> SeasonView:
    """The season's state from its events, where each linked race is (``races_by_link``: link -> race id or
    None), how a race stands now (``final_state(race)``; None: it cannot be read) and its effective events
    (``race_events(race)``: what its draft left in the box)."""
    start = _started_event(events, season)
    races = [
        SeasonRace(i, r["track"], EventCard.from_dict(r["event"]["number"], r["event"]["card"]), r["event"]["card"])
        for i, r in enumerate(start["races"], start=1)
    ]
    for ev in events[1:]:
        if ev.get("type") == "race_entered":
            sr = races[ev["index"] - 1]
            sr.link, sr.race = ev["race"], races_by_link.get(ev["race"])
        elif ev.get("type") == "race_result" and isinstance(ev.get("index"), int) and 1 <= ev["index"] <= len(races):
            sr = races[ev["index"] - 1]
            sr.by_result, sr.entry = True, ev
    view = SeasonView(
        season,
        start["name"],
        start["drivers"],
        start["options"],
        start["mode"],
        races,
        version=int(start.get("v", 1)),
        link=chain_hash(GENESIS, canonical(start)),
    )
    names = view.cars  # # 21.10, 21.12: the Legends score and stand in the standings too (# 19.16)
    finishers = [u.season.finished for u in season_units() if u.season is not None and u.season.finished is not None]
    results: list[RaceResult] = []
    for sr in races:
        if sr.by_result and sr.entry is not None:  # issue 29: entered by its result, checked by the rules again
            try:
                outcome = result_outcome(view, sr.index, sr.entry)
            except HeatlogError as err:
                sr.problem = str(err)
                break
            sr.result = outcome.result
            for key, value in outcome.gives.items():  # what each module's facts give (SeasonHook.result)
                setattr(sr, key, value)
            results.append(sr.result)
            view.tables.append(standings(names, results))
            continue
        if sr.race is None:
            break
        state = final_state(sr.race)
        if state is None or state.phase != "over":
            break
        evs = race_events(sr.race) if race_events is not None else None
        sr.played_on = played_on(evs) if evs is not None else None
        places = tuple(state.hall_of_fame)
        gone = frozenset(state.eliminated)  # MA12: an eliminated car scores 0
        pts = race_points(places, sr.event, gone, table=view.options.get("points", POINTS))
        sr.result = RaceResult(places, gone, points=pts)
        drafting = [d["name"] for d in view.drivers]  # # 19.10, 19.12: the cars a module adds never draft
        for finished in finishers:  # # 21.11, MA7: what the race gives the next ones (SeasonHook.finished)
            for key, value in finished(state, drafting, evs).items():
                setattr(sr, key, value)
        results.append(sr.result)
        view.tables.append(standings(names, results))
    return view


def race_setup(view: SeasonView, index: int, seed: int | None = None) -> tuple[Event, list[str]]:
    """The race_started event and the grid of race ``index`` of the season, as its state says (# 21.8: the
    event card's laps, and in a v2 season the championship module with its block, whose Rules apply the rest
    of the card; # 21.12, MA11: the grid in standings order, leader on pole, or random)."""
    sr = view.races[index - 1]
    track = Track.from_dict(sr.track)
    values = race_values(track, sr.event)
    modules: dict[str, Any] = {}  # the season's modules, each with its options (issue 26, build 5)
    for unit, block in view.blocks:  # # 19.16, 21.2, 21.3: each module's own (Module.season)
        options = unit.season.race(block) if unit.season is not None and unit.season.race is not None else None
        if options is not None:
            modules[unit.name] = options
    ev = race_started_event(track=sr.track, cars=view.drivers, laps=values.laps, mode=view.mode, modules=modules)
    if view.version >= 2:
        ev["modules"] = [*ev.get("modules", []), "championship"]
        ev["championship"] = championship_block(view, index)
        for unit, block in view.blocks:  # # 21.5: the sponsorship cards are the race's cards too
            if unit.season is not None and unit.season.race_cards is not None:
                ev["cards"] = {**ev["cards"], **unit.season.race_cards(block, season_files(unit))}
    names = view.cars  # # 19.3: the Legends' places on the first grid are random with the drivers'
    order = next_grid(view.tables[-1], view.options["grid"]) if index > 1 and view.tables else None
    if order is None:
        order = list(names)
        random.Random(seed).shuffle(order)  # # 1.4
    return ev, order


def championship_block(view: SeasonView, index: int) -> dict[str, Any]:
    """``race_started.championship`` of race ``index``: the season, the race, its event card and the season's
    options (engine/modules/championship/rules.py reads it)."""
    sr = view.races[index - 1]
    block: dict[str, Any] = {
        "season": {"id": view.link, "name": view.name},
        "race": index,
        "races": len(view.races),
        "event": {"number": sr.event.number, "card": sr.card},
        "options": {
            "grid": view.options["grid"],
            "sponsors_carry_over": view.options["sponsors_carry_over"],
            "points": list(view.options["points"]),
        },
    }
    for unit, _ in view.blocks:  # the draft and the sponsorship cards (# 21.2, 21.4-21.7)
        if unit.season is not None and unit.season.race_block is not None:
            block.update(unit.season.race_block(view, index, season_files(unit)))
    return block


def standings_grid(view: SeasonView, index: int) -> list[str] | None:
    """The grid the season gives its race ``index`` (# 21.12, MA11: the standings after the race before, leader
    on pole), or None where it gives none: the first race, a random grid, an earlier race not finished."""
    if index <= 1 or view.options["grid"] != "standings":
        return None
    before = view.tables[: index - 1]
    return next_grid(before[-1]) if len(before) == index - 1 and before else None


def grid_due(log: RaceLog, race_started: Event) -> list[str] | None:
    """The grid the season gives the race that ``race_started`` starts (``standings_grid``), read from the season
    its championship block names (# 21.8) when that season is in this database; None where there is none to
    give. The door asks it of a grid entered again after an undo (racelog.RaceLog.check)."""
    block = race_started.get("championship")
    if not isinstance(block, dict) or block.get("options", {}).get("grid") != "standings":
        return None
    index, link = block.get("race"), (block.get("season") or {}).get("id")
    if not isinstance(index, int) or index <= 1:
        return None
    for season, _, _ in seasons(log):
        events = season_events(log, season)
        if events and chain_hash(GENESIS, canonical(events[0])) == link:
            view = season_view(log, season)
            return standings_grid(view, index) if index <= len(view.races) else None
    return None


def given_grid(log: RaceLog, race_started: Event) -> tuple[list[str], str, str] | None:
    """The grid a season gives the race ``race_started`` starts, the words that refuse another and their rules
    item (# 21.12: the standings, leader on pole), or None where it gives none. The door asks it of a grid
    entered again after an undo when a module's block says its season gives the grid (``Module.grid_given``;
    racelog.RaceLog.check)."""
    want = grid_due(log, race_started)
    if want is None:
        return None
    index = race_started["championship"]["race"]
    words = f"race {index} of the season starts in the standings order, leader on pole: {' > '.join(want)}"
    return want, words, "21.12"


#: The CLI options a result is typed with (``heatlog season result``), by the field each one fills: every refusal
#: names the option typed, not a schema field; the modules' options (``SeasonHook.result_flags``: the Garage's draft
#: and sponsorship cards) follow, from :func:`result_options`.
RESULT_OPTIONS = {
    "places": "--places",
    "eliminated": "--eliminated",
    "grid": "--grid",
}


def result_options() -> dict[str, str]:
    """Every option of ``heatlog season result`` by the field it fills: the season's own, then each season
    module's (``SeasonHook.result_flags``, in the modules' order)."""
    out = dict(RESULT_OPTIONS)
    for unit in season_units():
        if unit.season is not None:
            for f in unit.season.result_flags:
                out.setdefault(f.param, f.decls[0])
    return out


@dataclass(frozen=True)
class ResultOutcome:
    """What a race entered by its result (``race_result``) gives the season, as the rules make it of the facts
    entered: its points (# 21.10) and what each module's facts give (``SeasonHook.result``: with the Garage, the
    upgrades each driver owns after its draft, # 21.2, 21.11, the sponsorship cards each still holds, MA7, the
    one-time cards out of the supply, # 18.24, and what the draft put in the box, # 18.5), as ``SeasonRace``
    fields by name."""

    result: RaceResult
    gives: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResultRace:
    """A race entered by its result as the season sets it up (``race_setup``) with its grid set: what a module's
    ``SeasonHook.result`` checks its facts against (its ``race_started``, its state, its grid)."""

    started: Event
    state: Any
    grid: list[str]


class Refusal:
    """Makes the refusals of one result entry: each names the season, the race, the car, the option and the
    input typed, and the rule."""

    def __init__(self, view: SeasonView, index: int) -> None:
        sr = view.races[index - 1]
        self.where = f"season {view.id} ({view.name}), race {index} of the season ({sr.track.get('name')})"
        self.options = result_options()

    def __call__(
        self, what: str, rule: str, *, car: str | None = None, option: str | None = None, given: Any = None
    ) -> IllegalEvent:
        head = self.where + (f", car {car}" if car else "")
        head += f", {self.options.get(option, option)}" if option else ""
        shown = f" {given!r}" if given is not None else ""
        return IllegalEvent(f"{head}{shown}: {what}; nothing was written", rule=rule)


def result_outcome(view: SeasonView, index: int, entry: Event) -> ResultOutcome:
    """Check a ``race_result`` of race ``index`` against the rules and the season's state before it (``view``
    holds the races before it), and say what it gives the season. Asked when it is entered, every time the season
    is read, and on import: the rules are the engine's (a race set up from the season as :func:`race_setup` makes
    it, fed the draft's events; its sponsorship deck; the championship module's press-corner and points rules),
    never a second copy; each module's facts are its hook's (``SeasonHook.result``). Raises
    :class:`IllegalEvent` naming season, race, car, option, input and rule."""
    refuse = Refusal(view, index)
    sr = view.races[index - 1]
    names = view.cars  # the drivers and the Legends (# 19.16): every car finishes and scores (# 21.10)
    places = list(entry.get("places") or [])
    twice = sorted({p for p in places if places.count(p) > 1})
    if twice:
        raise refuse(f"{twice[0]} is listed twice: each car finishes once", "16.7", option="places", given=twice[0])
    strangers = [p for p in places if p not in names]
    if strangers:
        raise refuse(
            f"no car of the season is called {strangers[0]} (cars: {', '.join(names)})",
            "21.1",
            option="places",
            given=strangers[0],
        )
    missing = [n for n in names if n not in places]
    if missing:
        raise refuse(f"{', '.join(missing)} missing: give every car's place, the winner first", "16.7", option="places")
    gone = list(entry.get("eliminated") or [])
    if gone and not sr.event.spinout_eliminates:
        raise refuse(
            f"event {sr.event.number} ({sr.event.name}) eliminates nobody: only a spinout under event 10 does",
            "MA21",
            option="eliminated",
            given=gone[0],
        )
    for car in gone:
        if car not in names or gone.count(car) > 1:
            raise refuse("name each eliminated driver once", "MA21", car=car, option="eliminated", given=car)
    if gone and sorted(places[len(places) - len(gone) :]) != sorted(gone):
        why = "an eliminated car takes the last free place: list it last in --places"
        raise refuse(why, "MA21", option="eliminated")
    due = standings_grid(view, index)
    grid = entry.get("grid")
    if grid is not None:
        if sorted(grid) != sorted(names) or len(set(grid)) != len(grid):
            raise refuse(f"the grid is every driver once ({', '.join(names)})", "1.4", option="grid", given=grid)
        if due is not None and list(grid) != due:
            raise refuse(f"the standings give the grid {', '.join(due)}", "21.12", option="grid", given=grid)
    elif index == 1:  # a module whose facts need the first race's grid (the Garage's draft, # 21.2)
        for unit, _ in view.blocks:
            if unit.season is not None and unit.season.result_grid:
                raise refuse(unit.season.result_grid, unit.season.rule, option="grid")
    grid = list(grid or due or names)
    ev, _ = race_setup(view, index)
    state = apply(None, ev)
    state = apply(state, {"type": "grid_set", "v": 1, "order": grid})
    pts = race_points(places, sr.event, frozenset(gone), table=view.options.get("points", POINTS))
    result = RaceResult(tuple(places), frozenset(gone), points=pts)
    race = ResultRace(ev, state, grid)
    gives: dict[str, Any] = {}
    for unit in season_units():  # each module's facts (SeasonHook.result), a module the season does not play too
        if unit.season is not None and unit.season.result is not None:
            block = view.options.get(unit.name)
            gives.update(unit.season.result(view, index, block, race, entry, refuse))
    return ResultOutcome(result, gives)
