"""Simulated races for the recorder tests: the log a race must end with, and the outcome lines it shows.

Decisions come from the project's bots; a wrapper makes a declined slipstream explicit (the recorder records
a decline whenever the slipstream is offered, docs/design.md), so the simulated log is exactly the log a
host produces by answering the recorder's questions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from heatlog.bots import get_bot, random_bot
from heatlog.engine import apply
from heatlog.engine.decide import slipstream_choices, waiting_for
from heatlog.engine.redact import open_to_table
from heatlog.races import race_started_event
from heatlog.simulate.world import race_events
from heatlog.views.narrate import narrate_turn

Event = dict[str, Any]
TRACK = Path(__file__).resolve().parent / "data" / "sprint.json"
NAMES = ("Red", "Blue", "Green", "Yellow", "Black", "White")


def explicit(bot: Any) -> Any:
    """Also: a finished car discards nothing; an adrenaline cooldown is what ``ac`` records at the table, one
    Heat moved from the hand to the Engine (# 6.2, 7.4): the bonus is taken only with a Heat in hand, and its
    cooldown of 1 follows at once."""
    owed: set[str] = set()

    def wrapped(state: Any, name: str, options: Any, rng: Any) -> Event | None:
        if name in owed:
            owed.discard(name)
            cool = {"type": "cooldown", "v": 1, "car": name, "count": 1}
            if cool in options:
                return cool
        choice = bot(state, name, options, rng)
        if (
            choice is not None
            and choice.get("type") == "cards_discarded"
            and state.cars[name].progress > state.final_line
        ):
            choice = None  # a car past the finish line is not asked to discard: its race is run
        if choice is not None and choice.get("type") == "adrenaline" and choice.get("bonus") == "cooldown":
            hand = state.cars[name].hand
            if hand is None or hand["H"] < 1:
                # another choice where React cannot simply end (a Garage Heat cost to settle, # 18.11, 18.25)
                others = [o for o in options if o is not None and o.get("bonus") != "cooldown"]
                choice = None if waiting_for(state).may_go_on or not others else rng.choice(others)
            else:
                owed.add(name)
        if choice is None and slipstream_choices(state, state.cars[name]):  # the recorder asks what the core offers
            return {"type": "slipstream", "v": 1, "car": name, "taken": False}
        return choice

    return wrapped


def cars(n: int) -> list[dict[str, str]]:
    return [{"name": x, "colour": x.lower()} for x in NAMES[:n]]


def simulated(
    n: int, seed: int, mode: str, *, track: str | None = None, bot: str = "random", variant: str | None = "one-lap"
) -> list[Event]:
    """The log of a simulated race in ``mode`` (table mode: the same race as a table records it)."""
    started = race_started_event(track=track or str(TRACK), cars=cars(n), mode="open", variant=variant)
    b = explicit(random_bot if bot == "random" else get_bot(bot))
    events = list(race_events(started, {c["name"]: b for c in cars(n)}, seed))
    return events if mode == "open" else open_to_table(events)


def outcome_lines(events: list[Event]) -> list[str]:
    """narrate_turn of every turn of the race, in order."""
    state = None
    lines: list[str] = []
    for ev in events:
        if state is None:
            state = apply(None, ev)
            continue
        old, n = state.turns, len(state.turns)
        apply(state, ev)
        done = old[n:] if state.turns is old else old[n:] + state.turns
        lines += [narrate_turn(state, t) for t in done]
    return lines


def strip(events: list[Event]) -> list[Event]:
    """Without ``raw`` and notes: what the rules see."""
    return [{k: v for k, v in e.items() if k != "raw"} for e in events if e.get("type") != "note"]
