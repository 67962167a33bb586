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
