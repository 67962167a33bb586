"""The Garage (MODULES.md 18): its options, the Garage deck, the draft and the card-symbol rules, one registered
unit (engine/module.py).

``cards.py`` holds its cards, options and draft (the data and words every shell reads), ``race.py`` its handlers,
step points and Rules; this file its event types and its descriptor only, light: every handler and hook imports
``race.py`` at its first call, so a base race's commands start without creating the Garage's dataclasses
(issue 10: start-up).
"""

from __future__ import annotations

import copy as _copy_module
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...events import EventType
from ...module import (
    FactColumn,
    Flag,
    Module,
    Notation,
    PositionCards,
    SampleRace,
    SeasonHook,
    SetupStep,
    TurnAnswer,
    TurnRecord,
    lazy,
)

if TYPE_CHECKING:
    from ...state import RaceState, Turn
    from .race import GarageRace, GarageTurn

Event = dict[str, Any]
NAME = "garage"  # (its name, the key of its slot in ``state.modules``; the descriptor's NAME)
PHASE = "garage"

DRAFT_EVENTS = ("garage_market", "upgrade_picked", "upgrade_removed", "upgrades_dealt")
TURN_EVENTS: tuple[str, ...] = ("speed_chosen", "accelerated", "heat_paid", "heat_unpayable", "card_scrapped")
TURN_EVENTS += ("stress_reduced", "refreshed", "salvaged", "super_cooled", "drafted", "direct_played")
EVENTS = DRAFT_EVENTS + TURN_EVENTS
CHANCE = ("garage_market", "upgrades_dealt", "card_scrapped")  # # 18.5, 18.12: observed outcomes
GUARDED = ("heat_unpayable", "refreshed")  # may change the state before a later check fails


def handler_name(event: str) -> str:
    """The function of ``race.py`` that handles ``event``: one for the draft's events, else its own name."""
    return "draft_event" if event in DRAFT_EVENTS else event


def _race(name: str) -> Any:
    """``race.py``'s function ``name``, loaded at its first call (named, not imported: race.py imports this file's
    lists, and a base race never loads race.py)."""
    return lazy(f"{__name__}.race", name)


_RACE_START, _TO_DICT, _FROM_DICT = _race("start"), _race("race_to_dict"), _race("race_from_dict")
_TURN_TO_DICT, _TURN_FROM_DICT = _race("turn_to_dict"), _race("turn_from_dict")


def garage_slot(state: RaceState) -> GarageRace | None:
    """The Garage of ``state`` (its slot in ``state.modules``, was ``state.garage``; None: a race without it)."""
    own: GarageRace | None = state.modules.get(NAME)
    return own


def garage_turn(turn: Turn) -> GarageTurn | None:
    """The Garage's record of ``turn`` (its record in ``turn.modules``, was ``turn.garage``; None: a turn without
    one, a base race's or a Legend's)."""
    own: GarageTurn | None = turn.modules.get(NAME)
    return own


def garage_record(turn: Turn) -> GarageTurn:
    """The Garage's record of ``turn``, which has one (a car's revealed turn in a Garage race: was ``gt:
    GarageTurn = turn.garage``); a ``KeyError`` if it has none."""
    own: GarageTurn = turn.modules[NAME]
    return own


def _turn_to_position(gt: GarageTurn | None) -> dict[str, Any]:
    """Its record as the turn's last key, ``garage`` (only in a turn that has one)."""
    return {NAME: _TURN_TO_DICT(gt)} if gt is not None else {}


def _turn_from_position(d: Mapping[str, Any]) -> GarageTurn | None:
    own = d.get(NAME)
    return _TURN_FROM_DICT(own) if own is not None else None


def _copy(garage: GarageRace) -> GarageRace:
    return garage.copy()  # the draft and the upgrades owned copied; options, cards and memos shared


def _start(state: RaceState, ev: Event) -> None:
    state.modules[NAME] = _RACE_START(ev, state.cards)  # # 18.1: the Garage module, its options and its cards


def _block(state: RaceState) -> Any:
    if garage_slot(state) is None:
        return None
    return _TO_DICT(garage_slot(state))  # options, cards, upgrades owned, the draft


def _back(state: RaceState, block: Any, pos: Mapping[str, Any]) -> None:
    from ...cards import BASE_CATALOGUE

    state.modules[NAME] = _FROM_DICT(block)
    cards = block.get("cards")
    state.cards = BASE_CATALOGUE.with_block(cards) if cards else BASE_CATALOGUE


