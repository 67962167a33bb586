"""The Championship data: the published seasons 1961–1965 and the 18 event cards (``heatlog/data/championship.json``,
``schema/championship.schema.json``), validated and turned into the engine's :class:`EventCard`.

A season embeds the cards and circuits it uses, so a later edit of the data file cannot change an old season.
"""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..engine.errors import MalformedInput
from ..engine.modules.championship.rules import EventCard
from .schemas import validate_against
from .tracks import BUILTIN_TRACKS

DATA = Path(__file__).parent.parent / "data" / "championship.json"

__all__ = ["DATA", "championship_data", "event_card", "published_season", "season_names"]


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    validate_against("championship", data)
    for number, card in data["events"].items():
        EventCard.from_dict(int(number), card)  # every effect is one the engine knows
    for name, season in data["seasons"].items():
        for race in season["races"]:
            assert race["track"] in BUILTIN_TRACKS, f"season {name}: unknown track {race['track']}"
            assert str(race["event"]) in data["events"], f"season {name}: unknown event {race['event']}"
    return data


def championship_data() -> dict[str, Any]:
    """The whole built-in file (a copy)."""
    return copy.deepcopy(_data())


def season_names() -> list[str]:
    return list(_data()["seasons"])


def event_card(number: int) -> EventCard:
    """Event card ``number`` (1–18, # 21.8)."""
    card = _data()["events"].get(str(number))
    if card is None:
        raise MalformedInput(f"unknown event card {number}: the cards are 1..{len(_data()['events'])} (# 21.8)")
    return EventCard.from_dict(number, card)


def published_season(name: str) -> list[tuple[str, EventCard]]:
    """(track id, event card) of each race of a published season (# 21.1), in order."""
    season = _data()["seasons"].get(str(name).strip())
    if season is None:
        raise MalformedInput(f"unknown season {name!r}: the published seasons are {', '.join(season_names())} (# 21.1)")
    return [(race["track"], event_card(race["event"])) for race in season["races"]]
