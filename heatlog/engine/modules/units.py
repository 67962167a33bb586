"""The first waves' modules as registered units (engine/module.py): the championship, Legends, the Garage and the
weather, each one ``Module`` naming its start, its position block, its chance draws and its set-up phases.

What the shells and the core kept for each of them in an if-ladder of their own (``rules._modules``,
``position._modules_to_position``/``_modules_from_position``, ``game.module_chance_event``) is here, once per
module. Their packages load with a race that lists them (issue 10: start-up): every hook imports its module's
package at its first call. Their event types stay registered where they were (the catalogue's order), and their
state keeps its fields on ``RaceState`` (``state_fields``). Registered in this order: a position writes the
modules' blocks in it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..events import REGISTRY, EventType
from ..events import register as register_event
from ..module import Module, lazy, register_unit

if TYPE_CHECKING:
    from ..state import RaceState

Event = dict[str, Any]


def _events(name: str) -> tuple[Any, ...]:
    return tuple(e for e in REGISTRY.values() if e.module == name)


def _lazy(package: str, name: str) -> Any:
    """``engine/modules/<package>``'s function ``name``, imported at its first call (module.lazy)."""
    return lazy(f"{__package__}.{package}", name)


def register_events() -> None:
    """The weather's, Legends' and championship's chance events, in the catalogue's order (before the Garage's;
    the championship's swap comes after them, with its descriptor). Their handlers are in their packages."""
    for entry in (
        EventType("weather_drawn", _lazy("weather", "weather_drawn"), module="weather", chance=True),
        EventType("road_conditions_drawn", _lazy("weather", "road_conditions_drawn"), module="weather", chance=True),
        EventType("legend_card_revealed", _lazy("legends", "legend_card_revealed"), module="legends", chance=True),
        EventType(
            "heat_removed",
            _lazy("championship", "heat_removed"),
            module="championship",
            turn=True,
            guarded=True,
            chance=True,
        ),
        EventType(
            "sponsor_drawn",
            _lazy("championship", "sponsor_drawn"),
            module="championship",
            turn=True,
            guarded=True,
            chance=True,
        ),
    ):
        register_event(entry)


# ---------------------------------------------------------------------------------------------- championship


def _championship_block(state: RaceState) -> Any:
    return state.rules.options["championship"]  # its block, as race_started holds it (# 21.8)


def _sponsors_top(state: RaceState) -> dict[str, Any]:
    """# 21.4, 21.7: the championship's sponsorship deck, at the top of the position (where it always was)."""
    return {"sponsor_deck": state.sponsor_deck.to_dict()} if state.sponsor_deck is not None else {}


def _sponsors_back(state: RaceState, pos: Mapping[str, Any]) -> None:
    if pos.get("sponsor_deck") is not None:
        from .championship import SponsorDeck

        state.sponsor_deck = SponsorDeck.from_dict(pos["sponsor_deck"])


def _sponsor_chance(state: RaceState, rng: random.Random) -> Event | None:
    """# 21.4, 21.7, MA30: a sponsorship card dealt or earned, any the sponsorship deck can give."""
    sponsors = state.sponsor_deck
    if sponsors is None:
        return None
    name = None
    turn = state.turn
    if state.phase == "sponsors":
        due = state.rules.phase_waiting(state)
        name = due[1][0] if due is not None and due[0] == "sponsor_drawn" else None
    elif turn is not None and turn.owed and turn.owed[0] == "sponsor_drawn":
        name = turn.car
    if name is None:
        return None
    pile = sorted(c for c, n in sponsors.available().items() for _ in range(n))
    return {"type": "sponsor_drawn", "v": 1, "car": name, "card": rng.choice(pile)}


# ---------------------------------------------------------------------------------------------- Legends