def _setup(options: Any, data: Any, ev: Event) -> Any:
    """# 18.3, 18.5: the Garage's options (upgrades, draft, expansions) checked, and the race's card catalogue
    holding every upgrade it can meet (# 18.2), from the card file (``data/cards/garage.json``)."""
    from .cards import GarageOptions, race_block

    chosen = GarageOptions.from_dict(options)  # (ValueError: refused in its words)
    ev["cards"] = race_block(data["cards"], chosen)
    return chosen.to_dict()


def _chance(state: RaceState, rng: random.Random) -> Event | None:
    """# 18.5: the draft's market or a car's random deal; # 18.12: a scrapped card, the top of a known deck."""
    garage = garage_slot(state)
    if state.phase == PHASE and garage is not None and garage.draft is not None:
        from .cards import draft_chance

        return draft_chance(garage.draft, rng)
    turn = state.turn
    if turn is not None and turn.flipping == "scrap":
        car = state.cars[turn.car]
        top = car.deck[-1] if car.deck else car.deck_top[-1] if car.deck_top else None
        return None if top is None else {"type": "card_scrapped", "v": 1, "car": car.name, "card": top}
    return None


def _position_cards(state: RaceState) -> PositionCards | None:
    """# 18.4: the Garage's decks are built once its draft is over: a position in the draft holds no cards yet."""
    return PositionCards(unbuilt=True) if state.phase == PHASE else None


#: The columns it adds to a turn's facts and to a corpus race (its values: facts.py).
TURN_COLUMNS = (
    FactColumn("heat_upgrades", "int", 0, "Heat paid for upgrades' Heat costs (# 18.10; 0 without the Garage)"),
    FactColumn("uses", "str", "", 'the Garage symbols used this turn, "kind cards amount; …" (# 18.7–18.24)'),
    FactColumn(
        "cooled_upgrades",
        "int",
        0,
        "Heat the upgrades moved to the Engine: their Cooldowns (# 18.13) and Super Cool (# 18.22); "
        "0 without the Garage",
    ),
)
RACE_COLUMNS = (
    FactColumn("garage_upgrades", "str", None, "the Garage's upgrades option (# 18.3)"),
    FactColumn("garage_draft", "str", None, "the Garage's draft option (# 18.5)"),
)


#: ``heatlog season result``'s options for a race of a Garage season entered by its result (issue 29): each
#: ``param`` is the ``race_result`` field its refusals name (``SeasonHook.result_flags``).
_RESULT = ("season result",)
RESULT_FLAGS = (
    Flag(
        "market",
        ("--market",),
        "With the Garage: the draft's market, card names (# 21.2; absent: not noted).",
        "str",
        commands=_RESULT,
    ),
    Flag("picks", ("--pick",), "With the Garage: NAME:CARD, the upgrade each driver picked.", "strs", commands=_RESULT),
    Flag(
        "swap",
        ("--swap",),
        "With the Garage: the first picker's swap, GIVE:TAKE (absent: no swap, MA11).",
        "str",
        commands=_RESULT,
    ),
    Flag(
        "dealt",
        ("--dealt",),
        "NAME:CARD[,CARD]: the sponsorship cards the event card dealt (# 21.4).",
        "strs",
        commands=_RESULT,
    ),
    Flag(
        "press",
        ("--press",),
        "NAME:CARD[,CARD]: the sponsorship cards earned at press corners (# 21.7).",
        "strs",
        commands=_RESULT,
    ),
    Flag(
        "event",
        ("--event-card",),
        "NAME:CARD[,CARD]: the sponsorship cards the event card's condition gave (# 21.8).",
        "strs",
        commands=_RESULT,
    ),
    Flag(
        "used",
        ("--used",),
        "NAME:CARD[,CARD]: the sponsorship cards played, which left the game (# 18.24).",
        "strs",
        commands=_RESULT,
    ),
)

