"""Championship seasons (MODULES.md 21): a season is its own stream in the database, beside its races.

A season stream holds facts only, like a race's log: ``season_started`` (the races in order, each with its full
track object and event card, the drivers, the options, the mode) and one ``race_entered`` per race started
from it, naming the race by the chain hash of its first event (so the link holds in every database and in
every export), or one ``race_result`` per race a group played without recording it (its finishing order and the
facts the season needs, checked by the rules every time it is read: :func:`result_outcome`; issue 29). Legends
may race in every race (``options.legends``, # 19.16). Everything else is derived: a race's set-up from the
season's state (# 21.8 circuit values, # 21.12 grid), its points from its Hall of Fame (# 21.10), the standings
after each race.

Storage: two tables beside the store's (``seasons``, ``season_events``: append-only, hash-chained like
``events``; schemas in ``schema/season/``), created when the first season is made. A season file is JSON
Lines: the season's events, then each entered race's events (``{"stream": "season"|"race", ...}``); importing
one writes the season and all its races in one transaction, or nothing.

Versions: a ``season_started`` of v2 starts each race with the ``championship`` module and its block
(``race_started.championship``: the season's id and name, the race's index, the event card, the options), so
the race's own Rules apply the event card (engine/modules/championship.py). A v1 season (made before that)
keeps loading: its races carry no block and apply only the laps and the points, and the audit expects exactly
that. A season without the Garage has no sponsorship cards nor press corners (# 21.4: they need the Garage);
:func:`unapplied_effects` names them for each race, and ``heatlog season show`` says so.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .championship import championship_data, event_card, published_season
from .engine import apply
from .engine.errors import HeatlogError, IllegalEvent, MalformedInput, StoreError
from .engine.modules.championship import (
    DRAFT_ORDERS,
    POINTS,
    EventCard,
    RaceResult,
    SeasonGarage,
    Standing,
    draft_leftovers,
    draft_order,
    next_grid,
    race_points,
    race_values,
    sponsors_held,
    standings,
)
from .engine.modules.garage import GarageOptions, garage_deck, market_size
from .engine.track import Track
from .garage_cards import sponsor_cards
from .jsonio import json_lines, loads
from .played_by import PlayedOn, played_on
from .racelog import RaceLog, effective_log
from .races import race_started_event
from .schemas import validate_against
from .store import GENESIS, SEASON_STREAM, DamagedLog, canonical, chain_hash
from .tracks import load_track_data
from .usertext import check_label, name_problem
from .validation import event_errors
from .views import counted

Event = dict[str, Any]

__all__ = [
    "SeasonView",
    "check_season_anchor",
    "hidden_seasons",
    "missing_season_guards",
    "season_anchor",
    "season_chain_problems",
    "audit_season",
    "enter_result",
    "result_entry",
    "result_outcome",
    "export_season",
    "import_season",
    "new_season",
    "next_race",
    "season_events",
    "season_view",
    "seasons",
    "unapplied_effects",
]

#: ... and from a season with the Garage, whose races hold the sponsorship deck (# 21.4-21.9).
SPONSOR_EFFECTS = frozenset(
    {"first_across_lap_1", "speed_record", "passes_for_card", "press_cards", "press_below_limit"}
)
#: Event-card effects a race started from a v1 season applies (its races carry no championship block).
APPLIED_EFFECTS_V1 = frozenset({"laps", "winner_bonus", "podium_bonus"})
#: ... and from a v2 season, through the race's Rules (the sponsorship effects still wait for the Garage).
APPLIED_EFFECTS = APPLIED_EFFECTS_V1 | {
    "heat",
    "stress",
    "hand_size",
    "spinout_eliminates",
    "slipstream_gears",
    "discard_heat",
    "no_adrenaline",
    "max_discard",
    "discard_stress",
    "lap_heat_removed",
}
SEASON_VERSION = 2  # season_started v2: races carry the championship module (v1: laps and points only)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


# ---------------------------------------------------------------------------------------------- storage


def seasons(log: RaceLog) -> list[tuple[int, str | None, str]]:
    """(id, name, created) of every season, oldest first; a season whose row in ``seasons`` was deleted behind
    heatlog's back (:func:`hidden_seasons`) is listed too, without name or date, rather than hidden."""
    return log.store.streams(SEASON_STREAM)


def season_events(log: RaceLog, season: int, *, checked: bool = True) -> list[Event]:
    """The season stream's events in order (StoreError if there is no such season). ``checked``: the stream's
    hash chain is checked first, as every read of a race's log is (a broken chain raises StoreError naming the
    first problem; ``season audit`` lists them all)."""
    return log.store.stream_events(SEASON_STREAM, season, checked=checked)


def hidden_seasons(log: RaceLog) -> list[int]:
    """Seasons whose stream is in the file but whose row in ``seasons`` is not (deleted behind heatlog's back:
    the season was hidden from every list)."""
    return log.store.hidden_streams(SEASON_STREAM)


def season_anchor(log: RaceLog, season: int) -> dict[str, Any]:
    """The anchor of a season stream: ``{"heatlog_anchor": 1, "season": id, "seq": last seq, "head": hash}``."""
    return log.store.stream_anchor(SEASON_STREAM, season)


def check_season_anchor(log: RaceLog, anchor: dict[str, Any]) -> list[str]:
    """What the file says against a season anchor kept elsewhere: the stream is there, reaches the anchor's seq
    (else it was cut short) and its event there has the anchor's hash (else it was rewritten)."""
    return log.store.check_stream_anchor(SEASON_STREAM, anchor)


