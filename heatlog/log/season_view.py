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
    draft_leftovers,
    next_grid,
    race_points,
    race_values,
    sponsor_deck,
    standings,
)
from ..engine.modules.garage import garage_slot
from ..engine.modules.garage.cards import GarageOptions
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

    @property
    def garage(self) -> GarageOptions | None:
        """The Garage of the season's races (# 21.2: one upgrade drafted before each race; sponsorship cards,
        # 21.4-21.7, come with it), or None for a season without it."""
        data = self.options.get("garage")
        if data is None:
            return None
        return GarageOptions.from_dict(
            {"upgrades": data["upgrades"], "draft": "draft", "expansions": data["expansions"]}
        )


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


def season_view(
    log: RaceLog, season: int, damaged: Callable[[DamagedLog], None] | None = None
) -> SeasonView:
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
            if view.garage is not None:
                sr.upgrades, sr.sponsors = outcome.upgrades, outcome.sponsors
                sr.sponsors_used, sr.box = outcome.sponsors_used, outcome.box
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
#: names the option typed, not a schema field.
RESULT_OPTIONS = {
    "places": "--places",
    "eliminated": "--eliminated",
    "grid": "--grid",
    "market": "--market",
    "picks": "--pick",
    "swap": "--swap",
    "dealt": "--dealt",
    "press": "--press",
    "event": "--event-card",
    "used": "--used",
}


@dataclass(frozen=True)
class ResultOutcome:
    """What a race entered by its result (``race_result``) gives the season, as the rules make it of the facts
    entered: its points (# 21.10) and, in a season with the Garage, the upgrades each driver owns after its draft
    (# 21.2, 21.11), the sponsorship cards each still holds (MA7), the one-time cards out of the supply (# 18.24)
    and what the draft put in the box (# 18.5)."""

    result: RaceResult
    upgrades: dict[str, list[str]] = field(default_factory=dict)
    sponsors: dict[str, list[str]] = field(default_factory=dict)
    sponsors_used: dict[str, int] = field(default_factory=dict)
    box: dict[str, int] | None = None


class Refusal:
    """Makes the refusals of one result entry: each names the season, the race, the car, the option and the
    input typed, and the rule."""

    def __init__(self, view: SeasonView, index: int) -> None:
        sr = view.races[index - 1]
        self.where = f"season {view.id} ({view.name}), race {index} of the season ({sr.track.get('name')})"

    def __call__(
        self, what: str, rule: str, *, car: str | None = None, option: str | None = None, given: Any = None
    ) -> IllegalEvent:
        head = self.where + (f", car {car}" if car else "")
        head += f", {RESULT_OPTIONS.get(option, option)}" if option else ""
        shown = f" {given!r}" if given is not None else ""
        return IllegalEvent(f"{head}{shown}: {what}; nothing was written", rule=rule)