FLAGS = (  # issue 26, build 5: `new`, `simulate` and `season new` build these flags from the registry
    Flag("garage", ("--garage",), "Play with the Garage module: basic, advanced or all upgrades (# 18.3).", "str"),
    Flag(
        "garage",
        ("--garage",),
        "The Garage module in every race: basic, advanced or all upgrades (# 18.3); one upgrade is drafted before "
        "each race (# 21.2) and the sponsorship cards come with it (# 21.4-21.7).",
        "str",
        commands=("season",),
    ),
    Flag(
        "draft",
        ("--draft",),
        "With --garage, how upgrades are chosen: random, draft (default) or snake (# 18.5).",
        "str",
        not_in_season="a season drafts one upgrade before each race (# 21.2)",
    ),
    Flag(
        "expansion",
        ("--expansion",),
        "With --garage: heavy-rain or tunnel-vision upgrades too (# 18.2).",
        "strs",
        commands=("new", "simulate", "season"),
    ),
    Flag(  # a season's draft (# 21.2, MA11)
        "draft_order",
        ("--draft-order",),
        "With --garage, who picks first: lowest_first (the last in the standings, MA11) or leader_first.",
        "str",
        "lowest_first",
        commands=("season",),
    ),
    Flag(
        "swap",
        ("--swap/--no-swap",),
        "With --garage, the first picker may swap one upgrade for one left in the market (MA11).",
        default=True,
        commands=("season",),
    ),
)


def _from_flags(values: Mapping[str, Any], command: str, data: Any) -> Any:
    """The Garage's options from ``--garage``, ``--draft`` and ``--expansion`` (None: no Garage), checked as the
    race's first event checks them (# 18.2, 18.3, 18.5), a refusal naming the option typed."""
    garage, draft, expansion = values.get("garage"), values.get("draft"), values.get("expansion")
    if command == "season":  # the season's Garage: its draft before each race (# 21.2, MA11), its own checks
        order, swap = values.get("draft_order", "lowest_first"), values.get("swap", True)
        if garage is None:
            if expansion or order != "lowest_first" or not swap:
                raise ValueError(
                    "--expansion, --draft-order and --no-swap choose how the Garage is played: give --garage"
                )
            return None
        check_flags(garage, None, expansion)
        return {"upgrades": garage, "expansions": list(expansion or []), "order": order, "swap": swap}
    if garage is None:
        if draft is not None or expansion:
            raise ValueError("--draft and --expansion choose how the Garage is played: give --garage too")
        return None
    check_flags(garage, draft, expansion)
    from .cards import GarageOptions

    chosen = {"upgrades": garage, "draft": draft or "draft", "expansions": list(expansion or [])}
    return GarageOptions.from_dict(chosen).to_dict()


def _rec(name: str) -> Any:
    """``recorder.py``'s function ``name``, loaded at its first call (the Garage's words at the table)."""
    return lazy(f"{__name__}.recorder", name)


#: The draft's questions as the terminal shows them (a narration line such as "takes 2 Stress, gear 1; is
#: eliminated: ..." is none of them).
_MARKET_SCREEN = r"^Garage market, round \d: the \d+ cards revealed: ()$"
_DRAFT_SCREEN = r"^(\S+) (?:picks one of|picks a card|takes 3 upgrades|gives back one of) .*: $"
#: The draft's questions at the table (# 18.5), one notation per draft event: asked by the recorder, answered
#: by card names (several events from one answer: a season's picks, # 21.2), typed back by the scripted host.
DRAFT_NOTATION = {
    name: Notation(
        question=_rec("draft_question"),
        parse=_rec("draft_parse"),
        answer=_rec("draft_answer"),
        words=_rec("draft_words"),
        kind="garage",
        several=name == "garage_market",  # a market: a row of cards, not one button
        parse_many=_rec("draft_parse_many"),
        typed=_rec("draft_typed"),
        together=_rec("picks_together") if name == "upgrade_picked" else None,
        screen=_MARKET_SCREEN if name == "garage_market" else _DRAFT_SCREEN,
    )
    for name in DRAFT_EVENTS
}


