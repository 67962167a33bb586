"""Builders for module scenarios (Legends, weather): races set up by events exactly as a log would be, and
boards with cars (and Legends) placed where a scenario needs them. See tests/rules/conftest.py for the base."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from heatlog.engine import apply, start_round
from heatlog.engine.cards import HAND_SIZE
from heatlog.formats.module_data import legends_module, weather_module
from heatlog.formats.tracks import load_track_data
from heatlog.races import expand_modules

from ..conftest import DEFAULT_DECK, DEFAULT_HAND, Race, cards, deal_cards, deck, ev

LEGEND_COLOURS = ("black", "blue", "green", "red", "gray", "yellow")


def modules_block(
    *, legends: bool = False, weather: bool = False, pro: int = 0, aggressive: bool = False
) -> dict[str, Any]:
    """``race_started``'s module fields: the ``modules`` list and each module's block under its own name."""
    out: dict[str, Any] = {}
    if legends:
        out["legends"] = legends_module(pro=pro, aggressive=aggressive)
    if weather:
        out["weather"] = weather_module()
    return {"modules": list(out), **out} if out else {}


def module_race(
    players: Sequence[str] = ("A",),
    legends: dict[str, str] | None = None,
    *,
    track: str | dict[str, Any] = "usa",
    laps: int | None = None,
    mode: str = "open",
    grid: Iterable[str] | None = None,
    weather: tuple[str, list[str]] | None = None,
    decks: dict[str, str] | None = None,
    pro: int = 0,
    aggressive: bool = False,
    handicap: Iterable[str] = (),
) -> Race:
    """A race set up by events: ``players`` (colours c0, c1 …) and ``legends`` {name: Legend colour}; the grid
    in ``grid`` order (default: players then Legends); ``weather`` = (tile, tokens) drawn after the grid."""
    data = load_track_data(track) if isinstance(track, str) else track
    legends = legends or {}
    cars = [{"name": n, "colour": f"c{i}"} for i, n in enumerate(players)]
    cars += [{"name": n, "colour": c, "legend": True} for n, c in legends.items()]
    start = ev(
        "race_started",
        track=data,
        laps=laps or data["laps"],
        cars=cars,
        variant="standard",
        handicap=list(handicap),
        mode=mode,
        **modules_block(legends=bool(legends), weather=weather is not None, pro=pro, aggressive=aggressive),
    )
    race = Race(apply(None, start))
    race.log.append(start)
    order = list(grid) if grid is not None else [c["name"] for c in cars]
    race.ev("grid_set", order=order)
    if weather is not None:
        race.ev("weather_drawn", tile=weather[0])
        race.ev("road_conditions_drawn", tokens=list(weather[1]))
    for name in order:
        if name in legends:
            continue
        if mode == "open":
            car = race.car(name)
            d = deck((decks or {}).get(name, ""))
            d = _fit(d, car.pool)
            race.ev("deck_shuffled", car=name, order=d)
            race.ev("cards_drawn", car=name, cards=d[:HAND_SIZE])
        else:
            race.ev("deck_shuffled", car=name)
            race.ev("cards_drawn", car=name, count=HAND_SIZE)
    return race


def _fit(order: list[str], pool: dict[str, int]) -> list[str]:
    """A starting-deck order changed by the weather (# 20.3): drop the Stress taken out, add Heat/Stress put in."""
    out: list[str] = []
    left = dict(pool)
    for c in order:
        if left.get(c, 0) > 0:
            out.append(c)
            left[c] -= 1
    for c, n in left.items():
        out += [c] * n
    return out


def module_board(
    cars: dict[str, dict[str, Any]],
    *,
    track: str | dict[str, Any] = "usa",
    laps: int | None = None,
    mode: str = "open",
    weather: tuple[str, list[str]] | None = None,
    started: int | None = None,
    pro: int = 0,
    aggressive: bool = False,
    legend_cards_used: Sequence[int] = (),
) -> Race:
    """Like ``conftest.board``: cars placed as described (a spec with ``legend`` = colour is a Legend), at step 1
    of round 1. ``legend_cards_used``: Legend cards already turned since the last reshuffle (# MA9)."""
    players = [n for n, s in cars.items() if "legend" not in s]
    legends = {n: s["legend"] for n, s in cars.items() if "legend" in s}
    race = module_race(
        players, legends, track=track, laps=laps, mode=mode, weather=weather, pro=pro, aggressive=aggressive
    )
    st = race.state
    st.spots.clear()
    for name, spec in cars.items():
        c = st.cars[name]
        if not c.legend:
            hand, dk = cards(spec.get("hand", DEFAULT_HAND)), cards(spec.get("deck", DEFAULT_DECK))
            deal_cards(c, spec, mode, hand, dk, cards)
        c.progress = spec["at"]
        c.lane = spec.get("lane") or st.track.race_lane(c.progress)
        key = (st.track.space_of(c.progress), c.lane)
        assert key not in st.spots, f"{name} and {st.spots[key]} both on space {key[0]} lane {key[1]}"
        st.spots[key] = name
    st.started = started or len(st.cars)
    if "legends" in st.modules:
        st.modules["legends"].deck.used = list(legend_cards_used)
    st.round = 0
    start_round(st)
    return race


def legend_cars(count: int, taken: Sequence[str] = ()) -> list[dict[str, str]]:
    """``count`` Legend cars in the Legend colours ``taken`` leaves free (# 19.3, 19.4), as a race's set-up makes
    them: the Legends' descriptor's ``expand`` (``races.expand_modules``; was ``races.legend_cars``)."""
    cars: list[dict[str, str]] = expand_modules({"legends": {"cars": count}}, [{"colour": c} for c in taken])[
        "legends"
    ]["cars"]
    return cars


def legend_card(race: Race, card: int) -> Race:
    return race.ev("legend_card_revealed", card=card)


__all__ = ["LEGEND_COLOURS", "legend_card", "legend_cars", "module_board", "module_race", "modules_block"]
