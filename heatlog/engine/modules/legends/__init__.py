"""Legend cars (MODULES.md 19): the Legend deck, a Legend's move and turn, one registered unit
(engine/module.py).

``rules.py`` holds its rules; this file holds its descriptor only, light: every hook imports ``rules.py`` at its
first call, so a base race never loads it (issue 10: start-up).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import MalformedInput
from ...events import EventType
from ...module import (
    FactColumn,
    Flag,
    Module,
    Notation,
    SampleRace,
    SeasonHook,
    SetupCars,
    SetupStep,
    TurnRecord,
    TurnRow,
    lazy,
)

if TYPE_CHECKING:
    from ...state import RaceState, Turn
    from .rules import LegendMove

Event = dict[str, Any]
NAME = "legends"


def _start(state: RaceState, ev: Event) -> None:
    """# 19: the Legend deck's data and options, checked against the track and the cars (# 17.2, 19.1, 19.2)."""
    from . import rules as _legends

    rules = _legends.LegendRules.from_dict(ev.get(NAME))  # (ValueError: the race is refused)
    cars = ev.get("cars") or []
    why = _legends.setup_problem(rules, state.track, cars)
    if why:
        raise ValueError(why)
    handicap = ev.get("handicap") or []
    bad = [c["name"] for c in cars if c.get("legend") and c["name"] in handicap]
    if bad:
        raise ValueError(f"{bad[0]} is a Legend: it has no Engine to handicap (# 17.2, 19.1)")
    state.modules[NAME] = _legends.LegendsState(rules, _legends.LegendDeck())


def _setup(options: Any, data: Any, ev: Event) -> Any:
    """# 19.1, 19.14, 19.15: the Legend cars join the race's cars; the block holds the Legend deck (the data
    file's cards) and the two options. No Legend car: the module stays out (its options alone are refused)."""
    from .rules import options_block

    cars = list(options.get("cars") or [])
    pro, aggressive = options.get("pro", 0), options.get("aggressive", False)
    if not cars:
        if pro or aggressive:
            raise ValueError("--pro and --aggressive are Legend options: add Legends (# 19.14, 19.15)")
        return None
    ev["cars"] += [{"name": c["name"], "colour": c["colour"], "legend": True} for c in cars]
    try:
        return options_block(data["cards"], pro, aggressive)
    except ValueError as exc:
        raise ValueError(f"race_started: {exc}") from None


def _copy(own: Any) -> Any:
    return own.copy()


def legend_move_of(turn: Turn) -> LegendMove | None:
    """A Legend's turn: where its card sent it and why (# 19.7-19.14), the Legends' record of the turn in
    ``turn.modules`` (was ``turn.legend``); None for a car's own turn."""
    move: LegendMove | None = turn.modules.get(NAME)
    return move


def _legend_move(d: Any) -> Any:
    from .rules import LegendMove

    return LegendMove(**d)


def _move_to_position(move: LegendMove | None) -> dict[str, Any]:
    """The turn's ``legend`` key, written in every turn (null for a car's own), as when it was ``Turn``'s field."""
    from dataclasses import asdict

    return {"legend": asdict(move) if move is not None else None}


def _move_from_position(d: Mapping[str, Any]) -> Any:
    move = d.get("legend")
    return _legend_move(move) if move is not None else None


def _spaces_moved(turn: Turn) -> int | None:
    """A Legend's turn moved what the card moved it (# 19.7, 19.9); None for a car's own turn."""
    return turn.moved if turn.modules.get(NAME) is not None else None


def _turn_row(turn: Turn) -> TurnRow | None:
    """A Legend's turn in a turn's row (MODULES.md 19.7, 19.8): the card's numbers stand for the cards played, its
    helmet number or the corner's limit + diamond; its speed, the spaces the card sent it; gear "L"."""
    lm = legend_move_of(turn)
    if lm is None:
        return None
    if lm.case == "corner":
        short, long = f"{lm.limit}+{lm.diamond}", f"limit {lm.limit} + diamond {lm.diamond}"
    else:
        short, long = f"h{lm.helmet}", f"helmet {lm.helmet}"
    return TurnRow(short, long, lm.spaces, "L")


