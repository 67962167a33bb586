"""Weather tiles and road-condition tokens (MODULES.md 20), one registered unit (engine/module.py).

``rules.py`` holds its rules (start effects, the per-space / per-corner effect tables built once per race, its
set-up events); ``words.py`` the words and board lines of its tile and tokens; this file its descriptor only,
light: every hook imports ``rules.py`` at its first call, so a base race never loads it (issue 10: start-up).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...events import EventType
from ...module import FactColumn, Flag, Module, Notation, SampleRace, SeasonHook, lazy
from .slot import NAME, WeatherSlot, slot
from .slot import conditions_of as conditions_of  # (the slot's readers, re-exported: the engine, bots and views)
from .slot import weather_rules as weather_rules
from .slot import weather_tile as weather_tile

if TYPE_CHECKING:
    from ...state import RaceState

Event = dict[str, Any]
PHASE = "weather"


def _start(state: RaceState, ev: Event) -> None:
    from .rules import WeatherRules

    state.modules[NAME] = WeatherSlot(WeatherRules.from_dict(ev.get(NAME)))  # (ValueError: the race is refused)


def _setup(options: Any, data: Any, ev: Event) -> Any:
    """# 20.1: on (``{}``: it has no options, or True), the block holds the data file's tiles and token types."""
    if options is None or options is False:
        return None
    from .rules import options_block

    return options_block(data)


def _block(state: RaceState) -> Any:
    own = slot(state)
    if own is None:
        return None
    return {
        "data": own.rules.data,
        "tile": own.tile,
        "tokens": list(own.conditions.tokens) if own.conditions is not None else None,
    }


def _back(state: RaceState, block: Any, pos: Mapping[str, Any]) -> None:
    from .rules import WeatherRules, build_conditions

    rules = WeatherRules.from_dict(block["data"])
    tile = block.get("tile")
    conditions = None
    if block.get("tokens") is not None:
        assert tile is not None
        conditions = build_conditions(state.track, rules, tile, block["tokens"])
    state.modules[NAME] = WeatherSlot(rules, tile, conditions)


def _chance(state: RaceState, rng: random.Random) -> Event | None:
    """# 20.2: the weather tile (one of six), then one road-condition token per corner from the shuffled bag
    (MC8; a chicane is one corner, 22.2)."""
    if state.phase != PHASE:
        return None
    own = slot(state)
    assert own is not None
    rules = own.rules
    if own.tile is None:
        return {"type": "weather_drawn", "v": 1, "tile": rng.choice(sorted(rules.tiles))}
    from .rules import corner_groups

    bag = sorted(t.id for t in rules.tokens.values() for _ in range(t.copies))
    rng.shuffle(bag)
    return {"type": "road_conditions_drawn", "v": 1, "tokens": bag[: len(corner_groups(state.track))]}


def _race_facts(state: RaceState, started: Event) -> tuple[str | None, str | None]:
    """(``weather``, ``road_conditions``): the tile drawn and the tokens, corner by corner (# 20.2), once drawn."""
    own = slot(state)
    if own is None or own.conditions is None:
        return None, None
    return own.tile, " ".join(own.conditions.tokens)


def _summary(state: RaceState) -> dict[str, Any]:
    """A simulated race's tile and tokens (``simulate --json``, # 20.2), once drawn."""
    own = slot(state)
    if own is None or own.conditions is None:
        return {}
    return {"weather": own.tile, "road_conditions": list(own.conditions.tokens)}


def _summary_words(race: Mapping[str, Any]) -> str | None:
    if "weather" not in race:
        return None
    return f"weather {race['weather']}, roads {' '.join(race['road_conditions'])}"


#: The columns it adds to a corpus race (``Module.race_columns``).
RACE_COLUMNS = (
    FactColumn("weather", "str", None, "the weather tile drawn (# 20.2)"),
    FactColumn("road_conditions", "str", None, "the road-condition tokens drawn, corner by corner (# 20.2)"),
)

FLAGS = (  # issue 26, build 5: one switch, worded per command
    Flag(
        "weather",
        ("--weather",),
        "Weather and road conditions (MODULES.md 20): drawn at set-up.",
        commands=("new",),
    ),
    Flag(
        "weather",
        ("--weather",),
        "Weather and road conditions: a random tile and tokens (MODULES.md 20).",
        commands=("simulate",),
    ),
    Flag(
        "weather",
        ("--weather",),
        "With --new: weather and road conditions; the tile and tokens are asked.",
        commands=("record",),
        label="weather and road conditions",  # (the table server's set-up form)
    ),
    Flag(
        "weather",
        ("--weather",),
        "Weather and road conditions in every race, revealed after the draft (# 21.3).",
        commands=("season",),
    ),
    Flag(  # the set-up draws given at the start (# 20.2): recorded with race_started (``given_draws``)
        "tile",
        ("--tile",),
        "With --weather: the weather tile drawn (else asked later).",
        "str",
        commands=("new",),
        gives="weather_drawn",
    ),
    Flag(
        "road",
        ("--road",),
        "With --tile: the road-condition tokens, one per corner, comma-separated.",
        "str",
        commands=("new",),
        gives="road_conditions_drawn",
    ),
)


def _from_flags(values: Mapping[str, Any], command: str, data: Any) -> Any:
    """``--weather`` (it has no options); a tile or tokens given put it in the race too (# 20.2)."""
    given = values.get(NAME) or values.get("tile") is not None or values.get("road") is not None
    return {} if given else None