def missing_season_guards(log: RaceLog) -> list[str]:
    """The season stream's guards the file lacks (only a file holding seasons needs them)."""
    return log.store.missing_stream_guards(SEASON_STREAM)


def stream_problems(events: list[Event]) -> list[str]:
    """What is wrong with a season stream's order: one season_started, first, then each race of the season entered
    once, in order (1, 2, …), as ``enter_race`` writes them; a file or a stream that enters a race twice was read
    as entering it once, and the audit said ok."""
    out = []
    if any(ev.get("type") == "season_started" for ev in events[1:]):
        out.append("the season is started twice (season_started after its first line)")
    indexes = [ev.get("index") for ev in events[1:] if ev.get("type") in ("race_entered", "race_result")]
    races = len(events[0].get("races") or []) if events else 0
    if indexes != list(range(1, len(indexes) + 1)) or len(indexes) > races:
        out.append(
            f"the season's races are entered once each and in order (1 to {races}): the stream enters "
            f"{', '.join(map(str, indexes))}"
        )
    return out


def _verify_chain(log: RaceLog, season: int) -> list[str]:
    return log.store.verify_stream(SEASON_STREAM, season)


def season_chain_problems(log: RaceLog, season: int) -> list[str]:
    """Every problem of the season stream's hash chain (empty: it holds)."""
    return log.store.verify_stream(SEASON_STREAM, season)


def _unentered_races(log: RaceLog, view: SeasonView, entered: set[int]) -> list[str]:
    """Races of this database that say they are race N of the season (race_started.championship names the
    season's link, with the block the season gives race N) while the stream enters no race N: the stream's
    last events were cut off. A race refused at its entry for a block that is not the season's (# 21.11) is
    not one: it never was the season's race."""
    link = view.link
    out: list[str] = []
    for race, payload in log.store.first_events_holding(link):
        try:
            block = json.loads(payload).get("championship") or {}
        except (ValueError, AttributeError):
            continue
        index = block.get("race") if isinstance(block, dict) else None
        if (block.get("season") or {}).get("id") == link and isinstance(index, int) and index not in entered:
            try:
                if block != race_setup(view, index)[0].get("championship"):
                    continue  # not the block the season gives race N: refused at its entry, never the season's
            except (HeatlogError, LookupError, TypeError, ValueError):
                continue
            out.append(
                f"race {race} is race {index} of this season, but the stream does not enter it: the stream was "
                "cut short (its last events removed) or the race was never entered"
            )
    return out


def _race_by_first_hash(log: RaceLog, digest: str) -> int | None:
    return log.store.race_with_hash(1, digest)  # the hash as the file stores it (heatlog.eventrows)


# ---------------------------------------------------------------------------------------------- the season's state


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

    @property
    def legends(self) -> list[dict[str, str]]:
        """The Legend cars of every race (# 19.16; MODULES.md 19), or none."""
        return list((self.options.get("legends") or {}).get("cars", []))

    @property
    def cars(self) -> list[str]:
        """Every car that races and scores: the drivers, then the Legends (# 21.10: Legends score too)."""
        return [d["name"] for d in self.drivers] + [c["name"] for c in self.legends]

    @property
    def over(self) -> bool:
        return all(r.result is not None for r in self.races)

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
        if state.garage is not None:  # # 21.11: the upgrades stay; MA7: the sponsorship cards, if the season keeps them
            drafting = [d["name"] for d in view.drivers]  # # 19.10, 19.12: no upgrades nor sponsorship for Legends
            sr.upgrades = {n: sorted(state.garage.owned.get(n, [])) for n in drafting}
            sr.sponsors = {n: sponsors_held(state, state.cars[n]) for n in drafting}
            sr.sponsors_used = dict(sorted(state.sponsor_deck.used.items())) if state.sponsor_deck else {}
            sr.box = draft_leftovers(evs) if evs is not None else None
        results.append(sr.result)
        view.tables.append(standings(names, results))
    return view


EFFECT_WORDS = {
    "heat": "Engine Heat {0:+d}",
    "stress": "Stress {0:+d}",
    "hand_size": "hand size {0}",
    "first_across_lap_1": "a sponsorship card for the first {0} across the line after lap 1 (# 21.9)",
    "speed_record": "a sponsorship card for a Speed of {0} or more",
    "passes_for_card": "a sponsorship card for passing {0} cars in a turn (MA22)",
    "spinout_eliminates": "a spinout eliminates the car (MA21)",
    "press_cards": "{0} sponsorship cards per press corner",
    "slipstream_gears": "slipstream only in gears {0}",
    "discard_heat": "Heat may be discarded",
    "no_adrenaline": "no adrenaline",
    "max_discard": "at most {0} discard per turn",
    "press_below_limit": "press corners only below the limit",
    "discard_stress": "Stress may be discarded",
    "lap_heat_removed": "a Heat card leaves the game at each lap (MA23)",
}


def unapplied_effects(card: EventCard, version: int = SEASON_VERSION, sponsors: bool = False) -> list[str]:
    """The effects of an event card a race of a season of ``version`` does not apply (see the module
    docstring); ``sponsors``: the season has the Garage, so its races hold the sponsorship cards (# 21.4-21.9)
    and apply everything."""
    data = championship_data()["events"].get(str(card.number), {})
    applied = APPLIED_EFFECTS if version >= 2 else APPLIED_EFFECTS_V1
    if sponsors and version >= 2:
        applied = applied | SPONSOR_EFFECTS
    out = []
    for key, value in data.get("effects", {}).items():
        if key not in applied:
            shown = ", ".join(map(str, value)) if isinstance(value, list) else value
            out.append(EFFECT_WORDS.get(key, key).format(shown))
    if sponsors and version >= 2:
        return out
    if card.sponsor_cards:
        out.append(f"{counted(card.sponsor_cards, 'sponsorship card')} each (# 21.4)")
    if card.press:
        out.append(f"press corner{'s' if len(card.press) > 1 else ''} {', '.join(card.press)} (# 21.6, 21.7)")
    return out