def _block(state: RaceState) -> Any:
    own = state.modules.get(NAME)
    if own is None:
        return None
    return {**own.rules.data, "deck": own.deck.to_dict()}


def _back(state: RaceState, block: Any, pos: Mapping[str, Any]) -> None:
    from .rules import LegendDeck, LegendRules, LegendsState

    state.modules[NAME] = LegendsState(LegendRules.from_dict(block), LegendDeck.from_dict(block.get("deck", {})))


def _outcomes(state: RaceState) -> tuple[str, int, list[tuple[Event, float]]] | None:
    """# 19.5, MA9: the round's Legend card, each card not turned since the last reshuffle equally likely (a
    public deck)."""
    turn = state.turn
    if turn is None:
        return None
    own = state.modules[NAME]
    cards = sorted(own.deck.available(own.rules))
    return turn.car, 1, [({"type": "legend_card_revealed", "v": 1, "card": c}, 1 / len(cards)) for c in cards]


def _chance(state: RaceState, rng: random.Random) -> Event | None:
    """# 19.5, MA9: the round's Legend card, any card not turned since the last reshuffle."""
    turn = state.turn
    if state.phase != "race" or turn is None or not state.cars[turn.car].legend:
        return None
    own = state.modules[NAME]
    return {"type": "legend_card_revealed", "v": 1, "card": rng.choice(sorted(own.deck.available(own.rules)))}


def _summary(state: RaceState) -> dict[str, Any]:
    """A simulated race's Legends (``simulate --json``): how many, and their options (# 19.1, 19.14, 19.15)."""
    own = state.modules.get(NAME)
    cars = sum(1 for c in state.cars.values() if c.legend)
    if own is None or not cars:
        return {}
    return {"legends": {"cars": cars, "pro": own.rules.pro, "aggressive": own.rules.aggressive}}


def _summary_words(race: Mapping[str, Any]) -> str | None:
    legends = race.get("legends")
    if not isinstance(legends, dict):
        return None
    n = legends.get("cars", 0)
    words = [f"{n} Legend{'' if n == 1 else 's'}"]
    if legends.get("pro"):
        words.append(f"pro +{legends['pro']}")
    if legends.get("aggressive"):
        words.append("aggressive")
    return ", ".join(words)


def _race_facts(state: RaceState, started: Event) -> tuple[int, int | None, bool | None]:
    """(``legends``, ``pro``, ``aggressive``): how many Legend cars race, and the Legends' options (# 19.1, 19.4)."""
    legends = sum(1 for c in started.get("cars", []) if c.get("legend"))
    if not legends:
        return 0, None, None
    block = started.get(NAME)
    options: dict[str, Any] = block if isinstance(block, dict) else {}
    return legends, options.get("pro", 0), options.get("aggressive", False)


#: The columns it adds to a corpus race (``Module.race_columns``), after the base ``cars``.
RACE_COLUMNS = (
    FactColumn("legends", "int", 0, "Legend cars in the race (# 19.1)"),
    FactColumn("pro", "int", None, "the Legends' pro level (null without Legends)"),
    FactColumn("aggressive", "bool", None, "the Legends' aggressive option (null without Legends)"),
)


def legend_name(colour: str) -> str:
    """A Legend's car name, from its colour: one word, as every car name (``heatlog.formats.usertext``)."""
    return f"Legend-{colour.strip().title()}"


