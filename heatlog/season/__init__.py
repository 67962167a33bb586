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
the race's own Rules apply the event card (engine/modules/championship/rules.py). A v1 season (made before that)
keeps loading: its races carry no block and apply only the laps and the points, and the audit expects exactly
that. A season without the Garage has no sponsorship cards nor press corners (# 21.4: they need the Garage);
:func:`unapplied_effects` names them for each race, and ``heatlog season show`` says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ..engine import apply
from ..engine.errors import HeatlogError, IllegalEvent, MalformedInput
from ..engine.module import Module, Said, season_units
from ..engine.modules.championship.rules import EventCard
from ..formats.championship import championship_data, event_card, published_season, season_names
from ..formats.jsonio import json_lines, loads
from ..formats.schemas import validate_against
from ..formats.tracks import load_track_data
from ..formats.usertext import check_label, name_problem
from ..formats.validation import event_errors
from ..formats.words import counted
from ..log.racelog import RaceLog, effective_log
from ..log.season_view import (
    SEASON_VERSION,
    Refusal,
    SeasonRace,
    SeasonView,
    build_view,
    championship_block,
    race_setup,
    result_options,
    result_outcome,
    season_events,
    season_files,
    season_view,
    seasons,
    standings_grid,
)
from ..store import GENESIS, SEASON_STREAM, canonical, chain_hash

Event = dict[str, Any]

__all__ = [
    "SeasonRace",
    "SeasonView",
    "championship_block",
    "race_setup",
    "check_season_anchor",
    "hidden_seasons",
    "missing_season_guards",
    "season_anchor",
    "season_chain_problems",
    "audit_season",
    "enter_result",
    "result_entry",
    "result_options",
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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


# ---------------------------------------------------------------------------------------------- storage


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


# ---------------------------------------------------------------------------------------------- the season's state


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


def unapplied_effects(
    card: EventCard, version: int = SEASON_VERSION, sponsors: bool = False, effects: frozenset[str] | None = None
) -> list[str]:
    """The effects of an event card a race of a season of ``version`` does not apply (see the module
    docstring); ``sponsors``: the season's races hold the sponsorship cards (# 21.4-21.9: a module's, the
    Garage's, ``SeasonView.sponsors``) and apply everything, ``effects`` (``SeasonView.effects``; None: every
    season module's, ``SeasonHook.effects``) with them."""
    data = championship_data()["events"].get(str(card.number), {})
    applied = APPLIED_EFFECTS if version >= 2 else APPLIED_EFFECTS_V1
    if sponsors and version >= 2:
        if effects is None:
            effects = frozenset(e for u in season_units() if u.season is not None for e in u.season.effects)
        applied = applied | effects
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
    modules: Mapping[str, Any] | None = None,
    typed: Mapping[str, str | Sequence[str]] | None = None,
) -> int:
    """Set up a season: a published one (``published="1961"``) or a custom list of (track, event card).
    ``modules``: the modules in every race, their options as one mapping by module name (issue 26, build 5),
    each read by its module's season hook (``Module.season``: the Garage's draft before each race and its
    sponsorship cards, # 21.2, 21.4-21.7; the weather revealed after the draft, # 21.3; Legend cars filling the
    grid, # 19.16; docs/seasons.md); a module without one is refused.

    ``typed``: how the caller's user gave each argument, so that a refusal names it as typed (issue 29):
    ``{"published": "--published 1999", "races": ["--race mars:1", …], "drivers": ["--car Ann:red", …],
    "name": "--name"}`` and each module option by its flag's parameter (``{"legends": "--legends 9"}``,
    ``ModuleFlags.typed_values``); a name is shown after its option; ``"count"``: how the number of drivers was
    given, simulate's ``--cars 1``; an argument not in it is named by its value. Nothing is written when a check
    refuses."""
    said = _Said(typed)
    given = dict(modules or {})
    units = _season_units(given)
    if (published is None) == (races is None):
        which = "not both" if published is not None else "give one (--published YEAR or --race TRACK:EVENT)"
        raise MalformedInput(f"a season is a published one (1961 ... 1965) or a custom list of races, {which}")
    if published is not None:
        try:
            chosen = [(track, card.number) for track, card in published_season(published)]
        except MalformedInput:
            raise MalformedInput(
                f"{said('published', f'season {published!r}')}: not a published season; they are "
                f"{', '.join(season_names())}",
                rule="21.1",
            ) from None
    else:
        chosen = list(races or [])
        if not chosen:
            raise MalformedInput("a custom season needs at least one race (TRACK:EVENT)")
    names = [d.get("name") for d in drivers]
    # the cars the modules add to every race (# 19.16: Legends), counted before the drivers are
    added = sum(u.season.count(given.get(u.name), said) for u in units if u.season and u.season.count is not None)
    fewest = 1 if added else 2  # # 19.16: a solo championship is one driver against Legends
    if len(drivers) < fewest:
        ways = "; ".join(
            f"{u.season.solo}, # {u.season.rule}" if u.season.rule else u.season.solo
            for u in units
            if u.season and u.season.solo
        )
        solo = f" (one driver: {ways})" if len(drivers) == 1 and ways else ""
        count = said("count", "")  # simulate's --cars N, where season new has a --car per driver
        head, give = (f"{count}: ", "") if count else ("", " (give --car NAME:COLOUR for each)")
        raise MalformedInput(f"{head}a season has 2 to 6 drivers{give}, not {len(drivers)}{solo}")
    if len(drivers) > 6:
        raise MalformedInput(f"{said('drivers', f'driver {names[6]!r}', 6)}: a season has at most 6 drivers")
    folded: dict[str, str] = {}
    colours: dict[str, str] = {}
    for i, d in enumerate(drivers):
        who = said("drivers", f"driver {d.get('name')!r}", i)
        driver = str(d.get("name", ""))
        for unit in units:  # a name a module keeps for its own cars (the recorder's legend:COLOUR, # 19.1)
            refused = unit.season.driver_problem(driver) if unit.season and unit.season.driver_problem else None
            if refused:
                raise MalformedInput(f"{who}: {refused}")
        problem = name_problem(d.get("name"), car=True)  # the one rule for names: a season's are its races'
        if problem:
            raise MalformedInput(f"{who}: the name {driver!r} {problem}")
        other = folded.get(driver.casefold())
        if other is not None:
            same = "is the name of another driver" if other == driver else f"differs from {other!r} only in case"
            raise MalformedInput(f"{who}: {driver!r} {same} (names must differ)")
        folded[driver.casefold()] = driver
        colour = str(d.get("colour", ""))
        problem = name_problem(colour)
        if problem:
            raise MalformedInput(f"{who}: the colour {colour!r} {problem}")
        key = colour.strip().casefold()
        if key in colours:  # every race would refuse it (race_started: each car its own colour)
            raise MalformedInput(f"{who}: {colour!r} is the colour of {colours[key]!r} (each car its own)")
        colours[key] = driver
    blocks = _season_blocks(units, given, drivers, said)  # each module's season block (Module.season)
    label = typed.get("name") if typed else None
    check_label(name, label if isinstance(label, str) else "season name")
    data = championship_data()
    setups = []
    for i, (track, number) in enumerate(chosen):
        try:
            card = event_card(number).number
            event = {"number": card, "card": data["events"][str(card)]}
            setups.append({"track": load_track_data(track), "event": event})
        except MalformedInput as err:
            raise MalformedInput(f"{said('races', f'race {i + 1} ({track}:{number})', i)}: {err.message}") from None
    ev: Event = {
        "type": "season_started",
        "v": SEASON_VERSION,
        "at": _now(),
        "name": name or (published if published is not None else "custom season"),
        "races": setups,
        "drivers": [{"name": d["name"], "colour": d["colour"]} for d in drivers],
        "options": {"grid": grid, "sponsors_carry_over": sponsors_carry_over, "points": list(data["points"]), **blocks},
        "mode": mode,
    }
    if published is not None:
        ev["published"] = published
    try:
        validate_against("season/season_started", ev)
    except MalformedInput as err:  # what only the schema says (a colour's length, …): named as typed
        at = re.search(r"\bdrivers\[(\d+)\]\.(name|colour): ", err.message)
        if at is None or int(at[1]) >= len(drivers):
            raise
        who = said("drivers", f"driver {drivers[int(at[1])].get('name')!r}", int(at[1]))
        raise MalformedInput(f"{who}: the {at[2]} {err.message[at.end() :]}") from None
    return log.store.new_stream(SEASON_STREAM, ev["name"], [ev])


def _season_units(given: Mapping[str, Any]) -> list[Module]:
    """The modules a season plays (``Module.season``), in the modules' order; a module given that plays no
    season is refused, naming the ones that do."""
    units = season_units()
    playing = {u.name for u in units}
    other = sorted(set(given) - playing)
    if other:
        hooks = [u.season for u in units if u.season is not None]
        words = [h.words for h in hooks]
        said = " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)
        raise MalformedInput(
            f"module {other[0]!r}: a season's races play {said} only (# {', '.join(h.rule for h in hooks if h.rule)})"
        )
    return units


def _season_blocks(
    units: Sequence[Module], given: Mapping[str, Any], drivers: Sequence[Mapping[str, Any]], said: Said
) -> dict[str, Any]:
    """Each module's block of ``season_started.options`` (``SeasonHook.setup``, by module name: the season
    stream's keys since the first seasons), from the options the caller gave; a module out of the season has
    none."""
    from ..formats.module_data import data_of  # noqa: PLC0415  (a module's data: read with a season that plays it)

    blocks: dict[str, Any] = {}
    for unit in units:
        hook = unit.season
        if hook is None or hook.setup is None:
            continue
        options = given.get(unit.name)
        data = data_of(unit.name) if options is not None and unit.data else None
        block = hook.setup(options, drivers, data, said)
        if block is not None:
            blocks[unit.name] = block
    return blocks


class _Said:
    """How a refusal of :func:`new_season` names an argument: as the user typed it (``typed``), else by
    ``fallback`` (its value)."""

    def __init__(self, typed: Mapping[str, str | Sequence[str]] | None) -> None:
        self.typed = typed or {}

    def __call__(self, key: str, fallback: str, at: int = 0) -> str:
        given = self.typed.get(key)
        if isinstance(given, str):
            return given
        if given is not None and at < len(given):
            return given[at]
        return fallback


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
            f"season {view.id} ({view.name}): race {index - 1} (heatlog race {prev.race}) is not over yet; "
            f"the next race's grid and set-up come from its result: record it (heatlog record --race {prev.race}) "
            "(# 21.12)"
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
    if view.mode == "table":  # # 1.2 (# 18.4: a race in a module's set-up phase, the Garage's draft, deals later)
        _table_deal(log, race)
    enter_race(log, season, index, race)
    return race


def _table_deal(log: RaceLog, race: int) -> None:
    """What every table does before round 1, in table mode: each car shuffles and draws to the race's hand size
    (# 1.2; 8 or 6 under events 5 and 9, # 21.8): the counts the race itself waits for."""
    from ..engine.decide import waiting_for  # noqa: PLC0415

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
    modules: Mapping[str, Any] | None = None,
    typed: Mapping[str, str | Sequence[str]] | None = None,
) -> int:
    """Play a whole season with bots (open mode): every race set up from the season's state, stored and
    entered; return the season id. Race ``k`` is played with seed ``seed + k``. ``modules`` as
    :func:`new_season`: with the Garage the bots draft one upgrade before each race (# 21.2) and play their
    sponsorship cards; with the weather each race's tile and road tokens are drawn; with Legends they fill the
    grid (# 19.16: a solo championship against Legends). ``typed`` (as :func:`new_season`): the options as the
    user typed them, for its refusals."""
    from ..simulate import _cars, bot_names, store_race  # noqa: PLC0415  (the simulator is heavy)
    from ..simulate.world import play

    roster = _cars(cars)
    season = new_season(
        log,
        drivers=roster,
        published=published,
        races=races,
        grid=grid,
        mode="open",
        modules=modules,
        typed=typed,
    )
    drivers = bot_names(bots, [c["name"] for c in roster])
    for index in range(1, len(season_view(log, season).races) + 1):
        view = season_view(log, season)
        ev, order = race_setup(view, index, seed + index)
        ev["seed"] = seed + index
        # (the season draft's swap, # 21.2: the bots ask the championship's bot policy, as every decision)
        events, _ = play(ev, drivers, seed + index, grid=order)
        race = store_race(log, events, name=f"{view.name} race {index}: {ev['track']['name']}", bots=drivers)
        enter_race(log, season, index, race)
    return season


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


