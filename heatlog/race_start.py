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
    modules: Mapping[str, Any] | None = None,
) -> Event:
    """The set-up event for a race on a built-in or user track (# 1.1–1.4, 17.1, 17.2).

    ``legends``: Legend cars ``{"name", "colour"}`` (MODULES.md 19; colours from the Legend card), with the
    options ``pro`` (19.15) and ``aggressive`` (19.14); ``weather``: the weather and road conditions (20);
    ``garage``: the Garage module's options (18.3, 18.5: upgrades, draft, expansions), whose cards the event
    embeds in its ``cards`` block (the race's card catalogue); ``more``: other modules by name, each with its
    race_started block (a module registered as one unit, engine/module.py: ``module_data.module_block``).

    ``modules``: the same, as one mapping of each module's options by its name (issue 26, build 5; see
    :func:`module_options`): ``{"garage": {...}, "legends": {"cars": [...], "pro": 0, "aggressive": False},
    "weather": {}, "rain": {...}}``. The keywords above are its thin adapters (both at once are refused)."""
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
        "cars": list(cars),
        "variant": variant,
        "handicap": list(handicap or []),
        "mode": mode,
    }
    given = module_options(legends=legends, pro=pro, aggressive=aggressive, weather=weather, garage=garage, more=more)
    if modules is not None and given:
        raise MalformedInput("give the modules as one mapping (modules=) or by their keywords, not both")
    options = dict(modules) if modules is not None else given
    blocks: dict[str, Any] = {}
    for name in _in_order(options):
        value = options[name]
        if name == "garage":
            from .engine.modules.garage.cards import GarageOptions
            from .garage_cards import race_block

            try:
                garage_options = GarageOptions.from_dict(value)
            except ValueError as exc:
                raise MalformedInput(str(exc)) from exc
            blocks["garage"] = garage_options.to_dict()
            ev["cards"] = race_block(garage_options)  # # 18.2: the race's card catalogue holds its upgrades
        elif name == "legends":
            cars_ = list(value.get("cars") or [])
            pro_, aggressive_ = value.get("pro", 0), value.get("aggressive", False)
            if cars_:
                ev["cars"] += [{"name": c["name"], "colour": c["colour"], "legend": True} for c in cars_]
                blocks["legends"] = legends_module(pro=pro_, aggressive=aggressive_)
            elif pro_ or aggressive_:
                raise MalformedInput("--pro and --aggressive are Legend options: add Legends (# 19.14, 19.15)")
        elif name == "weather":
            if value is not None and value is not False:  # {} (it has no options) or True
                blocks["weather"] = weather_module()
        else:
            blocks[name] = value
    if blocks:  # the list says which modules compose the race's Rules; each keeps its data under its name
        ev["modules"] = list(blocks)
        ev.update(blocks)
    if seed is not None:
        ev["seed"] = seed
    return ev


#: The first waves' modules, in the order race_started lists them (their Rules' rank: the Garage replaces points,
#: so first); any other module comes after them, in the order given.
_FIRST = ("garage", "legends", "weather")


def _in_order(options: Mapping[str, Any]) -> list[str]:
    return [*(n for n in _FIRST if n in options), *(n for n in options if n not in _FIRST)]


def module_options(
    *,
    legends: list[dict[str, Any]] | None = None,
    pro: int = 0,
    aggressive: bool = False,
    weather: bool = False,
    garage: Mapping[str, Any] | None = None,
    more: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The modules' options as one mapping by module name (what ``race_started_event(modules=)`` takes), from the
    keywords the callers of the first waves pass: ``garage`` its options, ``legends`` ``{"cars", "pro",
    "aggressive"}``, ``weather`` ``{}`` when on, each of ``more`` its race_started block. Empty: the base game."""
    out: dict[str, Any] = {}
    if garage is not None:
        out["garage"] = dict(garage)
    if legends or pro or aggressive:
        out["legends"] = {"cars": list(legends or []), "pro": pro, "aggressive": aggressive}
    if weather:
        out["weather"] = {}
    for name, block in (more or {}).items():
        if name in out:
            raise MalformedInput(f"module {name!r} is given twice")
        out[name] = block
    return out
