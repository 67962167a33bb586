"""The Garage's statistics facts (``Module.turn_facts``, ``Module.race_facts``): what a turn's and a race's facts
hold of the Garage, read off the engine's records (# 18.7–18.24). Pure: no rule is applied here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import garage_turn

if TYPE_CHECKING:
    from ...state import RaceState, Turn

Event = dict[str, Any]


def turn_facts(turn: Turn) -> tuple[int, str, int]:
    """(``heat_upgrades``, ``uses``, ``cooled_upgrades``) of a completed turn, from the Garage's record of it
    (# 18.10; the symbols used, "kind cards amount; …"; the Heat its Cooldowns and Super Cool moved to the Engine,
    # 18.13, 18.22)."""
    garage = garage_turn(turn)
    uses = garage.happenings if garage is not None else ()
    if not uses:  # (no sum or join started on an empty record: ~70 turns a race, issue 31)
        return 0, "", 0
    return (
        sum(h[2] for h in uses if h[0] == "heat"),
        "; ".join(" ".join(str(x) for x in h if x != "") for h in uses),
        garage.cooled if garage is not None else 0,
    )


def race_facts(state: RaceState, started: Event) -> tuple[Any, Any]:
    """(``garage_upgrades``, ``garage_draft``): the race's Garage options as race_started gives them (# 18.3)."""
    block = started.get("garage")
    garage: dict[str, Any] = block if isinstance(block, dict) else {}
    return garage.get("upgrades"), garage.get("draft")


def summary(state: RaceState) -> dict[str, Any]:
    """A simulated race's Garage options (``simulate --json``, # 18.2, 18.3, 18.5)."""
    from . import garage_slot

    g = garage_slot(state)
    if g is None:
        return {}
    o = g.options
    return {"garage": {"upgrades": o.upgrades, "draft": o.draft, "expansions": list(o.expansions)}}


def summary_words(race: Mapping[str, Any]) -> str | None:
    """``simulate``'s title words for them: "Garage advanced upgrades (draft)"; None for a race without it."""
    garage = race.get("garage")
    if not isinstance(garage, dict):
        return None
    more = "".join(f", {e}" for e in garage.get("expansions", ()))
    return f"Garage {garage.get('upgrades')} upgrades ({garage.get('draft')}{more})"
