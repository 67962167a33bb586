"""A position is refused at the door when no event could ever continue it (# 2.1: steps 1–2 are every car's at
once, steps 3–9 one car's turn at a time)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from edges import one_error_line, run, state_of

from heatlog.engine import MalformedInput, apply, state_from_position, state_to_position, waiting_for
from heatlog.races import race_started_event
from heatlog.simulate.world import race_events, random_bot


def _positions() -> tuple[dict[str, Any], dict[str, Any]]:
    """A position at steps 1–2 and one in a car's turn (step 3 and on) of a simulated race."""
    cars = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}]
    state = None
    early = turn = None
    for ev in race_events(
        race_started_event(track="usa", cars=cars, mode="open"), dict.fromkeys(["Ann", "Bob"], random_bot), 3
    ):
        state = apply(state, ev, atomic=False)
        if state.phase == "race" and state.round == 2:
            if state.turn is None and early is None:
                early = json.loads(json.dumps(state_to_position(state)))
            if state.turn is not None and turn is None:
                turn = json.loads(json.dumps(state_to_position(state)))
        if early is not None and turn is not None:
            return early, turn
    raise AssertionError("no positions")


def test_2_1_a_position_at_step_3_with_no_turn_is_refused() -> None:
    _, pos = _positions()
    assert pos["step"] == 3 and pos["turn"] is not None
    state_from_position(pos)  # whole, it reads back
    broken = dict(copy.deepcopy(pos), turn=None)
    with pytest.raises(MalformedInput, match="step 3 is a car's turn"):
        state_from_position(broken)


def test_2_1_a_position_at_step_1_with_a_turn_is_refused() -> None:
    early, pos = _positions()
    assert early["step"] in (1, 2) and early["turn"] is None
    assert waiting_for(state_from_position(early)).due in ("gear_chosen", "cards_played")
    with pytest.raises(MalformedInput, match="has no car's turn"):
        state_from_position(dict(copy.deepcopy(early), turn=pos["turn"]))


def test_2_1_new_from_a_position_with_no_turn_at_step_3_writes_nothing(tmp_path: Path) -> None:
    _, pos = _positions()
    db = tmp_path / "h.db"
    assert run("new", "--car", "Ann:red", "--car", "Bob:blue", db=db).returncode == 0
    before = state_of(db)
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(dict(pos, turn=None)))
    r = run("new", "--from-position", str(path), db=db)
    assert one_error_line(r) and "turn" in r.stderr, r
    assert state_of(db) == before