def _audited(view: SeasonView, start: Event, expected: Event) -> str | None:
    """The words of the first season module whose keys of race_started differ from the season's
    (``SeasonHook.audited``: the Garage's options and the race's cards, # 21.2, 21.5), or None."""
    for unit, _ in view.blocks:
        hook = unit.season
        if hook is not None and any(start.get(k) != expected.get(k) for k in hook.audited):
            return hook.audit_words
    return None


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
    elif (differs := _audited(view, start, expected)) is not None:
        out.append(differs)
    elif start.get("championship") != expected.get("championship"):
        block, want = start.get("championship") or {}, expected.get("championship") or {}
        wrong = [k for k in sorted(set(block) | set(want)) if block.get(k) != want.get(k)]
        out.append(f"the championship block differs from the season's in {', '.join(wrong)} (# 21.8)")
    want = standings_grid(view, sr.index)
    grid = next((e.get("order") for e in events if e.get("type") == "grid_set"), None)
    if want is not None and grid != want:
        out.append(f"grid {grid}, the standings give {want} (# 21.12)")
    return out


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


#: The first words of a refusal of a file whose lines are not a season's (``MalformedInput.words``).
NOT_A_SEASON = "not a season file"
#: How many of a season file's problems a refusal names (the count says how many there are).
SHOWN_PROBLEMS = 20


