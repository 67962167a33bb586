"""The Garage's event types (MODULES.md 18) in the catalogue, named without importing the module's rules.

The step machine registers them when it is imported (the catalogue is whole from the first engine name on);
each handler imports :mod:`heatlog.engine.modules.garage_race` at its first call, as does the module's
``build``, so a base race's commands start without creating the Garage's dataclasses (issue 10: start-up).
The handlers, the step points and the rules themselves are all in ``garage_race.py``.
"""

from __future__ import annotations

from typing import Any

from ..module import lazy

DRAFT_EVENTS = ("garage_market", "upgrade_picked", "upgrade_removed", "upgrades_dealt")
TURN_EVENTS: tuple[str, ...] = ("speed_chosen", "accelerated", "heat_paid", "heat_unpayable", "card_scrapped")
TURN_EVENTS += ("stress_reduced", "refreshed", "salvaged", "super_cooled", "drafted", "direct_played")
EVENTS = DRAFT_EVENTS + TURN_EVENTS
CHANCE = ("garage_market", "upgrades_dealt", "card_scrapped")  # # 18.5, 18.12: observed outcomes
GUARDED = ("heat_unpayable", "refreshed")  # may change the state before a later check fails


def handler_name(event: str) -> str:
    """The function of ``garage_race`` that handles ``event``: one for the draft's events, else its own name."""
    return "draft_event" if event in DRAFT_EVENTS else event


def _handler(name: str) -> Any:
    """``garage_race``'s function ``name``, loaded at its first call (named, not imported: garage_race imports
    this file's lists)."""
    return lazy(f"{__package__}.garage_race", name)


def register() -> None:
    """The Garage's events in the catalogue (schemas under schema/events/garage/) and its module."""
    from ..events import EventType
    from ..events import register as register_event
    from ..ruleset import register_module

    for name in EVENTS:
        register_event(
            EventType(
                name,
                _handler(handler_name(name)),
                module="garage",
                schema=f"garage/{name}",
                turn=name in TURN_EVENTS,
                guarded=name in GUARDED,
                chance=name in CHANCE,
            )
        )
    register_module("garage", _handler("build"))
