"""The set-up event of a race (``race_started``), built from its options: pure (no store, no log), below the race
log, so the season's view (:mod:`heatlog.log.season_view`) can build a race's set-up without importing the services
above the log. :mod:`heatlog.races` starts races with it (and still exports it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.errors import MalformedInput
from ..formats.tracks import load_track_data

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
    modules: Mapping[str, Any] | None = None,
) -> Event:
    """The set-up event for a race on a built-in or user track (# 1.1–1.4, 17.1, 17.2).

    ``modules``: the modules the race plays with, each module's options by its registered name, as one mapping
    (issue 26, build 5): ``{"garage": {"upgrades": "basic", "draft": "snake"}, "legends": {"cars": [{"name",
    "colour"}, ...], "pro": 0, "aggressive": False}, "weather": {}, "rain": {"skies": {...}}}``. Each module's
    set-up (``Module.setup``, given its data file) makes its race_started block from its options (the Garage
    embeds its cards in the race's ``cards`` block, the Legends add their cars); a module without one takes its
    options as its block. A command line makes the mapping from each module's flags (``Module.from_flags``)."""
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
    options = dict(modules or {})
    blocks: dict[str, Any] = {}
    if options:  # (the modules' packages, their data: loaded with a race that lists them, issue 10: start-up)
        from ..engine import rules as _registered  # noqa: F401  (importing the rules registers every module)
        from ..engine.module import MODULES
        from ..formats.module_data import data_of
    for name in _in_order(options):
        unit = MODULES.get(name)
        if unit is None or unit.setup is None:  # its options are its block, as given
            blocks[name] = options[name]
            continue
        try:  # the module's own set-up, from its data file (engine/module.py: Module.setup)
            block = unit.setup(options[name], data_of(name), ev)
        except ValueError as exc:
            raise MalformedInput(str(exc)) from None
        if block is not None:
            blocks[name] = block
    if blocks:  # the list says which modules compose the race's Rules; each keeps its data under its name
        ev["modules"] = list(blocks)
        ev.update(blocks)
    if seed is not None:
        ev["seed"] = seed
    return ev


def _in_order(options: Mapping[str, Any]) -> list[str]:
    """The order race_started lists the modules: those with a set-up of their own by their Rules' rank (the Garage
    replaces points, so first), then any other in the order given."""
    from ..engine.module import ranked

    own = [m.name for m in ranked(list(options)) if m.setup is not None]
    return [*own, *(n for n in options if n not in own)]
