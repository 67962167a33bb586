"""The Garage's statistics facts (``Module.turn_facts``, ``Module.race_facts``): what a turn's and a race's facts
hold of the Garage, read off the engine's records (# 18.7–18.24). Pure: no rule is applied here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import garage_turn

if TYPE_CHECKING:
    from ...state import RaceState, Turn

Event = dict[str, Any]


def turn_facts(turn: Turn) -> tuple[int, str]:
    """(``heat_upgrades``, ``uses``) of a completed turn, from the Garage's record of it (# 18.10; the symbols
    used, "kind cards amount; …")."""
    garage = garage_turn(turn)
    uses = garage.happenings if garage is not None else ()
    if not uses:  # (no sum or join started on an empty record: ~70 turns a race, issue 31)
        return 0, ""
    return (
        sum(h[2] for h in uses if h[0] == "heat"),
        "; ".join(" ".join(str(x) for x in h if x != "") for h in uses),
    )


def race_facts(state: RaceState, started: Event) -> tuple[Any, Any]:
    """(``garage_upgrades``, ``garage_draft``): the race's Garage options as race_started gives them (# 18.3)."""
    block = started.get("garage")
    garage: dict[str, Any] = block if isinstance(block, dict) else {}
    return garage.get("upgrades"), garage.get("draft")
