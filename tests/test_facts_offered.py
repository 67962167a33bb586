"""The turn facts' ``slipstream_offered`` (# 8.1) as FactCollector reads it on the hot path (issue 31: the
engine's ``waits_at_steps_5_6`` instead of ``waiting_for`` at every event) against the long way, ``waiting_for``
before every event, in simulated races of every module (Legends' turns wait at their reveal, # 19.5; the Garage's
and the weather's steps 5–6); and the shortcut against ``waiting_for`` itself after every event."""

from __future__ import annotations

from typing import Any

import pytest

from heatlog.engine import RaceState, Step, waiting_for
from heatlog.engine.decide import slipstream_open, waits_at_steps_5_6
from heatlog.simulate import simulate_race
from heatlog.stats.facts import FactCollector

KINDS: dict[str, dict[str, Any]] = {
    "base": {},
    "legends": {"modules": {"legends": {"cars": 2}}},
    "garage": {"modules": {"garage": {"upgrades": "all", "draft": "draft"}}},
    "weather": {"modules": {"weather": {}}},
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_offered_as_waiting_for_says(kind: str) -> None:
    events, _ = simulate_race(None, track="usa", cars=4, seed=3, bots="random", **KINDS[kind])[1:]
    fc = FactCollector()
    offered: dict[tuple[int, str], bool] = {}  # (round, car) -> the last note before step 6 closed (the oracle)
    state: RaceState | None = None
    for ev in events:
        turn = state.turn if state is not None else None
        if state is not None:  # the engine's shortcut says what waiting_for says
            w = waiting_for(state)
            assert waits_at_steps_5_6(state) == (
                turn is not None and w.flipping is None and w.step in (Step.REACT, Step.SLIPSTREAM)
            )
        if state is not None and turn is not None and turn.slipstream is None:
            w = waiting_for(state)
            if w.flipping is None and w.step in (Step.REACT, Step.SLIPSTREAM):
                offered[(turn.round, turn.car)] = slipstream_open(state, state.cars[turn.car])
        fc.apply(ev)
        state = fc.state
    facts = fc.result()
    assert facts.turns
    for t in facts.turns:
        expected = offered.get((t.round, t.car), False) or t.slipstream_taken
        assert t.slipstream_offered == expected, (t.round, t.car)
    assert any(t.slipstream_offered for t in facts.turns)