def _read_setup(text: str, answers: Mapping[str, Any]) -> tuple[Any, str]:
    """# 18.3, 18.5: the set-up's Garage answer (``none``, or the upgrades, the draft method and the expansions in
    any order), checked as the race's first event checks it; (its options or None, the echo)."""
    from .cards import DRAFT_METHODS, EXPANSIONS, UPGRADE_LEVELS, GarageOptions

    words = text.lower().replace(",", " ").split()
    if not words or words == ["none"]:
        return None, "Garage: none"
    level = [w for w in words if w in UPGRADE_LEVELS]
    method = [w for w in words if w in DRAFT_METHODS]
    exp = [w for w in words if w in EXPANSIONS]
    rest = [w for w in words if w not in (*level, *method, *exp)]
    if rest or len(level) > 1 or len(method) > 1:
        raise ValueError(
            "name the upgrades (basic, advanced, all), then random, draft or snake, and any of "
            "heavy-rain, tunnel-vision (# 18.3, 18.5)"
        )
    opts = GarageOptions.from_dict(
        {"upgrades": (level or ["basic"])[0], "draft": (method or ["draft"])[0], "expansions": exp}
    )
    extra = f" with {', '.join(opts.expansions)}" if opts.expansions else ""
    how = {"random": "dealt at random", "draft": "draft", "snake": "snake draft"}[opts.draft]
    return opts.to_dict(), f"Garage: {opts.upgrades} upgrades{extra}, {how}"


SETUP_STEPS = (  # record --new asks it after the mode; the table server's form shows it there
    SetupStep(
        "garage",
        "mode",
        "Garage module: none, or basic/advanced/all upgrades, random/draft/snake, heavy-rain, tunnel-vision [none]: ",
        "Garage module",
        "none, or e.g. advanced snake",
        _read_setup,
        lambda value, so_far: value,  # its options, as read (None: no Garage)
    ),
)


def check_flags(garage: str | None, draft: str | None, expansion: list[str] | None) -> None:
    """Each Garage option as the module reads its field (# 18.2, 18.3, 18.5), refused naming the option typed
    (``--garage fancy: upgrades must be …``), not only the field of the log (``upgrades``) the user never typed."""
    from .cards import GarageOptions

    given: list[tuple[str, str, Any]] = [("--garage", "upgrades", garage), ("--draft", "draft", draft)]
    if expansion:
        given.append(("--expansion", "expansions", list(expansion)))
    for option, key, value in given:
        if value is None:
            continue
        try:
            GarageOptions.from_dict({key: value})
        except ValueError as exc:
            typed = " ".join(f"{option} {v}" for v in value) if isinstance(value, list) else f"{option} {value}"
            raise ValueError(f"{typed}: {exc}") from None


def _said(name: str) -> Any:
    return lazy(f"{__name__}.recorder", name)


#: How the recorder reads the answers to ``ask``'s questions, by kind, and how a host types each (engine/module.py).
TURN_ANSWERS = {
    "speed": TurnAnswer(  # # 18.6
        _said("read_speed"), "speed_chosen", _said("typed_speed"), r"^(\S+): .* is worth \([^)]*\): $", line=True
    ),
    "accelerate": TurnAnswer(  # # 18.20
        _said("read_accelerate"),
        "accelerated",
        _said("typed_accelerate"),
        r"^(\S+): accelerate with .*\? \(y/n\): $",
        line=True,
    ),
    "unpayable": TurnAnswer(  # # 18.11
        _said("read_unpayable"),
        "heat_unpayable",
        _said("typed_cards"),
        r"^(\S+)'s Engine \(\d+\) cannot pay every Heat cost: .*: $",
        line=True,
    ),
    "scrap": TurnAnswer(  # # 18.12
        _said("read_scrap"),
        "card_scrapped",
        _said("typed_card"),
        r"^scrap for (\S+) \(\d+ to go\): .*: $",
        line=True,
        walks=True,
        cards=True,
    ),
    "salvage_shuffle": TurnAnswer(  # # 18.18
        _said("read_salvage_shuffle"),
        "deck_shuffled",
        _said("typed_order"),
        r"^(\S+) shuffles .*(?:\[Enter\]|Enter if unknown): $",
        cards=True,
    ),
}


def _study_read(given: Mapping[str, Any]) -> dict[str, Any]:
    """A study entry's first-wave ``garage`` key (docs/study.md): the Garage's options, an object (checked with the
    race's set-up, # 18.3, 18.5)."""
    options = given["garage"]
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError('garage: the Garage options ({"upgrades": "all", "draft": "snake"})')
    return {"garage": options}