# ---------------------------------------------------------------------------------------------- making seasons


def new_season(
    log: RaceLog,
    *,
    drivers: list[dict[str, str]],
    published: str | None = None,
    races: Sequence[tuple[str, int]] | None = None,
    name: str | None = None,
    grid: str = "standings",
    sponsors_carry_over: bool = True,
    mode: str = "table",
    garage: Mapping[str, Any] | None = None,
    weather: bool = False,
    legends: int = 0,
    pro: int = 0,
    aggressive: bool = False,
) -> int:
    """Set up a season: a published one (``published="1961"``) or a custom list of (track, event card).
    ``garage``: the Garage module in every race ({"upgrades": basic|advanced|all, "expansions": [...]}, # 18.2,
    18.3): one upgrade drafted before each race (# 21.2), and the sponsorship cards with it (# 21.4-21.7).
    ``weather``: the weather and road conditions in every race (MODULES.md 20), revealed after the draft
    (# 21.3: BGA plays every championship race with them)."""
    if (published is None) == (races is None):
        which = "not both" if published is not None else "give one (--published YEAR or --race TRACK:EVENT)"
        raise MalformedInput(f"a season is a published one (1961 ... 1965) or a custom list of races, {which}")
    if published is not None:
        chosen = [(track, card.number) for track, card in published_season(published)]
    else:
        chosen = list(races or [])
        if not chosen:
            raise MalformedInput("a custom season needs at least one race (TRACK:EVENT)")
    names = [d.get("name") for d in drivers]
    if isinstance(legends, bool) or not isinstance(legends, int) or not 0 <= legends <= 5:
        raise MalformedInput(f"--legends {legends!r}: 0 to 5 Legend cars (# 19.2)")
    fewest = 1 if legends else 2  # # 19.16: a solo championship is one driver against Legends
    if not fewest <= len(drivers) <= 6 or len({str(n).casefold() for n in names}) != len(names):
        solo = " (one driver: add --legends N, a solo championship against Legends, # 19.16)"
        solo = solo if len(drivers) == 1 else ""
        raise MalformedInput(
            f"a season has 2 to 6 drivers with distinct names (give --car NAME:COLOUR), not {names}{solo}"
        )
    if len(drivers) + legends > 6:
        raise MalformedInput(f"{len(drivers)} drivers and {legends} Legends: at most 6 cars race (# 19.2)")
    if not legends and (pro or aggressive):
        raise MalformedInput("--pro and --aggressive are Legend options: add --legends N (# 19.14, 19.15)")
    for d in drivers:
        if str(d.get("name", "")).strip().casefold() == "legend":  # the recorder's legend:COLOUR is a Legend
            raise MalformedInput(
                f"legend:{d.get('colour', '')}: a Legend (# 19.1) is not one of a season's drivers, who score and "
                "draft; name the driver (e.g. Ann:black)"
            )
        problem = name_problem(d.get("name"), car=True)  # the one rule for names: a season's are its races'
        if problem:
            raise MalformedInput(f"driver name {d.get('name')!r} {problem}")
    check_label(name, "season name")
    data = championship_data()
    ev: Event = {
        "type": "season_started",
        "v": SEASON_VERSION,
        "at": _now(),
        "name": name or (published if published is not None else "custom season"),
        "races": [
            {"track": load_track_data(track), "event": {"number": number, "card": data["events"][str(number)]}}
            for track, number in ((t, event_card(n).number) for t, n in chosen)
        ],
        "drivers": [{"name": d["name"], "colour": d["colour"]} for d in drivers],
        "options": {"grid": grid, "sponsors_carry_over": sponsors_carry_over, "points": list(data["points"])},
        "mode": mode,
    }
    if garage is not None:
        ev["options"]["garage"] = season_garage_options(garage)
    if weather:
        ev["options"]["weather"] = True
    if legends:  # # 19.16: Legends fill the grid; their colours are the ones the drivers leave (# 19.3)
        from .races import legend_cars  # noqa: PLC0415

        taken = [str(d.get("colour", "")).strip().lower() for d in drivers]
        cars = legend_cars(legends, taken)
        clash = [c["name"] for c in cars if c["name"].casefold() in {str(n).casefold() for n in names}]
        if clash:
            raise MalformedInput(f"driver name {clash[0]!r} is the name of a Legend of the season: name the driver")
        if isinstance(pro, bool) or not isinstance(pro, int) or not 0 <= pro <= 6:
            raise MalformedInput(f"--pro {pro!r}: 0 to 6 (# 19.15)")
        ev["options"]["legends"] = {"cars": cars, "pro": pro, "aggressive": bool(aggressive)}
    if published is not None:
        ev["published"] = published
    validate_against("season/season_started", ev)
    return log.store.new_stream(SEASON_STREAM, ev["name"], [ev])


