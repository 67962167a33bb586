"""The heuristic planner asks the race's Rules for its corners and shifts (issue 26 build 7): no second copy.

Its model of a turn — the Heat owed at each corner line, a spinout when the Engine cannot pay (# 9.3, 10.1), the
Heat of a shift (# 3.2) — is the engine's answers, asked once per plan: the corner limits with every Adjust in
the Play Area (# 18.17), a road token's limit and overheat (# 20.8, 20.13), the flooded-space surcharge (# 22.4).
"""

from __future__ import annotations

import copy
import random

from heatlog.bots import HeuristicBot, Options, ask_costs, ask_limits
from heatlog.engine import waiting_for
from heatlog.engine.modules.garage.race import planned_turn
from heatlog.simulate import simulate_race
from tests.rules.modules.garage.scenarios import PARK, garage_board

# The scenario track: corner lines after spaces 10 (limit 4), 13 (3), 22 (5) and 26 (2).


def _adjust_board(hand: str, at: int = 6, upgrades: str = "U38 U1 U2"):  # type: ignore[no-untyped-def]
    race = garage_board(
        {
            "P": {"at": 29, "hand": PARK, "upgrades": "U13 U15 U16"},
            # U38: Speed 2, Scrap 2, Adjust +1 (# 18.17); no Heat on the Engine: any Heat owed is a spinout
            "A": {"at": at, "hand": hand, "gear": 2, "engine": 0, "upgrades": upgrades},
        }
    )
    race.ev("gear_chosen", car="P", gear=1)
    race.ev("gear_chosen", car="A", gear=2)
    return race


def test_18_17_the_planner_sees_an_adjust_that_makes_a_play_safe() -> None:
    # From 6, "3 U38" is Speed 5 across the corner after 10 (printed limit 4): with U38's Adjust +1 in the Play
    # Area its limit is 5, so nothing is owed. The old model read the printed 4, called it a spinout and played 3.
    race = _adjust_board("U38 3 1 1 1 1 1")
    st = race.state
    car = st.cars["A"]
    corner = st.track.corners[0]
    assert corner.after_space == 10 and corner.limit == 4
    assert ask_limits(st, car, planned_turn(st, car, 2, ["3", "U38"]))[0] == 5  # the engine's answer, # 18.17
    assert ask_limits(st, car, planned_turn(st, car, 2, ["3", "1"]))[0] == 4
    bot = HeuristicBot()
    w = waiting_for(st)
    assert w.due == "cards_played" and "A" in w.cars
    play = bot(st, "A", Options(st, "A", w), random.Random(0))
    assert play is not None and sorted(play["cards"]) == ["3", "U38"]
    # in the turn itself (React's weighing) the plan reads the Play Area the engine holds (# 18.17)
    race.ev("cards_played", car="P", cards=["1"])
    race.ev("cards_played", car="A", cards=["3", "U38"])
    race.turns_until("A")
    assert st.turn is not None and st.turn.car == "A" and st.turn.played == ["3", "U38"]
    assert bot._turn_plan(st, car).corners(6, 11, 5, 0) == (0, None)
    assert bot._track_plan(st, car).corners(6, 11, 5, 0) == (0, 10)  # no card in play: the printed limit spins


def test_18_17_a_negative_adjust_is_a_spinout_in_the_plan() -> None:
    # U36: Speed 2, cooldown 3, Adjust -1. From 7, "U36 2" is Speed 4 across the corner after 10: limit 4 - 1 = 3,
    # 1 Heat owed and none on the Engine: a spinout (# 10.1), where the printed limit owes nothing.
    race = _adjust_board("U36 2 1 1 1 1 1", at=7, upgrades="U36 U1 U2")
    st = race.state
    car = st.cars["A"]
    assert ask_limits(st, car, planned_turn(st, car, 2, ["U36", "2"]))[0] == 3
    bot = HeuristicBot()
    tp = bot._track_plan(st, car)
    play = bot._play_plan(st, car, tp, 2, ("U36", "2"), ("U36",), False)
    assert play is not tp and play.corner_limits[0] == 3
    assert play.corners(7, 11, 4, 0) == (0, 10) and tp.corners(7, 11, 4, 0) == (0, None)
    assert bot._play_plan(st, car, tp, 2, ("1", "2"), (), False) is tp  # no module card: the plan itself


def test_22_4_the_planner_pays_the_flooded_surcharge_the_rules_ask() -> None:
    # Japan has flooded spaces: a downshift from one costs 1 more Heat (# 22.4, MA16). The plan's shift table at
    # every space is the race's shift_cost for a car standing there.
    _, _, final = simulate_race(None, track="japan", cars=2, seed=1, bots="random")
    bot = HeuristicBot()
    car = copy.copy(next(iter(final.cars.values())))
    tp = bot._track_plan(final, car)
    flooded = sorted(p for p in range(1, final.final_line) if final.track.is_flooded(p))
    assert flooded, "Japan lost its flooded spaces"
    for p in [1, 2, *flooded]:
        car.progress = p
        for a in range(1, 5):
            for b in range(max(1, a - 2), min(4, a + 2) + 1):
                assert tp.shift_table(p)[a][b] == final.rules.shift_cost(final, car, a, b), (p, a, b)
    assert any(tp.shift_table(p)[3][1] == 2 for p in flooded)  # 1 for two gears down, 1 for the water


def test_20_13_a_corner_costs_what_the_weather_rules_say() -> None:
    # An overheat token: the excess plus 1, only over the limit (# 20.13, MA19); the plan's costs are the Rules'.
    _, _, final = simulate_race(None, track="usa", cars=2, seed=0, bots="random", modules={"weather": {}})
    car = next(iter(final.cars.values()))
    tp = HeuristicBot()._track_plan(final, car)
    for i, c in enumerate(final.track.corners):
        limit = tp.corner_limits[i]
        assert limit == final.rules.corner_limit(final, car, planned_turn(final, car, 1, []), c)
        costs = ask_costs(final, car, c, limit)
        assert costs == tuple(final.rules.corner_cost(final, car, c, limit + k, limit) for k in range(len(costs)))
        assert list(costs[:3]) == [0, 1, 2] or list(costs[:3]) == [0, 2, 3]  # plain, or an overheat token