def _legends_start(state: RaceState, ev: Event) -> None:
    """# 19: the Legend deck's data and options, checked against the track and the cars (# 17.2, 19.1, 19.2)."""
    from . import legends as _legends

    rules = _legends.LegendRules.from_dict(ev.get("legends"))  # (ValueError: the race is refused)
    cars = ev.get("cars") or []
    why = _legends.setup_problem(rules, state.track, cars)
    if why:
        raise ValueError(why)
    handicap = ev.get("handicap") or []
    bad = [c["name"] for c in cars if c.get("legend") and c["name"] in handicap]
    if bad:
        raise ValueError(f"{bad[0]} is a Legend: it has no Engine to handicap (# 17.2, 19.1)")
    state.legends, state.legend_deck = rules, _legends.LegendDeck()


def _legends_block(state: RaceState) -> Any:
    if state.legends is None or state.legend_deck is None:
        return None
    return {**state.legends.data, "deck": state.legend_deck.to_dict()}


def _legends_back(state: RaceState, block: Any, pos: Mapping[str, Any]) -> None:
    from .legends import LegendDeck, LegendRules

    state.legends = LegendRules.from_dict(block)
    state.legend_deck = LegendDeck.from_dict(block.get("deck", {}))


def _legend_outcomes(state: RaceState) -> tuple[str, int, list[tuple[Event, float]]] | None:
    """# 19.5, MA9: the round's Legend card, each card not turned since the last reshuffle equally likely (a
    public deck)."""
    turn = state.turn
    if turn is None:
        return None
    legends, deck = state.legends, state.legend_deck
    assert legends is not None and deck is not None
    cards = sorted(deck.available(legends))
    return turn.car, 1, [({"type": "legend_card_revealed", "v": 1, "card": c}, 1 / len(cards)) for c in cards]


def _legend_chance(state: RaceState, rng: random.Random) -> Event | None:
    """# 19.5, MA9: the round's Legend card, any card not turned since the last reshuffle."""
    turn = state.turn
    if state.phase != "race" or turn is None or not state.cars[turn.car].legend:
        return None
    legends, deck = state.legends, state.legend_deck
    assert legends is not None and deck is not None
    return {"type": "legend_card_revealed", "v": 1, "card": rng.choice(sorted(deck.available(legends)))}


# ---------------------------------------------------------------------------------------------- the Garage


def _garage_start(state: RaceState, ev: Event) -> None:
    from . import garage_race as _garage

    state.garage = _garage.start(ev, state.cards)  # # 18.1: the Garage module, its options and its cards


def _garage_block(state: RaceState) -> Any:
    if state.garage is None:
        return None
    from . import garage_race as _garage

    return _garage.race_to_dict(state.garage)  # options, cards, upgrades owned, the draft


def _garage_back(state: RaceState, block: Any, pos: Mapping[str, Any]) -> None:
    from ..cards import BASE_CATALOGUE
    from . import garage_race as _garage

    state.garage = _garage.race_from_dict(block)
    cards = block.get("cards")
    state.cards = BASE_CATALOGUE.with_block(cards) if cards else BASE_CATALOGUE


def _garage_chance(state: RaceState, rng: random.Random) -> Event | None:
    """# 18.5: the draft's market or a car's random deal; # 18.12: a scrapped card, the top of a known deck."""
    garage = state.garage
    if state.phase == "garage" and garage is not None and garage.draft is not None:
        from .garage import draft_chance

        return draft_chance(garage.draft, rng)
    turn = state.turn
    if turn is not None and turn.flipping == "scrap":
        car = state.cars[turn.car]
        top = car.deck[-1] if car.deck else car.deck_top[-1] if car.deck_top else None
        return None if top is None else {"type": "card_scrapped", "v": 1, "car": car.name, "card": top}
    return None


# ---------------------------------------------------------------------------------------------- the weather


def _weather_start(state: RaceState, ev: Event) -> None:
    from . import weather as _weather

    state.weather = _weather.WeatherRules.from_dict(ev.get("weather"))  # (ValueError: the race is refused)


def _weather_block(state: RaceState) -> Any:
    if state.weather is None:
        return None
    return {
        "data": state.weather.data,
        "tile": state.weather_tile,
        "tokens": list(state.conditions.tokens) if state.conditions is not None else None,
    }


