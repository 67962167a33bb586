"""Builders for Garage race scenarios (# 18.x): a Garage race set up by events, or placed on a board.

Cards are written as space-separated tokens, top of a deck first: ``"U8 2 S"``. Upgrades are the Garage
tokens (``U7`` = type 7, heatlog/data/cards/garage.json).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from heatlog.engine import apply
from heatlog.engine.rules import start_round
from heatlog.races import race_started_event

from ...conftest import TRACK, Race, deal_cards, ev
from ..helpers import _fit

OPTIONS = {"upgrades": "all", "draft": "random", "expansions": ["heavy-rain", "tunnel-vision"]}


def toks(spec: str | list[str]) -> list[str]:
    return spec.split() if isinstance(spec, str) else list(spec)


def garage_started(cars=("A", "B"), *, track=None, laps=1, mode="open", options=None, weather=False) -> Race:
    event = race_started_event(
        track=track or TRACK,
        cars=[{"name": n, "colour": f"c{i}"} for i, n in enumerate(cars)],
        laps=laps,
        mode=mode,
        modules={
            "garage": dict(OPTIONS if options is None else options),
            **({"weather": {}} if weather else {}),  # MODULES.md 20: its tile and tokens are drawn after the draft
        },
    )
    return Race(apply(None, event))


def full_deck(upgrades: list[str], top: list[str], stress: int = 3) -> list[str]:
    """A Garage starting deck (# 18.1: 12 Basic + upgrades + Stress), ``top`` first, the rest in a fixed order."""
    rest = Counter([c for c in "1234" for _ in range(3)] + upgrades + ["S"] * stress)
    rest.subtract(top)
    assert all(v >= 0 for v in rest.values()), f"{top} is not part of the deck"
    kinds = dict.fromkeys(["1", "2", "3", "4", *sorted(set(upgrades)), "H", "S"])
    tail = [c for c in kinds for _ in range(rest[c])]
    return list(top) + tail


def garage_race(
    upgrades: dict[str, str],
    *,
    decks: dict[str, str] | None = None,
    mode: str = "open",
    track: dict[str, Any] | str | None = None,
    laps: int = 1,
    weather: tuple[str, list[str]] | None = None,
) -> Race:
    """A Garage race set up by events (random deal, # 18.5): ``upgrades`` per car in grid order; ``weather`` =
    (tile, tokens) drawn after the draft (MODULES.md 18.4, 20.2)."""
    names = list(upgrades)
    race = garage_started(names, track=track, laps=laps, mode=mode, weather=weather is not None)
    race.ev("grid_set", order=names)
    for name in names:
        race.ev("upgrades_dealt", car=name, cards=toks(upgrades[name]))
    if weather is not None:
        race.ev("weather_drawn", tile=weather[0])
        race.ev("road_conditions_drawn", tokens=list(weather[1]))
    for name in names:
        if mode == "open":
            d = full_deck(toks(upgrades[name]), toks((decks or {}).get(name, "")))
            d = _fit(d, race.car(name).pool)  # the weather's start effect changed the deck (# 20.3)
            race.ev("deck_shuffled", car=name, order=d)
            race.ev("cards_drawn", car=name, cards=d[:7])
        else:
            race.ev("deck_shuffled", car=name)
            race.ev("cards_drawn", car=name, count=7)
    return race


def garage_board(
    cars: dict[str, dict[str, Any]],
    *,
    mode: str = "open",
    laps: int = 1,
    track: dict[str, Any] | str | None = None,
    weather: tuple[str, list[str]] | None = None,
) -> Race:
    """A Garage race with the cars placed as described (as ``conftest.board``), at step 1 of round 1.

    Each car: ``at``, ``lane``, ``gear`` (1), ``hand`` (7 tokens), ``deck`` (top first), ``discard``, ``engine`` (6),
    ``upgrades`` (its 3 drafted cards; default ``U1 U1 U2``)."""
    names = list(cars)
    upgrades = {n: cars[n].get("upgrades", "U1 U1 U2") for n in names}
    race = garage_race(upgrades, mode=mode, laps=laps, track=track, weather=weather)
    st = race.state
    st.spots.clear()
    for name, spec in cars.items():
        c = st.cars[name]
        hand = toks(spec.get("hand", "1 2 3 4 1 2 3"))
        dk = toks(spec.get("deck", "4 1 2 3 4 1 2 3 4 1 2 3 4"))
        deal_cards(c, spec, mode, hand, dk, toks, st.cards.tokens)  # the race's catalogue: base cards, its upgrades
        c.progress = spec["at"]
        c.lane = spec.get("lane") or st.track.race_lane(c.progress)
        st.spots[(st.track.space_of(c.progress), c.lane)] = name
    st.started = len(st.cars)
    st.round = 0
    start_round(st)
    return race


PARK = "1 1 1 1 1 1 1"  # a hand for a car that just drives 1 in gear 1

__all__ = ["PARK", "Race", "ev", "full_deck", "garage_board", "garage_race", "garage_started", "toks"]
