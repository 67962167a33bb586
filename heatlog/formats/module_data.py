"""The data of the Legends and weather modules: built-in files, validated, ready to embed in ``race_started``.

``heatlog/data/legends.json`` (``schema/legends.schema.json``): the 10 Legend cards (# 19.4).
``heatlog/data/weather.json`` (``schema/weather.schema.json``): 6 weather tiles, 6 road-condition token types
with 2 copies each (# 20.1–20.4).

The engine never reads these files: a race embeds what it uses (``race_started.modules``), so a later edit of
a data file cannot change how an old log replays. Every file is checked by its module (``Module.data_check``)
and every block made by its module's set-up (``Module.setup``): this file imports no module's rules.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.errors import MalformedInput

if TYPE_CHECKING:
    from ..engine.module import Module

DATA_DIR = Path(__file__).parent.parent / "data"

__all__ = [
    "DATA_DIR",
    "legend_colours",
    "legend_data",
    "data_of",
    "legends_module",
    "weather_data",
    "weather_module",
]


def _unit(name: str) -> Module:
    from ..engine import rules as _registered  # noqa: F401  (importing the rules registers every module)
    from ..engine.module import MODULES

    return MODULES[name]


def _legends() -> dict[str, Any]:
    return data_of("legends")


def _weather() -> dict[str, Any]:
    return data_of("weather")


def legend_data() -> dict[str, Any]:
    """The built-in Legend deck file (a copy)."""
    return copy.deepcopy(_legends())


def legend_colours() -> tuple[str, ...]:
    """The colours printed on the built-in Legend cards (# 19.4), without copying the deck."""
    return tuple(_legends()["colours"])


def weather_data() -> dict[str, Any]:
    """The built-in weather file (a copy)."""
    return copy.deepcopy(_weather())


_ANY_CAR = {"name": "", "colour": ""}  # (the set-up adds the race's Legend cars to an event thrown away here)


def legends_module(*, pro: int = 0, aggressive: bool = False, option: str | None = None) -> dict[str, Any]:
    """``race_started.modules.legends``: the cards and the two options (# 19.14, 19.15). ``option``: what the
    user typed the pro value as (``--pro``; the recorder's ``pro``), named in a refusal instead of the field.
    Made by the module's own set-up (``Module.setup``, for a race with a Legend car), which checks it."""
    unit = _unit("legends")
    assert unit.setup is not None
    if option is not None and pro:  # refused in the option's words (Module.from_flags: the rule's range)
        assert unit.from_flags is not None
        try:
            unit.from_flags({"pro": pro}, "new", _legends())
        except ValueError as exc:
            raise MalformedInput(f"{option}{str(exc).removeprefix('--pro')}") from None
    try:
        block = unit.setup({"cars": [_ANY_CAR], "pro": pro, "aggressive": aggressive}, _legends(), {"cars": []})
    except ValueError as exc:  # (a refusal of the input, not a bug: it was an "internal error")
        raise MalformedInput(str(exc)) from None
    return block


def weather_module() -> dict[str, Any]:
    """``race_started.modules.weather``: the tiles and token types (# 20.1), as the module's set-up makes it."""
    unit = _unit("weather")
    assert unit.setup is not None
    return unit.setup({}, _weather(), {})


@cache
def data_of(name: str) -> Any:
    """The content of module ``name``'s data file (``heatlog/data/<Module.data>``; None when it names none), read
    once and checked against its schema (``schema/<stem>.schema.json``) when there is one, then by the module
    itself (``Module.data_check``: its rules read it as a race would). Callers must not change it (the modules'
    set-up hooks copy what they embed)."""
    from ..engine import rules as _registered  # noqa: F401  (importing the rules registers every module)
    from ..engine.module import MODULES, data_check

    unit = MODULES[name]
    if not unit.data:
        return None
    data = data_file(unit.data)
    data_check(name, data)
    return data


@cache
def data_file(path: str) -> Any:
    """A module's data file ``heatlog/data/<path>``, read once and checked against its schema when it has one."""
    from .schemas import schema_path, validate_against

    data = json.loads((DATA_DIR / path).read_text(encoding="utf-8"))
    stem = Path(path).name.removesuffix(".json")
    if Path(schema_path(stem)).exists():
        validate_against(stem, data)
    return data


def module_block(name: str) -> Any:
    """``race_started.<name>`` for a module registered as one unit (engine/module.py) that names a data file and
    an example block: its data file read (``heatlog/data/<Module.data>``) and its example block made from it (the
    door checks it against the module's options schema in race_started, the engine's ``start`` against its
    rules). ``KeyError``: no such module; ``ValueError``: it has no example block."""
    from ..engine.module import MODULES

    unit = MODULES[name]
    if unit.example is None:
        raise ValueError(f"module {name!r} has no example block")
    data = json.loads((DATA_DIR / unit.data).read_text(encoding="utf-8")) if unit.data else None
    return unit.example(data)


def module_blocks(names: list[str]) -> dict[str, Any]:
    """``race_started``'s blocks of the modules ``names`` (``--module NAME``): each a module registered as one
    unit with an example block (``module_block``), by its name; refused, naming the option, when it is not one."""
    from ..engine import rules as _registered  # noqa: F401  (importing the rules registers every module)
    from ..engine.module import MODULES

    startable = sorted(n for n, m in MODULES.items() if m.example is not None)
    out: dict[str, Any] = {}
    for typed in names:
        name = typed.strip().lower()
        if name not in startable:
            raise MalformedInput(f"--module {typed}: not a module started by name (modules: {', '.join(startable)})")
        if name in out:
            raise MalformedInput(f"--module {typed}: given twice")
        out[name] = module_block(name)
    return out


def options_from_flags(command: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The modules' options as one mapping by module name (``race_started_event(modules=)``) from the values of
    ``command``'s module flags by parameter (``engine.module.Flag``; a flag not in ``values`` is at its default):
    each module's ``from_flags``, given its data file; a module whose flags are all at their defaults is not in
    the race. ``MalformedInput`` names the option typed."""
    from ..engine.module import flag_default, flags_for, from_flags

    units, _ = flags_for(command)
    out: dict[str, Any] = {}
    for unit in units:
        flags = [f for f in unit.flags if command in f.commands]
        mine = {f.param: values.get(f.param, flag_default(f)) for f in flags}
        if all(mine[f.param] == flag_default(f) or (f.kind == "strs" and not mine[f.param]) for f in flags):
            continue
        try:
            block = from_flags(unit, mine, command, data_file(unit.data) if unit.data else None)
        except ValueError as exc:
            raise MalformedInput(str(exc)) from None
        if block is not None:
            out[unit.name] = block
    return out


def draws_from_flags(command: str, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The set-up draws the command's module flags give (``Module.given_draws``: the weather's ``--tile`` and
    ``--road``, # 20.2), in registry order; ``MalformedInput`` says what is wrong with them."""
    from ..engine.module import flags_for

    units, _ = flags_for(command)
    out: list[dict[str, Any]] = []
    for unit in units:
        if unit.given_draws is None:
            continue
        mine = {f.param: values.get(f.param) for f in unit.flags if command in f.commands}
        try:
            out += unit.given_draws(mine)
        except ValueError as exc:
            raise MalformedInput(str(exc)) from None
    return out