def result_outcome(view: SeasonView, index: int, entry: Event) -> ResultOutcome:
    """Check a ``race_result`` of race ``index`` against the rules and the season's state before it (``view``
    holds the races before it), and say what it gives the season. Asked when it is entered, every time the season
    is read, and on import: the rules are the engine's (a race set up from the season as :func:`race_setup` makes
    it, fed the draft's events; its sponsorship deck; the championship module's press-corner and points rules),
    never a second copy. Raises :class:`IllegalEvent` naming season, race, car, option, input and rule."""
    from ..engine.decide import waiting_for  # noqa: PLC0415
    from ..engine.modules.championship.rules import press_cards_earned, press_lines  # noqa: PLC0415

    refuse = Refusal(view, index)
    sr = view.races[index - 1]
    names = view.cars  # the drivers and the Legends (# 19.16): every car finishes and scores (# 21.10)
    drivers = [d["name"] for d in view.drivers]  # only they draft and take sponsorship cards (# 19.10, 19.12)
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
    elif view.garage is not None and index == 1:
        raise refuse("the first race's draft picks from the car last on the grid: give --grid", "21.2", option="grid")
    grid = list(grid or due or names)
    ev, _ = race_setup(view, index)
    state = apply(None, ev)
    state = apply(state, {"type": "grid_set", "v": 1, "order": grid})
    pts = race_points(places, sr.event, frozenset(gone), table=view.options.get("points", POINTS))
    result = RaceResult(tuple(places), frozenset(gone), points=pts)
    draft, sponsors = entry.get("draft"), entry.get("sponsors")
    if view.garage is None:
        if draft is not None or sponsors:
            first: dict[str, Any] = next(iter((sponsors or {}).values()), {})
            option = "picks" if draft is not None else next(iter(first), "dealt")
            why = "a season without the Garage has no draft and no sponsorship cards"
            raise refuse(why, "21.2, 21.4", option=option)
        return ResultOutcome(result)
    if draft is None:
        raise refuse("the draft before the race: give --pick NAME:CARD for every driver", "21.2", option="picks")
    picks = dict(draft.get("picks") or {})
    for car in picks:
        if car not in drivers:
            raise refuse(f"no driver {car} in the season", "21.2", car=car, option="picks", given=car)
    from ..engine.modules.garage.words import card_label  # noqa: PLC0415  (cards are said by name, never by token)

    catalogue = ev.get("cards") or {}

    def named(*tokens: str) -> str:
        return " ".join(card_label(t, catalogue) for t in tokens)

    market: Event = {"type": "garage_market", "v": 1, "round": 1}
    if draft.get("market") is not None:
        market["cards"] = list(draft["market"])
    made: list[Event] = []

    def feed(event: Event, option: str, car: str | None = None, given: Any = None) -> None:
        nonlocal state
        try:
            state = apply(state, event)
        except HeatlogError as err:  # the engine's words and rule, said of the option typed (never the event)
            raise refuse(err.message, err.rule or "21.2", car=car, option=option, given=given) from None
        made.append(event)

    feed(market, "market", given=named(*market.get("cards", [])) or None)
    while (w := waiting_for(state)).due == "upgrade_picked" and w.cars:
        car = w.cars[0]
        if car not in picks:
            raise refuse(f"{car} picks next: give --pick {car}:CARD", "21.2", car=car, option="picks")
        feed({"type": "upgrade_picked", "v": 1, "car": car, "card": picks[car]}, "picks", car, named(picks[car]))
    swap = draft.get("swap")
    if waiting_for(state).due == "upgrade_swapped":
        car = waiting_for(state).cars[0]
        shown = f"{named(swap['give'])}:{named(swap['take'])}" if swap else None
        feed({"type": "upgrade_swapped", "v": 1, "car": car, **(swap or {})}, "swap", car, shown)
    elif swap is not None:
        raise refuse("this season's draft has no swap (--no-swap)", "MA11", option="swap", given=swap)
    garage = garage_slot(state)
    assert garage is not None
    upgrades = {n: sorted(garage.owned.get(n, [])) for n in drivers}
    deck = sponsor_deck(state)
    deck = deck.copy() if deck is not None else None
    block = ev["championship"]
    carried = {n: list(cs) for n, cs in block["sponsors"].get("carried", {}).items()}
    sponsors = dict(sponsors or {})
    for car in sponsors:
        if car not in drivers:
            raise refuse(f"no driver {car} in the season", "21.4", car=car, option="dealt", given=car)
    laps = int(ev["laps"])
    track = state.track
    # # 21.7: one card (event 11: two) per press line per lap at most, whichever way it is earned (MA4: never Adjust)
    per_line = max(
        press_cards_earned(speed=s, limit=0, slipstreamed_across=True, spun_out=False, event=sr.event) for s in (-1, 2)
    )
    press_most = laps * per_line * len(press_lines(track, sr.event))
    card = sr.event
    by_condition = card.first_across_lap_1 or card.speed_record or card.passes_for_card
    held_end: dict[str, list[str]] = {}
    first_across = 0
    racing = [c for c in grid if c in drivers]

    def draw(car: str, option: str, cards: list[str]) -> None:
        for c in cards:  # the race's own sponsorship deck says what it can give (# 21.4, 21.7)
            why = deck.why_not(c) if deck is not None else "no sponsorship deck"
            if why:
                raise refuse(why, "21.4, 21.7", car=car, option=option, given=named(c))
            assert deck is not None
            deck.draw(c)

    for car in racing:  # # 21.4: the event's cards are dealt first, in grid order
        dealt = list((sponsors.get(car) or {}).get("dealt") or [])
        if deck is not None and len(dealt) != min(card.sponsor_cards, deck.left()):
            raise refuse(
                f"{card.name} deals {counted(card.sponsor_cards, 'sponsorship card')} to each driver at the start: "
                f"{car} was dealt {len(dealt)}",
                "21.4",
                car=car,
                option="dealt",
            )
        draw(car, "dealt", dealt)
    for car in racing:  # then the cards earned in the race (# 21.7, 21.8, 21.9) and those played (# 18.24)
        got = sponsors.get(car) or {}
        dealt, press, won, used = (list(got.get(k) or []) for k in ("dealt", "press", "event", "used"))
        if len(press) > press_most:
            lines = len(press_lines(track, card))
            raise refuse(
                f"at most {press_most} press-corner cards in this race ({counted(lines, 'press corner')}, "
                f"{counted(laps, 'lap')}, {per_line} a crossing)",
                "21.6, 21.7",
                car=car,
                option="press",
                given=len(press),
            )
        if won and not by_condition:
            raise refuse(f"{card.name} gives no sponsorship card for a condition met", "21.8", car=car, option="event")
        if won and card.first_across_lap_1 and not (card.speed_record or card.passes_for_card):
            first_across += len(won)
            if len(won) > 1 or first_across > card.first_across_lap_1:
                raise refuse(
                    f"only the first {card.first_across_lap_1} across the line after lap 1 earn one card each",
                    "21.9",
                    car=car,
                    option="event",
                )
        draw(car, "press", press)
        draw(car, "event", won)
        hand = [*carried.get(car, []), *dealt, *press, *won]
        for c in used:
            if c not in hand:
                why = f"{car} held no {named(c)} to play (kept, dealt or earned)"
                raise refuse(why, "18.24", car=car, option="used", given=named(c))
            hand.remove(c)
            if deck is not None:
                deck.used_up(c)
        held_end[car] = sorted(hand)
    return ResultOutcome(
        result,
        upgrades,
        {n: held_end.get(n, []) for n in drivers},
        dict(sorted(deck.used.items())) if deck is not None else {},
        draft_leftovers(made),
    )