def season_garage_options(garage: Mapping[str, Any]) -> dict[str, Any]:
    """``season_started.options.garage`` from the user's choice: the upgrades in the Garage deck and the
    expansions (# 18.2, 18.3), who picks first and whether the first picker may swap (MA11, kept configurable:
    BGA's ``lowest_first`` and the swap by default). The draft itself is the championship's (# 21.2)."""
    unknown = sorted(set(garage) - {"upgrades", "expansions", "order", "swap"})
    if unknown:
        raise MalformedInput(f"unknown garage option {unknown[0]!r} (upgrades, expansions, order, swap)")
    try:
        chosen = GarageOptions.from_dict({k: v for k, v in garage.items() if k in ("upgrades", "expansions")})
    except ValueError as exc:
        raise MalformedInput(str(exc)) from None
    order, swap = garage.get("order", "lowest_first"), garage.get("swap", True)
    if order not in DRAFT_ORDERS:
        raise MalformedInput(f"draft order {order!r}: choose {' or '.join(DRAFT_ORDERS)} (MA11)")
    if not isinstance(swap, bool):
        raise MalformedInput("swap must be true or false (MA11)")
    return {"upgrades": chosen.upgrades, "expansions": list(chosen.expansions), "order": order, "swap": swap}


def race_setup(view: SeasonView, index: int, seed: int | None = None) -> tuple[Event, list[str]]:
    """The race_started event and the grid of race ``index`` of the season, as its state says (# 21.8: the
    event card's laps, and in a v2 season the championship module with its block, whose Rules apply the rest
    of the card; # 21.12, MA11: the grid in standings order, leader on pole, or random)."""
    sr = view.races[index - 1]
    track = Track.from_dict(sr.track)
    values = race_values(track, sr.event)
    garage = view.garage
    legends = view.options.get("legends") or {}
    ev = race_started_event(
        track=sr.track,
        cars=view.drivers,
        laps=values.laps,
        mode=view.mode,
        garage=garage.to_dict() if garage is not None else None,
        weather=bool(view.options.get("weather", False)),  # # 21.3: revealed after the draft
        legends=legends.get("cars") or None,  # # 19.16
        pro=int(legends.get("pro", 0)),
        aggressive=bool(legends.get("aggressive", False)),
    )
    if view.version >= 2:
        ev["modules"] = [*ev.get("modules", []), "championship"]
        ev["championship"] = championship_block(view, index)
        if garage is not None:  # # 21.5: the sponsorship cards are the race's cards too
            ev["cards"] = {**ev["cards"], **sponsor_definitions(garage)}
    names = view.cars  # # 19.3: the Legends' places on the first grid are random with the drivers'
    order = next_grid(view.tables[-1], view.options["grid"]) if index > 1 and view.tables else None
    if order is None:
        order = list(names)
        random.Random(seed).shuffle(order)  # # 1.4
    return ev, order


def championship_block(view: SeasonView, index: int) -> dict[str, Any]:
    """``race_started.championship`` of race ``index``: the season, the race, its event card and the season's
    options (engine/modules/championship.py reads it)."""
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
    garage = view.garage
    if garage is not None:
        block["garage"] = garage_setup(view, index).to_dict()
        block["sponsors"] = sponsor_setup(view, index)
    return block


def sponsor_definitions(garage: GarageOptions) -> dict[str, dict[str, Any]]:
    """Token -> definition of the sponsorship cards of a season's races (# 21.5: the base five, and the
    expansions' when their upgrades are in play, as BGA deals them)."""
    return {c["id"]: c for c in sponsor_cards() if c["set"] == "base" or c["set"] in garage.expansions}


def sponsor_setup(view: SeasonView, index: int) -> dict[str, Any]:
    """``championship.sponsors`` of race ``index`` (# 21.4, 21.5, MA7): the sponsorship deck (7 of each type), the
    cards each driver still holds after the previous race when the season keeps them (``sponsors_carry_over``,
    BGA's reading; otherwise they go back to the supply), and the one-time cards used so far that are still out
    of the supply (# 18.24; they come back when it runs out, # 21.7)."""
    garage = view.garage
    assert garage is not None
    deck = {t: int(c["copies"]) for t, c in sponsor_definitions(garage).items()}
    prev = view.races[index - 2] if index > 1 else None
    carried: dict[str, list[str]] = {}
    used: dict[str, int] = {}
    if prev is not None:
        used = dict(prev.sponsors_used)
        if view.options["sponsors_carry_over"]:
            carried = {n: list(cs) for n, cs in prev.sponsors.items() if cs}
    return {"deck": deck, "carried": carried, "used": used}


def garage_setup(view: SeasonView, index: int) -> SeasonGarage:
    """The season's upgrade draft before race ``index`` (# 21.2, 21.11, MA11): the upgrades each driver owns
    after the races before it, the Garage deck the market draws from, and the pick order (the lowest-ranked
    driver first; the first race's is its grid's, the last car first).

    One Garage deck serves the whole season: what a draft leaves (the market's rest, an upgrade swapped back) goes
    to the box, out of the deck, and comes back only when the deck is too short for a market (BGA:
    ``Cards::$autoreshuffleCustom``, upgrades <- box; # 18.5 "removed from the game"). A market recorded by its
    size only leaves the box as it was: the deck is then an upper bound."""
    garage = view.garage
    assert garage is not None
    from .garage_cards import garage_cards  # noqa: PLC0415

    full = garage_deck(garage_cards(), garage)
    need = market_size("draft", len(view.drivers))
    owned: dict[str, list[str]] = {}
    box: dict[str, int] = {}
    deck: dict[str, int] = {}
    for sr in view.races[:index]:
        held = [c for cs in owned.values() for c in cs]
        deck = _minus(full, held)
        if sum(_minus(deck, box).values()) >= need:
            deck = _minus(deck, box)
        else:
            box = {}  # the box is shuffled back into the deck
        if sr.index == index:
            break
        owned = {n: list(cs) for n, cs in sr.upgrades.items()}
        for c, n in (sr.box or {}).items():
            box[c] = box.get(c, 0) + n
    rules = view.options["garage"]
    order, swap = rules.get("order", "lowest_first"), rules.get("swap", True)
    drafting = {d["name"] for d in view.drivers}  # # 19.12: Legends do not draft
    picks = tuple(n for n in draft_order(view.tables[index - 2], order) if n in drafting) if index > 1 else ()
    return SeasonGarage({n: tuple(cs) for n, cs in owned.items() if cs}, deck, picks, order, swap)