#: The sample races of replays/ that show it (heatlog/docsgen/samples.py; the second with every module, which come
#: before it in the pages) and its golden playthrough.
SAMPLES = (
    SampleRace(
        "usa-garage-4cars.jsonl",
        "USA, 2 laps, the Garage module (# 18): all upgrades with both expansions, drafted; 2 heuristic, 2 random cars",
        {
            "track": "usa",
            "cars": 4,
            "seed": 15,
            "bots": ["heuristic", "random", "heuristic", "random"],
            "modules": {NAME: {"upgrades": "all", "draft": "draft", "expansions": ["heavy-rain", "tunnel-vision"]}},
        },
    ),
    SampleRace(
        "usa-garage-legends-weather.jsonl",
        "USA, 2 laps, every module at once: 3 heuristic cars with drafted basic upgrades (# 18), 2 Legends (19) "
        "and the weather (20)",
        {
            "track": "usa",
            "cars": 3,
            "seed": 4,
            "bots": "heuristic",
            "modules": {NAME: {"upgrades": "basic", "draft": "draft"}, "legends": {"cars": 2}, "weather": {}},
        },
    ),
)
#: In table mode (# 18): the snake draft, then every symbol as a table records it.
GOLDENS = (
    SampleRace(
        "golden_usa_garage_table",
        "USA, 2 laps, 4 cars, the Garage with all upgrades and both expansions, snake draft, table mode",
        {
            "track": "usa",
            "cars": 4,
            "seed": 21,
            "bots": ["heuristic", "random", "heuristic", "random"],
            "modules": {NAME: {"upgrades": "all", "draft": "snake", "expansions": ["heavy-rain", "tunnel-vision"]}},
        },
        table=True,
    ),
)

