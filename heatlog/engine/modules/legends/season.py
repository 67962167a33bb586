"""Legends in a championship season (MODULES.md 19.16, 21; ``Module.season``): Legend cars fill every race's grid,
race and score (# 21.10) and never draft nor take sponsorship cards (# 19.10, 19.12); one driver against Legends is
a solo championship (# 19.16).

Its season block is ``season_started.options.legends``: ``{"cars": [{"name", "colour"}, …], "pro", "aggressive"}``,
the cars picked once for the whole season in the Legend colours the drivers leave free (# 19.3, 19.4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import MalformedInput
from ...module import Said
from ...words import counted
from . import legend_cars

MAX_CARS = 5  # # 19.2: at most 6 cars race, and a season has a driver at least


def _options(given: Any) -> Mapping[str, Any]:
    return given if isinstance(given, Mapping) else {}


def count(given: Any, said: Said) -> int:
    """# 19.2: 0 to 5 Legend cars (a count; or the cars, counted), checked before the drivers are."""
    number = _options(given).get("cars", 0)
    number = len(number) if isinstance(number, list) else number  # (a count: the season picks the colours, # 19.3)
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= MAX_CARS:
        raise MalformedInput(f"{said('legends', f'--legends {number!r}')}: 0 to {MAX_CARS} Legend cars (# 19.2)")
    return number


def driver_problem(name: str) -> str | None:
    """# 19.1: the recorder's ``legend:COLOUR`` is a Legend, never one of a season's drivers."""
    if name.strip().casefold() != "legend":
        return None
    return (
        "a Legend (# 19.1) is not one of a season's drivers, who score and draft; name the driver "
        "(e.g. Ann:black; a solo championship against Legends is --legends N)"
    )


def setup(given: Any, drivers: Sequence[Mapping[str, Any]], data: Any, said: Said) -> Any:
    """``season_started.options.legends`` (None: no Legends): the count checked against the drivers (# 19.2), the
    cars in the colours the drivers leave free (# 19.3, 19.4), none named as a driver is, ``pro`` 0 to 6 (# 19.15)."""
    options = _options(given)
    number = count(given, said)
    pro, aggressive = options.get("pro", 0), bool(options.get("aggressive", False))
    if len(drivers) + number > 6:
        raise MalformedInput(
            f"{said('legends', f'--legends {number}')}: {counted(len(drivers), 'driver')} and {number} Legends; "
            "at most 6 cars race (# 19.2)"
        )
    if not number:
        if pro or aggressive:
            raise MalformedInput("--pro and --aggressive are Legend options: add --legends N (# 19.14, 19.15)")
        return None
    taken = [str(d.get("colour", "")).strip().lower() for d in drivers]
    cars = legend_cars(number, taken, data["colours"])
    names = {c["name"].casefold(): c["name"] for c in cars}
    for i, driver in enumerate(str(d.get("name")) for d in drivers):
        if driver.casefold() in names:
            raise MalformedInput(
                f"{said('drivers', f'driver {driver!r}', i)}: {names[driver.casefold()]!r} is the name of a Legend of "
                "the season: name the driver"
            )
    if isinstance(pro, bool) or not isinstance(pro, int) or not 0 <= pro <= 6:
        raise MalformedInput(f"{said('pro', f'--pro {pro!r}')}: 0 to 6 (# 19.15)")
    return {"cars": cars, "pro": pro, "aggressive": aggressive}


def cars(block: Any) -> list[dict[str, str]]:
    """The Legend cars of every race of the season (# 19.16)."""
    return list(_options(block).get("cars", []))


def race(block: Any) -> Any:
    """The Legends' options in each race of the season (# 19.14-19.16), None without Legend cars."""
    options = _options(block)
    if not options.get("cars"):
        return None
    return {
        "cars": options["cars"],
        "pro": int(options.get("pro", 0)),
        "aggressive": bool(options.get("aggressive", False)),
    }