def _weather_back(state: RaceState, block: Any, pos: Mapping[str, Any]) -> None:
    from .weather import WeatherRules, build_conditions

    state.weather = WeatherRules.from_dict(block["data"])
    state.weather_tile = block.get("tile")
    if block.get("tokens") is not None:
        assert state.weather_tile is not None
        state.conditions = build_conditions(state.track, state.weather, state.weather_tile, block["tokens"])


def _weather_chance(state: RaceState, rng: random.Random) -> Event | None:
    """# 20.2: the weather tile (one of six), then one road-condition token per corner from the shuffled bag
    (MC8; a chicane is one corner, 22.2)."""
    if state.phase != "weather":
        return None
    rules = state.weather
    assert rules is not None
    if state.weather_tile is None:
        return {"type": "weather_drawn", "v": 1, "tile": rng.choice(sorted(rules.tiles))}
    from .weather import corner_groups

    bag = sorted(t.id for t in rules.tokens.values() for _ in range(t.copies))
    rng.shuffle(bag)
    return {"type": "road_conditions_drawn", "v": 1, "tokens": bag[: len(corner_groups(state.track))]}


def register() -> None:
    """The four descriptors, in the order a position writes their blocks (their event types are registered
    already, but the championship's swap: ``register_unit`` keeps them; the Garage's builder too)."""
    from ..ruleset import MODULES as BUILDERS

    register_unit(
        Module(
            "championship",
            build=_lazy("championship", "build"),  # # 21.8
            # # 21.2: the season draft's swap, after the Garage's events in the catalogue
            events=(
                *_events("championship"),
                EventType("upgrade_swapped", _lazy("garage_race", "draft_event"), module="championship"),
            ),
            rank=40,
            to_position=_championship_block,
            top_to_position=_sponsors_top,
            top_from_position=_sponsors_back,
            options_in_position=True,
            chance=_sponsor_chance,
            phases=("sponsors",),
            state_fields=("sponsor_deck",),
            data="championship.json",
            waiting={
                "upgrade_swapped": "{name}'s swap, or none (# 21.2)",
                "sponsor_drawn": "{name}'s sponsorship card (# 21.4, 21.7)",
            },
        )
    )
    register_unit(
        Module(
            "legends",
            build=_lazy("legends", "build"),  # # 19.6
            events=_events("legends"),
            rank=20,
            start=_legends_start,
            to_position=_legends_block,
            from_position=_legends_back,
            chance=_legend_chance,
            state_fields=("legend_deck",),
            data="legends.json",
            waiting={"legend_card_revealed": "the Legend card of round {count} (# 19.5)"},
            outcomes={"legend_card_revealed": _legend_outcomes},
        )
    )
    register_unit(
        Module(
            "garage",
            build=BUILDERS["garage"],  # (garage_events.register: with its events)
            events=_events("garage"),
            rank=10,  # its Rules replace points: first
            start=_garage_start,
            to_position=_garage_block,
            from_position=_garage_back,
            chance=_garage_chance,
            phases=("garage",),
            state_fields=("garage",),
            cards_key="cards",  # its block carries the race's upgrade (and sponsorship) cards
            waiting={
                "garage_market": "the Garage market (# 18.5)",
                "upgrade_picked": "{name}'s upgrade pick (# 18.5)",
                "upgrade_removed": "{name} gives back one upgrade (# 18.5)",
                "upgrades_dealt": "{name}'s three upgrades (# 18.5)",
            },
        )
    )
    register_unit(
        Module(
            "weather",
            build=_lazy("weather", "build"),  # # 20.2–20.13
            events=_events("weather"),
            rank=30,
            start=_weather_start,
            to_position=_weather_block,
            from_position=_weather_back,
            chance=_weather_chance,
            phases=("weather",),
            data="weather.json",
            marks=_lazy("weather_words", "conditions_lines"),  # the tile and every corner's token (20.2)
            before_decks={
                "weather": ("draw the weather tile and the road-condition tokens before the starting shuffle", "20.3")
            },
            waiting={
                "weather_drawn": "the weather tile (# 20.2)",
                "road_conditions_drawn": "the road-condition tokens, one per corner (# 20.2)",
            },
        )
    )