def import_season(log: RaceLog, text: str, *, source: str = "input") -> int:
    """Import a season file: every line valid, every race legal and linked, or nothing is written."""
    lines, problems = _read_lines(text)
    if lines and not problems and all("type" in obj and "stream" not in obj for _, obj in lines):
        raise MalformedInput(
            f"{source}: a race's log (heatlog export), not a season file (heatlog season export): import it with "
            "`heatlog import`; nothing imported",
            words=NOT_A_SEASON,
        )
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
    if problems:  # the first 20 named, as the race import does: a wrong file is not a screen of one complaint
        more = [f"… and {len(problems) - SHOWN_PROBLEMS} more"] if len(problems) > SHOWN_PROBLEMS else []
        raise MalformedInput(
            f"{source}: {len(problems)} problem(s), nothing imported:\n  "
            + "\n  ".join(problems[:SHOWN_PROBLEMS] + more),
            words=NOT_A_SEASON,
        )
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
    (read by the one safe JSON reader of every door, :mod:`heatlog.formats.jsonio`)."""
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


def result_entry(
    view: SeasonView,
    *,
    places: str,
    eliminated: str | None = None,
    grid: str | None = None,
    **modules: Any,
) -> Event:
    """The ``race_result`` of the season's next race from what a host types (``heatlog season result``): names
    separated by commas; ``modules``: each season module's options by their ``param`` (``SeasonHook.result_flags``:
    the Garage's ``picks``, ``market``, ``swap``, ``dealt``, ``press``, ``event``, ``used``), read by its
    ``SeasonHook.result_entry`` (a module the season does not play refuses what it is given). Checked by the schema
    and :func:`result_outcome` before it is returned; nothing is written here."""
    index = due_index(view)
    refuse = Refusal(view, index)
    options = result_options()
    for key in modules:
        if key not in options:
            raise TypeError(f"result_entry: no season result option {key!r}")

    def words(text: str | None, option: str) -> list[str]:
        if text is None:
            return []
        if not isinstance(text, str) or len(text) > 2000:
            raise refuse("too long", "21", option=option)
        return [w for w in text.replace(",", " ").split() if w]

    entry: Event = {"type": "race_result", "v": 1, "at": _now(), "index": index, "places": words(places, "places")}
    if eliminated:
        entry["eliminated"] = words(eliminated, "eliminated")
    if grid:
        entry["grid"] = words(grid, "grid")
    for unit in season_units():  # each module's facts, as typed (SeasonHook.result_entry)
        hook = unit.season
        if hook is None or hook.result_entry is None:
            continue
        typed = {f.param: modules.get(f.param) for f in hook.result_flags}
        entry.update(hook.result_entry(view.options.get(unit.name), typed, season_files(unit), refuse, words))
    try:
        validate_against("season/race_result", entry)
    except MalformedInput as err:  # said of the option typed, not of the schema's field
        said = err.message.removeprefix("season/race_result: ")
        field_path, _, what = said.partition(": ")
        option = next((k for k in options if k in field_path), None)
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