def _minus(deck: Mapping[str, int], cards: Sequence[str] | Mapping[str, int]) -> dict[str, int]:
    left = dict(deck)
    pairs = cards.items() if isinstance(cards, Mapping) else ((c, 1) for c in cards)
    for c, n in pairs:
        left[c] = max(0, left.get(c, 0) - n)
    return {c: n for c, n in left.items() if n}


def due_index(view: SeasonView) -> int:
    """The race the season can start or enter next (``season next``, ``season result``): refused when every race
    has been started or entered, or while the race before it is not over (# 21.12: its grid, and its draft, come
    from that result)."""
    index = view.next_index
    if index is None:
        raise IllegalEvent(f"season {view.id} ({view.name}): every race has been started")
    if index > 1 and view.races[index - 2].result is None:
        prev = view.races[index - 2]
        raise IllegalEvent(
            f"season {view.id} ({view.name}): race {index - 1} (race {prev.race}) is not over yet; "
            "the next race's grid and set-up come from its result (# 21.12)"
        )
    return index


def next_race(
    log: RaceLog,
    season: int,
    *,
    seed: int | None = None,
    name: str | None = None,
    handicap: Sequence[str] = (),
) -> int:
    """Start the season's next race from its state and enter it in the season; return the race id.
    ``handicap``: drivers who take the experienced-driver handicap in this race (# 17.2, 21.14: no championship
    handicap exists, the base one may be agreed for any race)."""
    view = season_view(log, season)
    index = due_index(view)
    ev, grid = race_setup(view, index, seed)
    names = [d["name"] for d in view.drivers]
    unknown = [h for h in handicap if h not in names]
    if unknown:
        raise MalformedInput(f"handicap names no driver of the season: {', '.join(unknown)} (# 17.2)")
    ev["handicap"] = list(dict.fromkeys(handicap))
    label = name or f"{view.name} race {index}: {view.races[index - 1].track['name']}"
    race = log.new_race(ev, grid=grid, name=label)
    if view.mode == "table" and view.garage is None:  # # 18.4: with the Garage the draft comes first (the recorder)
        _table_deal(log, race)
    enter_race(log, season, index, race)
    return race


def _table_deal(log: RaceLog, race: int) -> None:
    """What every table does before round 1, in table mode: each car shuffles and draws to the race's hand size
    (# 1.2; 8 or 6 under events 5 and 9, # 21.8): the counts the race itself waits for."""
    from .engine.decide import waiting_for  # noqa: PLC0415

    proj = log.project(race)
    while proj.state.phase == "deal":
        w = waiting_for(proj.state)
        if w.due == "deck_shuffled":
            ev: Event = {"type": "deck_shuffled", "v": 1, "car": w.cars[0]}
        elif w.due == "cards_drawn":
            ev = {"type": "cards_drawn", "v": 1, "car": w.cars[0], "count": w.count}
        else:  # pragma: no cover - the deal waits for nothing else
            break
        _, proj = log.append(race, ev, proj)


def enter_race(log: RaceLog, season: int, index: int, race: int) -> None:
    """Join ``race`` to the season as its race ``index``: refused unless it is the season's next race and its
    set-up is what the season says (circuit, laps, drivers, mode, grid)."""
    view = season_view(log, season)
    if view.next_index != index:
        raise IllegalEvent(f"season {season} ({view.name}): the next race is {view.next_index}, not {index}")
    stored = log.store.events(race)
    if not stored:
        raise IllegalEvent(f"race {race} has no events")
    wrong = setup_problems(view, view.races[index - 1], [e.event for e in stored])
    if wrong:
        raise IllegalEvent(f"race {race} is not race {index} of season {season}: {'; '.join(wrong)}")
    entered: Event = {"type": "race_entered", "v": 1, "at": _now(), "index": index, "race": stored[0].hash}
    validate_against("season/race_entered", entered)
    log.store.append_stream(SEASON_STREAM, season, [entered])


def simulate_season(
    log: RaceLog,
    *,
    published: str | None = None,
    races: Sequence[tuple[str, int]] | None = None,
    cars: int | Sequence[str | dict[str, str]] = 4,
    seed: int = 0,
    bots: Any = "heuristic",
    grid: str = "standings",
    garage: Mapping[str, Any] | None = None,
    weather: bool = False,
    legends: int = 0,
    pro: int = 0,
    aggressive: bool = False,
) -> int:
    """Play a whole season with bots (open mode): every race set up from the season's state, stored and
    entered; return the season id. Race ``k`` is played with seed ``seed + k``. With ``garage`` (as
    :func:`new_season`) the bots draft one upgrade before each race (# 21.2) and play their sponsorship cards;
    ``weather`` (as :func:`new_season`): each race's weather tile and road tokens are drawn."""
    from .simulate import _cars, bot_names, store_race  # noqa: PLC0415  (the simulator is heavy)
    from .simulate.world import play

    roster = _cars(cars)
    season = new_season(
        log,
        drivers=roster,
        published=published,
        races=races,
        grid=grid,
        mode="open",
        garage=garage,
        weather=weather,
        legends=legends,  # # 19.16: a solo championship against Legends (or Legends filling a bigger grid)
        pro=pro,
        aggressive=aggressive,
    )
    drivers = bot_names(bots, [c["name"] for c in roster])
    drafting = {name: _drafting(bot) for name, bot in drivers.items()}
    for index in range(1, len(season_view(log, season).races) + 1):
        view = season_view(log, season)
        ev, order = race_setup(view, index, seed + index)
        ev["seed"] = seed + index
        events, _ = play(ev, drafting, seed + index, grid=order)
        race = store_race(log, events, name=f"{view.name} race {index}: {ev['track']['name']}", bots=drivers)
        enter_race(log, season, index, race)
    return season


