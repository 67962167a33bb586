"""The heuristic's look-aheads shared by stretch of track across races (issue 32: weather races).

A weather race's road conditions change some corners' limits and Heat (MODULES.md 20.8, 20.13), so every draw
has a track plan of its own. Its look-aheads (# 3.1–3.3, 9.1, 10.1, 16.7) read only the corners a move can
reach, so they are kept by that stretch of track (``heatlog.bots.Stretches``) and found again by the next race.
Sharing only saves work: a bot that shares nothing decides the same, event for event.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

import pytest

from heatlog.bots import HeuristicBot, Stretches
from heatlog.engine.cards import SPINOUT_STRESS
from heatlog.engine.modules.weather import conditions_of
from heatlog.engine.state import RaceState
from heatlog.simulate import simulate_race

Event = dict[str, Any]

RACES: list[dict[str, Any]] = [
    dict(track="usa", cars=4, seed=0, modules={"weather": {}}),
    dict(track="usa", cars=4, seed=1),
    dict(track="usa", cars=4, seed=2, modules={"weather": {}}),
    dict(track="italy", cars=4, seed=3, modules={"weather": {}}),
    dict(track="usa", cars=3, seed=4, modules={"legends": {"cars": 2}, "weather": {}}),
    dict(track="usa", cars=4, seed=5, modules={"weather": {}}),
    dict(track="italy", cars=5, seed=6),
]


def test_sharing_stretches_never_changes_a_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    """One bot playing every race in turn (base, weather draws, another track, Legends) plays each of them as a
    fresh bot whose stretches are all new (so nothing is ever found in another race, or elsewhere on the track)."""
    one = HeuristicBot()
    shared = [simulate_race(None, bots=one, **kw)[1] for kw in RACES]
    fresh = itertools.count(10**9)
    monkeypatch.setattr(Stretches, "number", lambda self, stretch: next(fresh))
    assert [simulate_race(None, bots=HeuristicBot(), **kw)[1] for kw in RACES] == shared


def test_a_weather_race_finds_the_look_aheads_of_another_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    """MODULES.md 20.8: the second race draws other road conditions, yet part of what it reads was made by the
    first race (before issue 32's fix, its track plan started every value cold)."""
    bot = HeuristicBot()
    tokens: list[Any] = []

    def watching(state: RaceState, name: str, options: Sequence[Event], rng: random.Random) -> Event | None:
        assert conditions_of(state) is not None
        if not tokens or tokens[-1] != conditions_of(state).tokens:
            tokens.append(conditions_of(state).tokens)
        return bot(state, name, options, rng)

    made: set[int] = set()
    found: list[int] = []
    number = Stretches.number

    def counting(self: Stretches, stretch: tuple[Any, ...]) -> int:
        known = stretch in self.ids
        n = number(self, stretch)
        if known:
            found.append(n)
        else:
            made.add(n)
        return n

    monkeypatch.setattr(Stretches, "number", counting)
    simulate_race(None, track="usa", cars=4, seed=0, modules={"weather": {}}, bots=watching)
    first = set(made)
    found.clear()
    simulate_race(None, track="usa", cars=4, seed=2, modules={"weather": {}}, bots=watching)
    assert len(tokens) == 2 and tokens[0] != tokens[1]  # two draws
    assert first and len([n for n in found if n in first]) >= 10


def _look_ahead(tp: Any, p: int, gear: int, engine: int) -> float:
    """The look-ahead as its definition reads, one Engine at a time: the best typical next turn from ``p`` in
    ``gear`` (# 3.1–3.3), each shift's Heat paid first, the corners crossed (# 9.1, 9.3), a spinout (# 10.1) or
    the finish (# 16.7)."""
    w = tp.w
    best = -1e9
    shifts = tp.shift_table(p)[gear]
    for g in range(max(1, gear - 2), min(4, gear + 2) + 1):
        if shifts[g] > engine:
            continue
        for speed in (g + g // 2, int(g * w.typical + 0.5)):
            cost, spin = tp.corners(p, p + speed, speed, engine - shifts[g])
            if spin is not None:
                v = (spin - p) - tp.spin
            elif p + speed > tp.final:
                v = speed + w.finish
            else:
                v = speed - w.heat * (cost + shifts[g])
            best = max(best, v)
    return best


def _outcome(tp: Any, p: int, speed: int, engine: int, gear: int) -> float:
    """A turn's value as its definition reads (``corners``, then ``engine_value`` and the look-ahead)."""
    w = tp.w
    cost, spin = tp.corners(p, p + speed, speed, engine)
    if spin is not None:
        return (spin - p) - (tp.spin + w.stress_taken * SPINOUT_STRESS[gear]) + w.ahead * _look_ahead(tp, spin, 1, 0)
    if p + speed > tp.final:
        return speed + w.finish
    left = engine - cost
    return speed + tp.engine_value(left, p + speed) + w.ahead * _look_ahead(tp, p + speed, gear, min(left, 8))


def test_a_cold_value_is_the_definition_s_value() -> None:
    """Issue 32: a weather draw's values start cold, so the plan computes them in one pass (a look-ahead's nine
    Engines at once, a turn's corners and Engine worth in one loop). Every look-ahead and turn value of the
    plans of two weather races (road tokens changing limits and Heat, MODULES.md 20.8, 20.13) and a base race is
    the value of its definition, bit for bit, whichever Engine is asked first."""
    for kw in (RACES[0], RACES[1], RACES[3]):
        state = simulate_race(None, **kw)[2]
        fresh = HeuristicBot()._track_plan(state)  # a new bot's plan: every value cold
        for p in range(-2, fresh.final + 4, 3):
            for gear in range(1, 5):
                for engine in (5, 0, 8, 3, 12, -1):  # the first asked fills the other Engines of the stretch
                    assert fresh.next_turn(p, gear, engine) == _look_ahead(fresh, p, gear, min(engine, 8))
            for speed in range(0, 20, 2):
                for engine, gear in ((0, 1), (3, 2), (6, 4), (9, 3)):
                    assert fresh.outcome(p, speed, engine, gear) == _outcome(fresh, p, speed, engine, gear)