MODULE = Module(
    NAME,
    build=_race("build"),
    # (schemas under schema/events/garage/)
    events=tuple(
        EventType(
            name,
            _race(handler_name(name)),
            module=NAME,
            schema=f"garage/{name}",
            turn=name in TURN_EVENTS,
            guarded=name in GUARDED,
            chance=name in CHANCE,
        )
        for name in EVENTS
    ),
    order=4,
    rank=10,  # its Rules replace points: first
    start=_start,
    to_position=_block,
    from_position=_back,
    chance=_chance,
    phases=(PHASE,),
    copy=_copy,  # its slot (GarageRace): copied with the state
    data="cards/garage.json",
    setup=_setup,
    cards_key="cards",  # its block carries the race's upgrade (and sponsorship) cards
    waiting={
        "garage_market": "the Garage market (# 18.5)",
        "upgrade_picked": "{name}'s upgrade pick (# 18.5)",
        "upgrade_removed": "{name} gives back one upgrade (# 18.5)",
        "upgrades_dealt": "{name}'s three upgrades (# 18.5)",
    },
    car_facts=lazy(f"{__name__}.words", "car_facts"),  # a car's upgrades (# 18.5)
    car_cards=lazy(f"{__name__}.words", "car_cards"),  # the upgrades a car owns (# 18.5)
    card_typed=lazy(f"{__name__}.recorder", "named_card"),  # an upgrade typed by its short name (# 18.2)
    react_word=lazy(f"{__name__}.recorder", "react_word"),  # its React words on a car's line (# 18.10-18.23)
    react_answer=lazy(f"{__name__}.recorder", "react_answer"),  # ... and the word that makes each event
    ask=lazy(f"{__name__}.recorder", "ask"),  # its questions in a turn: step 3, Scrap, Salvage, an unpaid cost
    react_help=(
        "; p pays the Heat costs, cN may use the cards' cooldown, rN reduces N Stress, kN super-cools, "
        "dr drafts, play:NAME plays a card directly, salvage:CARDS (e.g. salvage:4/3), "
        "u:CARDS the cards whose Heat cost goes unpaid (# 18.11)"
    ),
    hand_moves={  # its events that move a car's cards in sight of the table (the review's information sets)
        "stress_reduced": ("out", lambda ev: ["S"] * int(ev["count"])),  # # 18.15: Stress discarded from the hand
        "direct_played": ("out", lambda ev: [ev["card"]]),  # # 18.19: from the hand into the Play Area
        "card_scrapped": ("top", lambda ev: [ev["card"]]),  # # 18.12: the deck's top card, shown
    },
    react_offers=lazy(f"{__name__}.recorder", "react_offers"),  # its React answers in the question (# 18.10-18.23)
    react_pending=lazy(f"{__name__}.recorder", "react_pending"),  # a Scrap's cards after React (# 18.12)
    discard_words=lazy(f"{__name__}.recorder", "discard_words"),  # a Refresh at the discard (# 18.21)
    card_name=lazy(f"{__name__}.words", "card_name"),  # an upgrade by name and value (# 18.2)
    played_aside=lazy(f"{__name__}.words", "played_aside"),  # played from the hand in React (# 18.19)
    spaces_moved=lazy(f"{__name__}.words", "spaces_moved"),  # a re-move replaces the moves before it (# 18.11)
    narrate_step3=lazy(f"{__name__}.words", "step3_words"),  # a card's value, + flips, Accelerate (# 18.6, 18.8, 18.20)
    narrate_react=lazy(f"{__name__}.words", "react_words"),  # each React symbol used, in order (# 18.x)
    event_words=lazy(f"{__name__}.words", "event_words"),  # its events in the recorder's words
    bot_policy=lazy(f"{__name__}.bots", "policy"),  # how the bots draft, plan with and play its cards (# 18.5-18.21)
    turn_columns=TURN_COLUMNS,
    turn_facts=lazy(f"{__name__}.facts", "turn_facts"),
    race_columns=RACE_COLUMNS,
    race_facts=lazy(f"{__name__}.facts", "race_facts"),
    summary=lazy(f"{__name__}.facts", "summary"),  # its options in simulate's JSON and title (# 18.3)
    summary_words=lazy(f"{__name__}.facts", "summary_words"),
    flags=FLAGS,
    from_flags=_from_flags,
    # # 18.5: the draft's markets are what the table reveals: a play-out, the review and luck start after it
    unplayable={PHASE: ("Garage draft", "a play-out does not draw the draft's markets", "18.5")},
    notation=DRAFT_NOTATION,
    setup_steps=SETUP_STEPS,
    playthrough_tail=lazy(f"{__name__}.words", "playthrough_tail"),  # the draft, under a golden playthrough
    position_cards=_position_cards,  # # 18.4: no deck before the draft is over
    turn_answers=TURN_ANSWERS,
    doc_order=3,
    samples=SAMPLES,
    goldens=GOLDENS,
    card_tables=lazy(f"{__name__}.cards", "card_tables"),  # its upgrades by set (# 18.2)
    study_keys=(NAME,),
    study_read=_study_read,
    study_block=lambda kept: kept.get(NAME),
    season=SeasonHook(  # # 21.2: one upgrade drafted before each race of a season, the sponsorship cards with it
        "the Garage",
        "21.2",
        setup=lazy(f"{__name__}.season", "setup"),
        race=lazy(f"{__name__}.season", "race"),
        effects=frozenset(
            {"first_across_lap_1", "speed_record", "passes_for_card", "press_cards", "press_below_limit"}
        ),  # # 21.4-21.9: the sponsorship cards and press corners come with it
        finished=lazy(f"{__name__}.season", "finished"),
        race_block=lazy(f"{__name__}.season", "race_block"),
        race_cards=lazy(f"{__name__}.season", "race_cards"),
        files=("cards/garage.json", "cards/sponsors.json"),  # the upgrades and the sponsorship cards (# 18.2, 21.5)
        next_lines=lazy(f"{__name__}.season", "next_lines"),  # what the draft before the race carries and waits for
        race_json=lazy(f"{__name__}.season", "race_json"),  # season show: the upgrades, the sponsorship cards kept
        season_json=lazy(f"{__name__}.season", "season_json"),
        show_lines=lazy(f"{__name__}.season", "show_lines"),
        audited=("garage", "cards"),  # the season's audit: the race's Garage and cards are the season's
        audit_words="the Garage options or the race's cards are not the season's (# 21.2, 21.5)",
        result_flags=RESULT_FLAGS,  # season result: the draft and the sponsorship cards (# 21.2, 21.4-21.9)
        result_entry=lazy(f"{__name__}.season", "result_entry"),
        result=lazy(f"{__name__}.season", "result"),
        result_grid="the first race's draft picks from the car last on the grid: give --grid",  # # 21.2
    ),
    # its record of a turn (# 18.6-18.25): the position's turn key "garage", after the base's keys; deep-copied
    turn_record=TurnRecord((NAME,), _turn_to_position, _turn_from_position, copy=_copy_module.deepcopy),
    # a Scrap's cards, a Salvage's shuffle, a Refresh, an unpaid cost: asked apart (# 18.11-18.21)
    line_ends=frozenset(("card_scrapped", "salvaged", "refreshed", "heat_unpayable")),
)