FLAGS = (  # issue 26, build 5: `new` and `simulate` build these flags from the registry
    Flag(
        "legend",
        ("--legend",),
        "A Legend car by its Legend colour (black blue green red gray yellow); once each.",
        "strs",
        commands=("new",),
        cars=True,  # each value is a Legend car, after the players' (a refusal names it)
    ),
    Flag(
        "legends",
        ("--legends",),
        "Legend cars added to the grid (MODULES.md 19), in Legend colours the cars leave free.",
        "int",
        commands=("simulate",),
    ),
    Flag(
        "legends",
        ("--legends",),
        "Legend cars in every race, 1-5 (MODULES.md 19): with one --car, a solo championship against Legends "
        "(# 19.16); they score and stand in the standings, never draft nor take sponsorship cards.",
        "int",
        commands=("season",),
    ),
    # The range in words (rules.MAX_PRO, not imported: it loads the engine's track module at start-up, ~10 ms;
    # tests/test_cli.py holds the two together). _from_flags asks the rules.
    Flag(
        "pro",
        ("--pro",),
        "Pro Legends: +N to every helmet number, 0–6 (MODULES.md 19.15).",
        "int",
        commands=("new", "simulate", "season"),
    ),
    Flag(
        "aggressive",
        ("--aggressive",),
        "Aggressive Legends: chevrons let them cross more corners (19.14).",
        commands=("new", "simulate", "season"),
    ),
)


def _from_flags(values: Mapping[str, Any], command: str, data: Any) -> Any:
    """The Legends' options (``{"cars", "pro", "aggressive"}``; None: no Legends): ``--legend COLOUR`` names each
    car (``new``), ``--legends N`` counts them (``simulate``: the colours the cars leave free); ``--pro`` refused
    in the option's words (# 19.15), not the field's."""
    pro, aggressive = values.get("pro") or 0, bool(values.get("aggressive"))
    if pro != 0:
        from .rules import MAX_PRO

        if isinstance(pro, bool) or not isinstance(pro, int) or not 0 <= pro <= MAX_PRO:
            raise ValueError(f"--pro {pro}: pro Legends add 0 to {MAX_PRO} to every helmet number (# 19.15)")
    named = values.get("legend") or []
    cars: list[dict[str, str]] | int = [{"name": legend_name(c), "colour": c.strip().lower()} for c in named]
    if not named and values.get("legends"):
        cars = int(values["legends"])  # a count: the caller picks the colours (simulate.simulate_race)
    if not cars and not pro and not aggressive:
        return None
    return {"cars": cars, "pro": pro, "aggressive": aggressive}


def _car_count(options: Any) -> int:
    """# 19.1: the Legend cars the options add, named or counted (``{"cars": 2}``: ``simulate --legends 2``)."""
    cars = options.get("cars") if isinstance(options, Mapping) else None
    if isinstance(cars, int) and not isinstance(cars, bool):
        return cars
    return len(cars) if isinstance(cars, list) else 0


def _expand(options: Any, taken: list[str], data: Any) -> Any:
    """# 19.3, 19.4: a count of Legends made into Legend cars in the Legend-card colours the players' cars leave
    free (the data file's ``colours``), named after their colour (``legend_name``: "Legend-Gray")."""
    count = options.get("cars") if isinstance(options, Mapping) else None
    if not isinstance(count, int) or isinstance(count, bool):
        return options
    return {**options, "cars": legend_cars(count, taken, data["colours"]) if count else []}


def legend_cars(count: int, taken: Sequence[str], colours: Sequence[str]) -> list[dict[str, str]]:
    """``count`` Legend cars in the ``colours`` of the Legend cards the players do not use (# 19.3, 19.4)."""
    free = [c for c in colours if c not in taken]
    if count > len(free):
        raise MalformedInput(
            f"{count} Legends need {count} Legend colours the players do not use; free: {', '.join(free) or 'none'}"
        )
    return [{"name": legend_name(c), "colour": c} for c in free[:count]]


def _read_options(text: str, answers: Mapping[str, Any]) -> tuple[Any, str]:
    """# 19.14, 19.15: the set-up's Legend options (``pro N``, ``aggressive``, both, or nothing), ``pro`` held to
    the range ``new --pro`` is (refused in its words)."""
    from .rules import MAX_PRO

    words = text.lower().replace(",", " ").split()
    pro, aggressive = 0, False
    i = 0
    while i < len(words):
        if words[i] == "aggressive":
            aggressive = True
        elif words[i] == "pro" and i + 1 < len(words) and words[i + 1].isdecimal():
            pro = int(words[i + 1])
            i += 1
        else:
            raise MalformedInput(f"type pro N (0–{MAX_PRO}), aggressive, both, or Enter for none")
        i += 1
    if not 0 <= pro <= MAX_PRO:  # the range new --pro is held to (# 19.15), refused in the words typed
        raise MalformedInput(f"pro {pro}: pro Legends add 0 to {MAX_PRO} to every helmet number (# 19.15)")
    said = f"Legends: pro +{pro}, {'aggressive' if aggressive else 'not aggressive'}"
    return {"pro": pro, "aggressive": aggressive}, said