def _drafting(bot: Any) -> Any:
    """``bot`` with the season draft's swap (# 21.2): the random bot chooses among the legal swaps itself; any
    other bot gives back its least worth upgrade for the best card left in the market when that is worth more
    (:mod:`heatlog.garage_bots`' values), and otherwise keeps its cards."""
    from .bots import random_bot  # noqa: PLC0415

    if bot is random_bot:
        return bot

    def decide(state: Any, name: str, options: Sequence[Event], rng: random.Random) -> Event | None:
        if options and all(o.get("type") == "upgrade_swapped" for o in options):
            return swap_choice(state, options)
        return bot(state, name, options, rng)

    return decide


def swap_choice(state: Any, options: Sequence[Event]) -> Event:
    """The heuristic's answer to the first picker's swap (# 21.2): the legal swap that gains the most by
    :func:`heatlog.garage_bots.upgrade_value`, or no swap when none gains (first in order on a tie)."""
    from .engine.cards import HEAT  # noqa: PLC0415
    from .garage_bots import upgrade_value  # noqa: PLC0415

    cards = state.garage.cards

    def worth(token: str) -> float:
        return upgrade_value(None if token == HEAT else cards.get(token))

    best, gain = next(o for o in options if "give" not in o), 0.0
    for o in options:
        if "give" in o and worth(o["take"]) - worth(o["give"]) > gain:
            best, gain = o, worth(o["take"]) - worth(o["give"])
    return best


# ---------------------------------------------------------------------------------------------- the audit


def audit_season(log: RaceLog, season: int) -> list[str]:
    """What is wrong with a season: its stream's hash chain, and each entered race whose set-up is not what the
    season says (circuit, laps, drivers, mode, grid). Empty when all is well."""
    events = season_events(log, season, checked=False)  # no such season: refused before its chain is read
    problems = _verify_chain(log, season) + stream_problems(events)
    if season in hidden_seasons(log):
        problems.append(f"season {season} has no row in seasons (deleted: the season was hidden from every list)")
    problems += [f"the append-only guard {g} is missing: the file was altered" for g in missing_season_guards(log)]
    if problems and any("chain" in p or "missing (" in p for p in problems):
        return problems  # its races cannot be read through a stream that does not vouch for itself
    view = season_view(log, season)
    entered = {sr.index for sr in view.races if sr.link is not None}
    problems += _unentered_races(log, view, entered)
    for sr in view.races:
        if sr.problem is not None:
            problems.append(f"race {sr.index} of the season, entered by result: {sr.problem}")
        if sr.link is None:
            continue
        if sr.race is None:
            problems.append(f"race {sr.index} of the season ({sr.link[:12]}…) is not in this database")
            continue
        # the log in force: a grid retracted by an undo and recorded again is the race's grid now (# 21.12)
        events = [e.event for e in log.effective(sr.race).entries]
        problems += [f"race {sr.index} (race {sr.race}): {p}" for p in setup_problems(view, sr, events)]
    return problems


def setup_problems(view: SeasonView, sr: SeasonRace, events: list[Event]) -> list[str]:
    """How race ``sr``'s log (``events``) disagrees with what the season says its set-up is."""
    start = events[0]
    expected, _ = race_setup(view, sr.index)
    out = []
    if start.get("track") != sr.track:
        out.append(f"the circuit is {start.get('track', {}).get('name')!r}, the season says {sr.track['name']!r}")
    if start.get("laps") != expected["laps"]:
        out.append(f"{start.get('laps')} laps, the season says {expected['laps']} (# 21.8, 22.9)")
    if start.get("cars") != expected["cars"]:
        out.append("the cars are not the season's drivers")
    if start.get("mode") != expected["mode"]:
        out.append(f"mode {start.get('mode')}, the season's races are kept in {expected['mode']} mode")
    if start.get("modules") != expected.get("modules"):
        out.append(f"modules {start.get('modules')}, the season says {expected.get('modules')}")
    elif start.get("garage") != expected.get("garage") or start.get("cards") != expected.get("cards"):
        out.append("the Garage options or the race's cards are not the season's (# 21.2, 21.5)")
    elif start.get("championship") != expected.get("championship"):
        block, want = start.get("championship") or {}, expected.get("championship") or {}
        wrong = [k for k in sorted(set(block) | set(want)) if block.get(k) != want.get(k)]
        out.append(f"the championship block differs from the season's in {', '.join(wrong)} (# 21.8)")
    want = standings_grid(view, sr.index)
    grid = next((e.get("order") for e in events if e.get("type") == "grid_set"), None)
    if want is not None and grid != want:
        out.append(f"grid {grid}, the standings give {want} (# 21.12)")
    return out


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


