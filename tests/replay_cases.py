"""The fixed race behind the replay tests, and the golden texts rendered from it.

The race is a simulated one (``heatlog.simulate.world`` with random bots, seed ``SEED``) stored as an event log in
``tests/golden/replay-race.jsonl``, so the goldens change only when the replay views (or the rules) change,
never when the bots do. ``python tests/golden/regen.py`` rewrites the log and every golden file.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from heatlog.engine.redact import open_to_table
from heatlog.views.board import render_state
from heatlog.views.replay import Replay, build_replay
from heatlog.views.stepper import print_rounds

GOLDEN = Path(__file__).parent / "golden"
RACE_LOG = GOLDEN / "replay-race.jsonl"
SEED = 1
CARS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Ben", "colour": "green"}]
WIDTH = 100
Event = dict[str, Any]


def simulate() -> list[Event]:
    from heatlog.races import race_started_event
    from heatlog.simulate.world import race_events, random_bot

    start = race_started_event(track="italy", cars=CARS, mode="open", variant="one-lap")
    return list(race_events(start, {c["name"]: random_bot for c in CARS}, SEED))


def race_events() -> list[Event]:
    return [json.loads(line) for line in RACE_LOG.read_text(encoding="utf-8").splitlines() if line.strip()]


def console(width: int = WIDTH) -> Console:
    return Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False, legacy_windows=False)


def capture(draw: Callable[[Console], None], width: int = WIDTH) -> str:
    con = console(width)
    draw(con)
    text = con.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def open_replay(events: list[Event]) -> Replay:
    return build_replay(events, race=1, name="italy one-lap")


def goldens(events: list[Event]) -> dict[str, str]:
    """File name -> expected text."""
    rp = open_replay(events)
    table = build_replay(open_to_table(events), race=2, name="italy one-lap, table mode")
    mid = _mid_turn(events)
    return {
        "replay-all.txt": capture(lambda c: print_rounds(c, rp)),
        "replay-round3-car-Ben.txt": capture(lambda c: print_rounds(c, rp, round=3, car="Ben")),
        "replay-car-Ben.txt": capture(lambda c: print_rounds(c, rp, car="Ben")),
        "replay-table-round3.txt": capture(lambda c: print_rounds(c, table, round=3)),
        "replay-narrow-round3.txt": capture(lambda c: print_rounds(c, rp, round=3), width=80),
        "show-mid-round.txt": capture(lambda c: render_state(c, build_replay(mid).final, race=1)),
    }


def _mid_turn(events: list[Event]) -> list[Event]:
    """The log cut in the middle of round 4: two turns done, the third under way (what `show` sees)."""
    from heatlog.engine import apply

    state = None
    for i, ev in enumerate(events):
        state = apply(state, ev)
        if state.round == 4 and len(state.turns) == 2 and state.turn is not None and state.turn.sub >= 5:
            return events[: i + 1]
    raise AssertionError("the fixed race has no such moment")
