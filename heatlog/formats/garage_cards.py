"""The Garage's card files (``heatlog/data/cards/garage.json``, ``sponsors.json``) and the block a Garage race
embeds in its ``race_started`` (# 18.2, 18.3).

The engine never reads these files: a race carries the definitions of the upgrades it can meet, as it carries its
track, so a later edit of a card file cannot change an old race.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from heatlog.engine.modules.garage import cards as _cards
from heatlog.engine.modules.garage.cards import GarageOptions

CARDS_DIR = Path(__file__).parent.parent / "data" / "cards"


@cache
def _load(name: str) -> tuple[dict[str, Any], ...]:
    data = json.loads((CARDS_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return tuple(data["cards"])


def garage_cards() -> list[dict[str, Any]]:
    """Every Garage card type (upgrades 1–60 and the Garage deck's Heat types 17 and 48), as in the file."""
    return [dict(c) for c in _load("garage")]


def sponsor_cards() -> list[dict[str, Any]]:
    """The Championship's sponsorship card types 80–86 (# 21.5), as in the file."""
    return [dict(c) for c in _load("sponsors")]


def race_block(options: GarageOptions) -> dict[str, dict[str, Any]]:
    """Token -> definition of every upgrade a race with ``options`` can meet (embedded in ``race_started``)."""
    return _cards.race_block(garage_cards(), options)