# ---------------------------------------------------------------------------------------------- files


def export_season(log: RaceLog, season: int) -> str:
    """The season as one JSON Lines file: its stream, then each entered race's effective log."""
    lines = [canonical({"stream": "season", "event": ev}).decode() for ev in season_events(log, season)]
    for sr in season_view(log, season).races:
        if sr.race is None:
            continue
        for line in log.store.export_jsonl(sr.race).splitlines():
            lines.append(canonical({"stream": "race", "index": sr.index, "event": json.loads(line)}).decode())
    return "".join(line + "\n" for line in lines)


def import_season(log: RaceLog, text: str, *, source: str = "input") -> int:
    """Import a season file: every line valid, every race legal and linked, or nothing is written."""
    lines, problems = _read_lines(text)
    season_evs: list[Event] = []
    race_evs: dict[int, list[tuple[int, Event]]] = {}
    for number, wrapper in lines:
        stream, ev = wrapper.get("stream"), wrapper.get("event")
        if not isinstance(ev, dict) or set(wrapper) - {"stream", "event", "index"}:
            problems.append(f"line {number}: not a season file line ({{stream, event}})")
        elif stream == "season":
            kind = ev.get("type")
            if kind not in ("season_started", "race_entered", "race_result"):
                problems.append(f"line {number}: unknown season event {kind!r}")
                continue
            try:
                validate_against(f"season/{kind}", ev)
            except MalformedInput as err:
                problems.append(f"line {number}: {err}")
            season_evs.append(ev)
        elif stream == "race" and isinstance(wrapper.get("index"), int):
            problems += [f"line {number}: {p}" for p in event_errors(ev)]
            race_evs.setdefault(wrapper["index"], []).append((number, ev))
        else:
            problems.append(f"line {number}: stream must be season or race (with its index)")
    if not problems and (not season_evs or season_evs[0].get("type") != "season_started"):
        problems.append("the first season line must be season_started")
    if problems:
        raise MalformedInput(f"{source}: {len(problems)} problem(s), nothing imported:\n  " + "\n  ".join(problems))
    wrong = stream_problems(season_evs)
    if wrong:
        raise MalformedInput(f"{source}: {'; '.join(wrong)}, nothing imported")
    links = {ev["index"]: ev["race"] for ev in season_evs[1:] if ev["type"] == "race_entered"}
    if set(links) != set(race_evs):
        raise MalformedInput(f"{source}: the season enters races {sorted(links)}, the file holds {sorted(race_evs)}")
    states: dict[int, Any] = {}
    effective: dict[int, list[Event]] = {}
    for index, numbered in race_evs.items():
        first = numbered[0][1]
        if chain_hash(GENESIS, canonical(first)) != links[index]:
            raise MalformedInput(f"{source}: line {numbered[0][0]}: race {index} is not the race the season entered")
        states[index], effective[index] = _check_race(numbered, source)
    # the audit, before anything is written: each race's set-up is what the season says
    view = build_view(0, season_evs, {link: i for i, link in links.items()}, states.__getitem__, effective.__getitem__)
    wrong = [
        f"race {sr.index}: {p}"
        for sr in view.races
        if sr.race is not None
        for p in setup_problems(view, sr, [ev for _, ev in race_evs[sr.index]])
    ]
    wrong += [f"race {sr.index} (entered by result): {sr.problem}" for sr in view.races if sr.problem is not None]
    if wrong:
        raise IllegalEvent(f"{source}: the races disagree with their season, nothing imported: {'; '.join(wrong)}")
    # one season, one id (the chain hash of its season_started): the same file imported twice made two seasons of
    # one id, and every race twice (heatlog import refuses a log the database holds, as this does)
    name = season_evs[0]["name"]
    races: list[tuple[str, str, list[Event]]] = []
    for index in sorted(race_evs):
        evs = [ev for _, ev in race_evs[index]]
        meta = canonical(
            {
                "track": evs[0]["track"]["id"],
                "mode": evs[0].get("mode"),
                "cars": [c["name"] for c in evs[0].get("cars", [])],
                "laps": evs[0].get("laps"),
                "imported_from": source,
                "season": name,
            }
        ).decode()
        races.append((f"{name} race {index}: {evs[0]['track']['name']}", meta, evs))

    def held(season: int) -> Exception:
        return MalformedInput(f"{source}: season {season} already holds this season: nothing imported")

    return log.store.import_stream(SEASON_STREAM, name, season_evs, races, held)


def _read_lines(text: str) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """(line number, object) of every non-blank line, and the problems of the lines that are not objects
    (read by the one safe JSON reader of every door, :mod:`heatlog.jsonio`)."""
    out: list[tuple[int, dict[str, Any]]] = []
    problems: list[str] = []
    for number, line in json_lines(text):
        if not line.strip():
            continue
        try:
            obj = loads(line, f"line {number}")
        except MalformedInput as err:
            problems.append(str(err).removeprefix("malformed: "))
            continue
        if not isinstance(obj, dict):
            problems.append(f"line {number}: not a JSON object")
            continue
        out.append((number, obj))
    if not out and not problems:
        problems.append("no lines")
    return out, problems


