"""The set-up event of a race (``race_started``), built from its options: pure (no store, no log), below the race
log, so the season's view (:mod:`heatlog.season_view`) can build a race's set-up without importing the services
above the log. :mod:`heatlog.races` starts races with it (and still exports it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .engine.errors import MalformedInput
from .module_data import legends_module, weather_module
from .tracks import load_track_data

Event = dict[str, Any]


def race_started_event(
    *,
    track: str | dict[str, Any],
    cars: list[dict[str, Any]],
    laps: int | None = None,
    mode: str = "table",
    variant: str | None = None,
    handicap: list[str] | None = None,
    seed: int | None = None,
    legends: list[dict[str, Any]] | None = None,
    pro: int = 0,
    aggressive: bool = False,
    weather: bool = False,
    garage: dict[str, Any] | None = None,
    more: Mapping[str, Any] | None = None,
) -> Event:
    """The set-up event for a race on a built-in or user track (# 1.1–1.4, 17.1, 17.2).

    ``legends``: Legend cars ``{"name", "colour"}`` (MODULES.md 19; colours from the Legend card), with the
    options ``pro`` (19.15) and ``aggressive`` (19.14); ``weather``: the weather and road conditions (20);
    ``garage``: the Garage module's options (18.3, 18.5: upgrades, draft, expansions), whose cards the event
    embeds in its ``cards`` block (the race's card catalogue); ``more``: other modules by name, each with its
    race_started block (a module registered as one unit, engine/module.py: ``module_data.module_block``)."""
    data = load_track_data(track) if isinstance(track, str) else track
    variant = variant or "standard"
    if variant not in ("standard", "one-lap"):
        raise MalformedInput(f"unknown variant {variant!r} (one-lap, or none for the standard race)")
    if laps is None:
        laps = 1 if variant == "one-lap" else int(data["laps"])
    ev: Event = {
        "type": "race_started",
        "v": 1,
        "track": data,
        "laps": laps,
        "cars": list(cars) + [{"name": c["name"], "colour": c["colour"], "legend": True} for c in legends or []],
        "variant": variant,
        "handicap": list(handicap or []),
        "mode": mode,
    }
    modules: dict[str, Any] = {}
    if garage is not None:
        from .engine.modules.garage import GarageOptions
        from .garage_cards import race_block

        try:
            options = GarageOptions.from_dict(garage)
        except ValueError as exc:
            raise MalformedInput(str(exc)) from exc
        modules["garage"] = options.to_dict()
        ev["cards"] = race_block(options)  # # 18.2: the race's card catalogue holds its upgrades
    if legends:
        modules["legends"] = legends_module(pro=pro, aggressive=aggressive)
    elif pro or aggressive:
        raise MalformedInput("--pro and --aggressive are Legend options: add Legends (# 19.14, 19.15)")
    if weather:
        modules["weather"] = weather_module()
    for name, block in (more or {}).items():
        if name in modules:
            raise MalformedInput(f"module {name!r} is given twice")
        modules[name] = block
    if modules:  # the list says which modules compose the race's Rules; each keeps its data under its name
        ev["modules"] = list(modules)
        ev.update(modules)
    if seed is not None:
        ev["seed"] = seed
    return ev