def _given_draws(values: Mapping[str, Any]) -> list[Event]:
    """``--tile`` and ``--road`` as the table drew them (# 20.2): the tile, then one token per corner, by the
    names printed on them in any case (as ``--track`` and ``--legend`` take them); none: the recorder asks."""
    tile, road = values.get("tile"), values.get("road") or None
    if tile is None and road is None:
        return []
    if tile is None or road is None:
        raise ValueError("give the weather tile and the road-condition tokens together, with the weather")
    tokens = [t.strip().lower() for t in str(road).split(",")]
    return [
        {"type": "weather_drawn", "v": 1, "tile": str(tile).strip().lower()},
        {"type": "road_conditions_drawn", "v": 1, "tokens": tokens},
    ]


def _study_read(given: Mapping[str, Any]) -> dict[str, Any]:
    """A study entry's first-wave ``weather`` key (docs/study.md): true or false."""
    if not isinstance(given["weather"], bool):
        raise ValueError("weather: true or false")
    return {"weather": True} if given["weather"] else {}


#: The sample races of replays/ that show it (heatlog/docsgen/samples.py; the second with the Legends, which come
#: before it in the pages) and its golden playthrough.
SAMPLES = (
    SampleRace(
        "usa-weather-4cars.jsonl",
        "USA, 2 laps, 4 heuristic cars, weather and road conditions (MODULES.md 20)",
        {"track": "usa", "cars": 4, "modules": {NAME: {}}, "seed": 2, "bots": "heuristic"},
    ),
    SampleRace(
        "netherlands-legends-weather.jsonl",
        "Netherlands, 3 laps, 3 heuristic cars and 3 pro Legends (+1) with the weather: the modules combined",
        {
            "track": "netherlands",
            "cars": 3,
            "modules": {"legends": {"cars": 3, "pro": 1, "aggressive": True}, NAME: {}},
            "seed": 8,
            "bots": "heuristic",
        },
    ),
)
#: In table mode: Rain, with heat control, overheat, slipstream +1 and the Weather token (cooling) on Great Britain.
GOLDENS = (
    SampleRace(
        "golden_weather_table",
        "Great Britain, 2 laps, 4 cars, weather and road conditions, table mode",
        {"track": "great-britain", "cars": 4, "modules": {NAME: {}}, "seed": 9, "bots": ["heuristic"] * 3 + ["random"]},
        table=True,
    ),
)

MODULE = Module(
    NAME,
    build=lazy(f"{__name__}.rules", "build"),  # # 20.2–20.13
    events=(
        EventType("weather_drawn", lazy(f"{__name__}.rules", "weather_drawn"), module=NAME, chance=True),
        EventType(
            "road_conditions_drawn", lazy(f"{__name__}.rules", "road_conditions_drawn"), module=NAME, chance=True
        ),
    ),
    order=1,
    rank=30,
    start=_start,
    to_position=_block,
    from_position=_back,
    chance=_chance,
    phases=(PHASE,),
    data="weather.json",
    setup=_setup,
    marks=lazy(f"{__name__}.words", "conditions_lines"),  # the tile and every corner's token (20.2)
    badges=lazy(f"{__name__}.words", "badges"),  # its tokens drawn on the circuit (20.2)
    highlight=lazy(f"{__name__}.words", "highlight"),  # the tile and tokens, in a sample race's sentence
    before_decks={PHASE: ("draw the weather tile and the road-condition tokens before the starting shuffle", "20.3")},
    waiting={
        "weather_drawn": "the weather tile (# 20.2)",
        "road_conditions_drawn": "the road-condition tokens, one per corner (# 20.2)",
    },
    event_words=lazy(f"{__name__}.words", "event_words"),  # its events in the recorder's words
    react_hint=lazy(f"{__name__}.words", "react_hint"),  # the car's sector, in the React question (# 20.7)
    notation={  # the recorder's set-up questions (# 20.2): the tile, then the tokens, typed by their ids
        "weather_drawn": Notation(
            question=lazy(f"{__name__}.words", "tile_question"),
            parse=lazy(f"{__name__}.words", "tile_parse"),
            answer=lambda ev: str(ev["tile"]),
            words=lazy(f"{__name__}.words", "said"),
            kind="weather",
            screen=r"^()weather tile \([^)]*\): $",  # the host's (recorder/script.py)
        ),
        "road_conditions_drawn": Notation(
            question=lazy(f"{__name__}.words", "road_question"),
            parse=lazy(f"{__name__}.words", "road_parse"),
            answer=lambda ev: " ".join(ev["tokens"]),
            words=lazy(f"{__name__}.words", "said"),
            kind="road",
            several=True,
            screen=r"^()road conditions, one token per corner 1–\d+ in racing order: $",
        ),
    },
    race_columns=RACE_COLUMNS,
    race_facts=_race_facts,
    position_cards=lazy(f"{__name__}.rules", "position_cards"),  # the tile's start effect (# 20.3)
    data_check=lazy(f"{__name__}.rules", "check_data"),  # the data file read as a race reads it (# 20.1)
    flags=FLAGS,
    from_flags=_from_flags,
    given_draws=_given_draws,
    summary=_summary,
    summary_words=_summary_words,
    doc_order=2,
    samples=SAMPLES,
    goldens=GOLDENS,
    study_keys=("weather",),
    study_read=_study_read,
    study_block=lambda kept: {} if kept.get("weather") else None,  # the data file's tiles and tokens (# 20.1)
    season=SeasonHook(  # # 21.3: every race of a season with the weather plays it, revealed after the draft
        "the weather",
        "21.3",
        setup=lazy(f"{__name__}.season", "setup"),
        race=lazy(f"{__name__}.season", "race"),
    ),
)
