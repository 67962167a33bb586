"""The weather in a championship season (MODULES.md 20, 21.3; ``Module.season``): its season block and its races'.

BGA plays every championship race with the weather and road conditions (# 21.3): a season with the weather keeps
``season_started.options.weather = true`` and starts each race with the module, its tile and tokens revealed after
the draft (# 21.3: the race's own set-up phase, after the Garage's)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...module import Said


def setup(given: Any, drivers: Sequence[Mapping[str, Any]], data: Any, said: Said) -> Any:
    """``season_started.options.weather``: true when the caller gives the weather (any options but false)."""
    return True if given not in (None, False) else None


def race(block: Any) -> Any:
    """The weather's options in each race of a season that plays it (# 21.3): none beyond the module."""
    return {} if block else None
