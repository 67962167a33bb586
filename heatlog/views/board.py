"""The board in the terminal: the track as a strip of spaces with the cars, and a table of the cars."""

from __future__ import annotations

from typing import Any

from ..engine.decide import waiting_for
from ..engine.errors import STEP_NAMES
from ..engine.state import Car, RaceState

RICH_COLOURS = {
    "red": "red",
    "blue": "blue",
    "green": "green",
    "black": "bright_black",
    "white": "white",
    "yellow": "yellow",
    "grey": "grey50",
    "gray": "grey50",
    "orange": "dark_orange",
    "purple": "magenta",
}


def colour_style(car: Car) -> str:
    return RICH_COLOURS.get(car.colour.lower(), "bold")


def track_strip(state: RaceState) -> list[str]:
    """Two text lines per row of 23 spaces: the race-line lane marked, corner lines with their limits, cars
    by initial (lane 1 above lane 2). Plain text: the caller colours it."""
    t = state.track
    limits = {c.after_space: c.limit for c in t.corners}
    who: dict[tuple[int, int], str] = {}
    for (space, lane), name in state.spots.items():
        who[(space, lane)] = name[0]
    lines: list[str] = []
    per_row = 23
    for start in range(1, t.spaces + 1, per_row):
        spaces = range(start, min(t.spaces, start + per_row - 1) + 1)
        head, lane1, lane2 = "", "", ""
        for s in spaces:
            race = t.race_lane(s)
            head += f"{s:<3}"
            lane1 += ("=" if race == 1 else "-") + who.get((s, 1), ".") + " "
            lane2 += ("=" if race == 2 else "-") + who.get((s, 2), ".") + " "
            if s in limits:
                head += f"|{limits[s]}"
                lane1 += "| "
                lane2 += "| "
            if s == t.spaces:
                head += "|F"
                lane1 += "| "
                lane2 += "| "
        lines += [head.rstrip(), lane1.rstrip(), lane2.rstrip(), ""]
    return lines


def render_state(console: Any, state: RaceState, race: Any = None) -> None:
    from rich.table import Table

    w = waiting_for(state)
    where = f"round {state.round}" if state.round else "set-up"
    step = f", step {w.step} ({STEP_NAMES.get(w.step, '')})" if state.phase == "race" else ""
    title = f"race {race}: " if race is not None else ""
    console.print(
        f"{title}{state.track.name}, {state.laps} lap{'s' if state.laps > 1 else ''}, "
        f"{state.mode} mode — {where}{step}",
        markup=False,
    )
    if state.order:
        console.print(
            "order: " + " > ".join(state.order) + "   adrenaline: " + (", ".join(state.adrenaline) or "-"), markup=False
        )
    for line in track_strip(state):
        console.print(line, markup=False)
    table = Table(show_edge=False)
    for col in ("#", "car", "space", "lap", "gear", "engine", "hand", "deck", "discard", "stress"):
        table.add_column(col, justify="right" if col not in ("car",) else "left")
    for i, name in enumerate(state.standings(), start=1):
        car = state.cars[name]
        hand = " ".join(c for c in _expand(car.hand)) if car.hand is not None else f"{car.hand_size} hidden"
        place = f"{state.track.space_of(car.progress)}{'a' if car.lane == 1 else 'b'}"
        if name in state.hall_of_fame:
            place = "finished"
        table.add_row(
            str(i),
            f"[{colour_style(car)}]{name}[/]",
            place,
            f"{state.laps_done(car)}/{state.laps}",
            str(car.gear),
            str(car.engine),
            hand,
            str(car.deck_size),
            f"{len(car.discard)} (top {car.discard[-1]})" if car.discard else "0",
            str(car.stress_taken),
        )
    console.print(table)
    if state.hall_of_fame:
        console.print(
            "Hall of Fame: " + ", ".join(f"{i}. {n}" for i, n in enumerate(state.hall_of_fame, 1)), markup=False
        )
    console.print(f"waiting for: {w.text}", markup=False)


def _expand(c: dict[str, int] | None) -> list[str]:
    from ..engine.state import expand

    return expand(c) if c is not None else []