def _colour_problem(cars: list[dict[str, str]], data: Any) -> str | None:
    """# 19.4: a Legend's colour is one printed on the Legend cards."""
    colours = data["colours"]
    bad = [c["colour"] for c in cars if c["colour"] not in colours]
    return f"{bad[0]!r} is not a Legend colour: {' '.join(colours)} (# 19.4)" if bad else None


SETUP_STEPS = (  # record --new asks it after the cars, when Legends race; the table server's form shows it there
    SetupStep(
        "legend_options",
        "cars",
        "Legend options: pro N (+N helmet), aggressive (chevrons) (Enter = none): ",
        "Legend options",
        "pro 2 aggressive",
        _read_options,
        lambda value, so_far: {"cars": [], **(so_far or {}), **value},
        asked=lambda answers: bool(answers.get("module_cars", {}).get(NAME)),  # only when Legends race
    ),
)
#: # 19.3: a Legend in the set-up's cars, ``legend:COLOUR``, named after its colour.
SETUP_CARS = SetupCars(
    "legend",
    "Legends",
    lambda colour: {"name": legend_name(colour), "colour": colour.lower()},
    _colour_problem,
    "a Legend: legend:black",
)


def _highlight(state: RaceState) -> str | None:
    """# 19: where the players finished among the Legends (a sample race's sentence)."""
    if NAME not in state.modules:  # (the Legends' slot: rules.LegendsState)
        return None
    places = [i for i, n in enumerate(state.hall_of_fame, 1) if not state.cars[n].legend]
    return f"the players finish {', '.join(map(str, places))} among the Legends" if places else None


def _playthrough_head(state: RaceState) -> list[str]:
    """# 19.14, 19.15: the Legend cars and options, under a golden playthrough's result."""
    own = state.modules.get(NAME)  # (the Legends' slot: rules.LegendsState)
    if own is None:
        return []
    legends = [c.name for c in state.cars.values() if c.legend]
    aggressive = "aggressive" if own.rules.aggressive else "not aggressive"
    return [f"Legends: {', '.join(legends)} (pro +{own.rules.pro}, {aggressive})"]


def _study_read(given: Mapping[str, Any]) -> dict[str, Any]:
    """A study entry's first-wave Legend keys (docs/study.md), as the spec keeps them: ``legends`` the count of
    Legend cars (0-5, # 19.1, 19.2), ``pro`` (# 19.15), ``aggressive`` true or false (# 19.14)."""
    import json

    from .rules import MAX_PRO

    out: dict[str, Any] = {}
    if "aggressive" in given:
        if not isinstance(given["aggressive"], bool):
            raise ValueError("aggressive: true or false")
        if given["aggressive"]:
            out["aggressive"] = True
    for key, high in (("legends", 5), ("pro", MAX_PRO)):
        value = given.get(key)
        if not value:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{key}: a whole number is needed, not {json.dumps(value)[:40]}")
        if not 0 <= value <= high:
            raise ValueError(f"{key}: {value} is out of range (0 to {high})")
        out[key] = value
    return out


def _study_block(kept: Mapping[str, Any]) -> Any:
    """The Legends' options from a study entry's first-wave keys: the count of cars and the two options."""
    return {
        "cars": int(kept.get("legends", 0)),
        "pro": int(kept.get("pro", 0)),
        "aggressive": bool(kept.get("aggressive")),
    }


