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

from heatlog.log.racelog import RaceLog
from heatlog.races import start_race
from heatlog.recorder import Session
from heatlog.recorder import script as rs


def record(tmp_path: Path, expected: list[dict], *, reveal_line: bool) -> tuple[Counter[str], list[str]]:
    """Record ``expected`` through a Session, each question answered with all its prompt offers (the reveal's
    line with the rest of the turn only when ``reveal_line``); the questions asked by kind, and React's prompts."""
    log = RaceLog(tmp_path / "race.db")
    grid = next(e["order"] for e in expected if e["type"] == "grid_set")
    rid = start_race(
        log,
        track=str(TRACK),
        cars=cars(2),
        mode="table",
        variant="one-lap",
        modules={"garage": dict(GARAGE)},
        grid=grid,
    )
    s = Session(log, rid)
    kinds: Counter[str] = Counter()
    asked: Counter[tuple[int, str]] = Counter()
    last: dict[tuple[int, str], str] = {}
    prompts: list[str] = []
    for _ in range(5000):
        q = s.question
        i = len(strip([e.event for e in s.proj.effective.entries]))
        if q.kind == "over":
            break
        kinds[q.kind] += 1
        prompt = q.prompt if reveal_line or q.kind != "reveal" else ""
        text = rs.answer(q.kind, q.car or "", expected, i, typed_chance=True, multi=True, prompt=prompt)
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
    return kinds, prompts


@pytest.mark.parametrize("seed", [5, 7])
def test_a_garage_react_is_asked_once_a_turn(tmp_path: Path, seed: int) -> None:
    expected = garage_simulated(2, seed, "table")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    kinds, prompts = record(tmp_path / "a", expected, reveal_line=False)
    assert any("Enter = nothing more" in p for p in prompts), prompts
    # the reveal's line takes the rest of the turn in a Garage race too (React's uses, d CARDS, -)
    by_line, _ = record(tmp_path / "b", expected, reveal_line=True)
    assert by_line["react"] < kinds["react"] and sum(by_line.values()) < sum(kinds.values()), (by_line, kinds)
    if any(e["type"] == "speed_chosen" for e in expected):  # # 18.6: a printed value as a later part of the line
        assert by_line["speed"] < kinds["speed"], (by_line, kinds)