def _check_race(numbered: list[tuple[int, Event]], source: str) -> tuple[Any, list[Event]]:
    """Replay one race of the file through the rules; its final state and its effective events (or the first
    rule it breaks)."""
    if numbered[0][1].get("type") != "race_started":
        raise MalformedInput(f"{source}: line {numbered[0][0]}: a race's first event must be race_started")
    line_of = {i: number for i, (number, _) in enumerate(numbered, start=1)}
    try:
        eff = effective_log([(i, ev) for i, (_, ev) in enumerate(numbered, start=1)])
    except HeatlogError as err:
        raise IllegalEvent(f"{source}: {err}; nothing imported") from None
    state = None
    for entry in eff.entries:
        try:
            state = apply(state, entry.event, atomic=False)
        except HeatlogError as err:
            raise type(err)(f"{source}: line {line_of[entry.seq]}: {err}; nothing imported", input=None) from None
    return state, [entry.event for entry in eff.entries]


# ---------------------------------------------------------------------------------------------- entered by result

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


class _Refusal:
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
    from .engine.decide import waiting_for  # noqa: PLC0415
    from .engine.modules.championship import press_cards_earned, press_lines  # noqa: PLC0415

    refuse = _Refusal(view, index)
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
    from .recorder.garage import card_label  # noqa: PLC0415  (cards are said by name, never by token)

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
    assert state.garage is not None
    upgrades = {n: sorted(state.garage.owned.get(n, [])) for n in drivers}
    deck = state.sponsor_deck.copy() if state.sponsor_deck is not None else None
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


def result_entry(
    view: SeasonView,
    *,
    places: str,
    eliminated: str | None = None,
    grid: str | None = None,
    market: str | None = None,
    picks: Sequence[str] = (),
    swap: str | None = None,
    dealt: Sequence[str] = (),
    press: Sequence[str] = (),
    event: Sequence[str] = (),
    used: Sequence[str] = (),
) -> Event:
    """The ``race_result`` of the season's next race from what a host types (``heatlog season result``): names
    separated by commas, cards by the names the recorder takes (``body5``, ``dramdo``, a unique prefix, a token),
    read by the engine's :func:`~heatlog.engine.modules.garage.card_named`. Checked by the schema and
    :func:`result_outcome` before it is returned; nothing is written here."""
    from .engine.modules.garage import card_named  # noqa: PLC0415
    from .garage_cards import garage_cards  # noqa: PLC0415

    index = due_index(view)
    refuse = _Refusal(view, index)

    def words(text: str | None, option: str) -> list[str]:
        if text is None:
            return []
        if not isinstance(text, str) or len(text) > 2000:
            raise refuse("too long", "21", option=option)
        return [w for w in text.replace(",", " ").split() if w]

    garage = view.garage
    cards: dict[str, Any] = {}
    if garage is not None:
        cards = {c["id"]: c for c in garage_cards()}
        cards.update(sponsor_definitions(garage))

    def card(word: str, option: str, car: str | None = None) -> str:
        if garage is None:
            why = "a season without the Garage has no upgrades and no sponsorship cards"
            raise refuse(why, "21.2, 21.4", option=option)
        try:
            return card_named(word, cards)
        except HeatlogError as err:
            raise refuse(err.message, "18.2, 21.5", car=car, option=option, given=word) from None

    def per_car(specs: Sequence[str], option: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for spec in specs:
            car, sep, rest = str(spec).partition(":")
            if not sep or not car.strip():
                raise refuse("write NAME:CARD[,CARD...]", "21", option=option, given=spec)
            out.setdefault(car.strip(), []).extend(card(w, option, car.strip()) for w in words(rest, option))
        return out

    entry: Event = {"type": "race_result", "v": 1, "at": _now(), "index": index, "places": words(places, "places")}
    if eliminated:
        entry["eliminated"] = words(eliminated, "eliminated")
    if grid:
        entry["grid"] = words(grid, "grid")
    if picks or market or swap:
        chosen = per_car(picks, "picks")
        for car, cs in chosen.items():
            if len(cs) != 1:  # # 21.2: one upgrade per race
                raise refuse(f"{car} picks one upgrade a race, not {len(cs)}", "21.2", car=car, option="picks")
        draft: Event = {"picks": {car: cs[0] for car, cs in chosen.items()}}
        if market:
            draft["market"] = [card(w, "market") for w in words(market, "market")]
        if swap:
            parts = words(swap.replace(":", " "), "swap")
            if len(parts) != 2:
                raise refuse("write GIVE:TAKE (the upgrade given back, the card taken from the market)", "21.2",
                             option="swap", given=swap)
            draft["swap"] = {"give": card(parts[0], "swap"), "take": card(parts[1], "swap")}
        entry["draft"] = draft
    sponsors: dict[str, dict[str, list[str]]] = {}
    for key, specs in (("dealt", dealt), ("press", press), ("event", event), ("used", used)):
        for car, cs in per_car(specs, key).items():
            sponsors.setdefault(car, {})[key] = cs
    if sponsors:
        entry["sponsors"] = sponsors
    try:
        validate_against("season/race_result", entry)
    except MalformedInput as err:  # said of the option typed, not of the schema's field
        said = err.message.removeprefix("season/race_result: ")
        field_path, _, what = said.partition(": ")
        option = next((k for k in ("picks", "market", "swap", *RESULT_OPTIONS) if k in field_path), None)
        raise refuse(what or said, "21", option=option) from None
    result_outcome(view, index, entry)
    return entry


def enter_result(log: RaceLog, season: int, **typed: Any) -> tuple[int, Event]:
    """Enter the season's next race by its result (:func:`result_entry`, checked first: nothing is written on a
    refusal); return its index and the ``race_result`` written to the season's stream."""
    view = season_view(log, season)
    entry = result_entry(view, **typed)
    log.store.append_stream(SEASON_STREAM, season, [entry])
    return int(entry["index"]), entry