#: The sample race of replays/ that shows it (heatlog/docsgen/samples.py) and its golden playthrough.
SAMPLES = (
    SampleRace(
        "gb-solo-legends.jsonl",
        "Great Britain, 2 laps, solo: one heuristic car against five aggressive Legends (MODULES.md 19)",
        {
            "track": "great-britain",
            "cars": 1,
            "modules": {NAME: {"cars": 5, "aggressive": True}},
            "seed": 3,
            "bots": "heuristic",
        },
    ),
)
#: A solo race, one heuristic car against five Legends (a spinout, blocked Legends).
GOLDENS = (
    SampleRace(
        "golden_solo_legends",
        "USA, 2 laps, one heuristic car against five Legends",
        {"track": "usa", "cars": 1, "modules": {NAME: {"cars": 5}}, "seed": 28, "bots": "heuristic"},
    ),
)

MODULE = Module(
    NAME,
    build=lazy(f"{__name__}.rules", "build"),  # # 19.6
    events=(
        EventType("legend_card_revealed", lazy(f"{__name__}.rules", "legend_card_revealed"), module=NAME, chance=True),
    ),
    order=2,
    rank=20,
    start=_start,
    to_position=_block,
    from_position=_back,
    chance=_chance,
    copy=_copy,  # its slot (LegendsState): the deck copied, the rules shared
    data="legends.json",
    setup=_setup,
    waiting={"legend_card_revealed": "the Legend card of round {count} (# 19.5)"},
    outcomes={"legend_card_revealed": _outcomes},
    narrate_turn=lazy(f"{__name__}.words", "narrate_turn"),  # a Legend's turn (# 19.7-19.14)
    event_words=lazy(f"{__name__}.words", "event_words"),  # its events in the recorder's words
    notation={  # the recorder's question: the round's card by its helmet number (# 19.4, 19.5)
        "legend_card_revealed": Notation(
            question=lazy(f"{__name__}.words", "card_question"),
            parse=lazy(f"{__name__}.words", "card_parse"),
            answer=lambda ev: f"card {ev['card']}",
            words=lazy(f"{__name__}.words", "said"),
            kind="legend",
            echo=lazy(f"{__name__}.words", "card_echo"),
            screen=r"^Legend card for round \d+: (\S+)'s helmet number \([^)]*\): $",  # (recorder/script.py)
        )
    },
    race_columns=RACE_COLUMNS,
    race_after="cars",
    race_facts=_race_facts,
    summary=_summary,  # how many Legends and their options in simulate's JSON and title (# 19.1, 19.14, 19.15)
    summary_words=_summary_words,
    flags=FLAGS,
    from_flags=_from_flags,
    car_count=_car_count,  # its cars count toward the race's 2-6 (# 19.2) and get no deck (# 19.3)
    expand=_expand,  # a count of Legends made into cars (simulate --legends N)
    setup_steps=SETUP_STEPS,
    setup_cars=SETUP_CARS,
    highlight=_highlight,
    playthrough_head=_playthrough_head,
    car_keys={"legend": 'Legend cars need the Legends module (modules: ["legends"], # 19.1)'},
    data_check=lazy(f"{__name__}.rules", "check_data"),  # the 10 Legend cards, read as a race reads them (# 19.4)
    doc_order=1,
    samples=SAMPLES,
    goldens=GOLDENS,
    study_keys=("legends", "pro", "aggressive"),
    study_read=_study_read,
    study_block=_study_block,
    season=SeasonHook(  # # 19.16: Legend cars fill every race of a season (one driver: a solo championship)
        "Legends",
        "19.16",
        count=lazy(f"{__name__}.season", "count"),
        solo="add --legends N, a solo championship against Legends",
        driver_problem=lazy(f"{__name__}.season", "driver_problem"),
        setup=lazy(f"{__name__}.season", "setup"),
        cars=lazy(f"{__name__}.season", "cars"),
        car_noun="Legend",
        race=lazy(f"{__name__}.season", "race"),
    ),
    # a Legend's turn: where its card sent it (# 19.7-19.14), the position's turn key "legend" (after "shuffles")
    turn_record=TurnRecord(
        keys=("legend",), to_position=_move_to_position, from_position=_move_from_position, after="shuffles"
    ),
    spaces_moved=_spaces_moved,
    turn_row=_turn_row,  # a Legend's turn on the board and in the HTML replay (# 19.7, 19.8)
)
