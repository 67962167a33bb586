"""The Garage in a championship season (MODULES.md 18, 21; ``Module.season``): one upgrade drafted before each race
(# 21.2), kept from race to race (# 21.11), and the sponsorship cards that come with it (# 21.4-21.7).

Its season block is ``season_started.options.garage``: ``{"upgrades", "expansions", "order", "swap"}``, the
upgrades in the Garage deck and the expansions (# 18.2, 18.3), who picks first and whether the first picker may
swap (MA11, kept configurable: BGA's ``lowest_first`` and the swap by default). The draft itself is the
championship's (engine/modules/championship/rules.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import MalformedInput
from ...module import Said
from ..championship.rules import DRAFT_ORDERS
from .cards import GarageOptions

if TYPE_CHECKING:
    from ...state import RaceState

Event = dict[str, Any]


def setup(given: Any, drivers: Sequence[Mapping[str, Any]], data: Any, said: Said) -> Any:
    """``season_started.options.garage`` from the caller's choice (None: no Garage), checked (# 18.2, 18.3, MA11)."""
    if given is None:
        return None
    if not isinstance(given, Mapping):
        raise MalformedInput("the Garage's options are a mapping (upgrades, expansions, order, swap)")
    unknown = sorted(set(given) - {"upgrades", "expansions", "order", "swap"})
    if unknown:
        raise MalformedInput(f"unknown garage option {unknown[0]!r} (upgrades, expansions, order, swap)")
    try:
        chosen = GarageOptions.from_dict({k: v for k, v in given.items() if k in ("upgrades", "expansions")})
    except ValueError as exc:
        raise MalformedInput(str(exc)) from None
    order, swap = given.get("order", "lowest_first"), given.get("swap", True)
    if order not in DRAFT_ORDERS:
        chosen_order = said("draft_order", f"draft order {order!r}")
        raise MalformedInput(f"{chosen_order}: choose {' or '.join(DRAFT_ORDERS)} (MA11)")
    if not isinstance(swap, bool):
        raise MalformedInput("swap must be true or false (MA11)")
    return {"upgrades": chosen.upgrades, "expansions": list(chosen.expansions), "order": order, "swap": swap}


def options(block: Any) -> GarageOptions:
    """The Garage of a season's races (# 21.2: its upgrades drafted one before each race)."""
    return GarageOptions.from_dict({"upgrades": block["upgrades"], "draft": "draft", "expansions": block["expansions"]})


def race(block: Any) -> Any:
    """The Garage's options in each race of the season (# 21.2)."""
    return options(block).to_dict() if block is not None else None


def finished(state: RaceState, drivers: list[str], events: list[Event] | None) -> dict[str, Any]:
    """What a finished race gives the season's next ones (# 21.11: the upgrades stay; MA7: the sponsorship cards
    kept, if the season keeps them; # 18.24: the one-time cards out of the supply; # 18.5, 21.2: what its draft put
    in the box, None for a market recorded by its size only); {} for a race without the Garage. Only the drivers
    draft and take sponsorship cards (# 19.10, 19.12)."""
    from ..championship.rules import draft_leftovers, sponsor_deck, sponsors_held
    from . import garage_slot

    garage = garage_slot(state)
    if garage is None:
        return {}
    deck = sponsor_deck(state)
    return {
        "upgrades": {n: sorted(garage.owned.get(n, [])) for n in drivers},
        "sponsors": {n: sponsors_held(state, state.cars[n]) for n in drivers},
        "sponsors_used": dict(sorted(deck.used.items())) if deck else {},
        "box": draft_leftovers(events) if events is not None else None,
    }
