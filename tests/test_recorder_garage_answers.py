"""Issue 29, a season race <= 130 answers: a Garage race's React asks once a turn, as a base race's does (one
answer takes every use; its end is "nothing more this turn"), and the React prompt offers the slipstream. A
Heat cost that cannot be paid (# 18.11), a Scrap's cards (# 18.12) and an open Refresh (# 18.21) are still asked
after it; the stored log is exactly the race."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from recorder_races import cars, strip
from test_recorder import GARAGE, TRACK, garage_simulated

from heatlog import recorder_script as rs
from heatlog.racelog import RaceLog
from heatlog.races import start_race
from heatlog.recorder import Session


@pytest.mark.parametrize("seed", [5, 7])
def test_a_garage_react_is_asked_once_a_turn(tmp_path: Path, seed: int) -> None:
    expected = garage_simulated(2, seed, "table")
    log = RaceLog(tmp_path / "race.db")
    grid = next(e["order"] for e in expected if e["type"] == "grid_set")
    rid = start_race(
        log, track=str(TRACK), cars=cars(2), mode="table", variant="one-lap", garage=dict(GARAGE), grid=grid
    )
    s = Session(log, rid)
    asked: Counter[tuple[int, str]] = Counter()
    last: dict[tuple[int, str], str] = {}
    prompts: list[str] = []
    for _ in range(5000):
        q = s.question
        i = len(strip([e.event for e in s.proj.effective.entries]))
        if q.kind == "over":
            break
        text = rs.answer(q.kind, q.car or "", expected, i, typed_chance=True, multi=True, prompt=q.prompt)
        if q.kind == "react" and s.view.turn is not None:
            key = (s.view.turn.round, q.car or "")
            asked[key] += 1
            prompts.append(q.prompt)
            if key in last:  # asked again only after what React cannot end on: a boost's flips (they were news),
                # an unpayable cost's replacement (# 18.11), a Salvage's shuffle (# 18.18)
                words = last[key].split()
                assert "b" in words or any(w.startswith(("u:", "salvage:")) for w in words), (key, last[key])
            last[key] = text
        lines = s.answer(text)
        assert not [x.text for x in lines if x.style == "error"], (q.prompt, text, [x.text for x in lines])
    assert strip([e.event for e in s.proj.effective.entries]) == strip(expected), "the recorded log is not the race"
    assert asked and any("Enter = nothing more" in p for p in prompts), prompts
