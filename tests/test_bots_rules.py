"""The heuristic planner asks the race's Rules for its corners and shifts (issue 26 build 7): no second copy.

Its model of a turn — the Heat owed at each corner line, a spinout when the Engine cannot pay (# 9.3, 10.1), the
Heat of a shift (# 3.2) — is the engine's answers, asked once per plan: the corner limits with every Adjust in
the Play Area (# 18.17), a road token's limit and overheat (# 20.8, 20.13), the flooded-space surcharge (# 22.4).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from heatlog.bots import HeuristicBot, Options, ask_costs, ask_limits, determinize
from heatlog.engine import RaceState, Waiting, apply, waiting_for
from heatlog.engine.decide import legal_gears
from heatlog.engine.module import BotPolicy, Module
from heatlog.engine.modules.garage.race import planned_turn
from heatlog.engine.state import Car
from heatlog.engine.steps import GEARS, REACT
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


# ---- the Rules' cooldown, boost and shift answers, and the spinout's weight from the registry (issue 26 build 7)


def _states(track: str, seed: int, modules: dict[str, Any] | None = None) -> Iterator[tuple[RaceState, Waiting]]:
    """Every state of a simulated race (heuristic cars) with what it waits for, a copy of each."""
    events = simulate_race(None, track=track, cars=3, seed=seed, bots="heuristic", modules=modules)[1]
    state = None
    for ev in events:
        state = apply(state, ev, atomic=False)
        if state.phase == "race":
            yield state.copy(), waiting_for(state)


def test_7_2_the_planner_asks_the_rules_cooldown_where_each_move_ends() -> None:
    # # 7.2; MODULES.md 20.9, 20.10: the cooldown a gear gives is the Rules' (its block and bonus read the car's
    # place: the weather's sectors). A race whose Rules block every cooldown and give 2 more where they do not
    # is asked, for a car standing where each gear's typical move ends; the bot kept its own copy of the weather
    # before (sector_at), and a base race's Rules were never asked.
    bot = HeuristicBot()
    asked: list[int] = []

    def bonus(state: RaceState, car: Car) -> int:
        asked.append(car.progress)
        return 2

    for state, w in _states("usa", 2):
        if w.step == GEARS and w.cars:
            car = state.cars[w.cars[0]]
            state.rules = replace(state.rules, cooldown_bonus=bonus)
            at = car.progress
            bot._plan(state, car)
            typical = bot.w.typical
            assert set(asked) == {at + int(g * typical + 0.5) for g in legal_gears(state, car)}
            assert car.progress == at  # (asked for a car standing there, not by moving this one)
            break
    else:
        raise AssertionError("no gear to choose")


def test_7_2_a_cooldown_the_rules_block_changes_the_plan_as_the_weather_did() -> None:
    # The same plans as the weather's own sectors gave (MODULES.md 20.9, 20.10): on a weather race every plan of
    # the heuristic is the one its Rules' cooldown points give, whatever they are called.
    bot, other = HeuristicBot(), HeuristicBot()
    n = 0
    for state, w in _states("usa", 4, {"weather": {}}):
        if w.step == GEARS and w.cars:
            car = state.cars[w.cars[0]]
            plan = bot._plan(state, car)
            plain = state.copy()
            rules = plain.rules
            # the weather's points, re-wrapped by a function of another name: the plan is the same
            plain.rules = replace(
                rules,
                cooldown_block=lambda s, c, f=rules.cooldown_block: f(s, c),
                cooldown_bonus=lambda s, c, f=rules.cooldown_bonus: f(s, c),
            )
            assert other._plan(plain, plain.cars[car.name]) == plan
            n += 1
    assert n > 10


def test_7_5_the_heuristic_weighs_the_boost_the_rules_price() -> None:
    # # 7.5 (a free boost, MODULES.md 20.11): a boost's Heat is the Rules' boost_cost where the car stands. Where
    # the heuristic declines a boost at 1 Heat, the same race with free boosts (Rules whose boost_cost is 0, as a
    # free-boost sector's) sometimes takes it: the bot read the weather's sector itself before, not the Rules.
    differ = 0
    for seed in (1, 2):
        for state, w in _states("usa", seed):
            if w.step != REACT or not w.cars:
                continue
            name = w.cars[0]
            if not any(o["type"] == "boost" for o in Options(state, name, w)):
                continue
            paid = HeuristicBot()(state, name, Options(state, name), random.Random(0))
            free = state.copy()
            free.rules = replace(state.rules, boost_cost=lambda s, c: 0)
            chosen = HeuristicBot()(free, name, Options(free, name), random.Random(0))
            if (paid or {}).get("type") != "boost" and (chosen or {}).get("type") == "boost":
                differ += 1
    assert differ


def test_3_2_a_world_gives_back_the_shift_heat_the_rules_took() -> None:
    # # 3.2: a search world takes back the other cars' gears chosen this round, and gives back the Heat their
    # shift paid: the Rules' shift_cost, as the engine took it (it gave back circuits' own count before).
    for state, w in _states("usa", 3):
        if w.step == GEARS and len(w.cars) == 3 and state.round > 1 and state.cars[w.cars[0]].engine >= 2:
            break
    else:
        raise AssertionError("no round with three gears to choose")
    first, me = w.cars[0], w.cars[1]
    car = state.cars[first]
    state.rules = replace(state.rules, shift_cost=lambda s, c, a, b: 2 if a != b else 0)
    before = (car.gear, car.engine, list(car.discard))
    gear = car.gear + 1 if car.gear < 4 else car.gear - 1
    state = apply(state, {"type": "gear_chosen", "v": 1, "car": first, "gear": gear}, atomic=False)
    assert state.cars[first].engine == before[1] - 2  # the engine took the Rules' 2
    world = determinize(state, me, random.Random(0))
    back = world.cars[first]
    assert (back.gear, back.engine, back.discard) == before


def test_21_8_a_spinout_that_eliminates_is_the_policy_s_answer() -> None:
    # MODULES.md 21.8 event 10, MA21: the planner's spinout weight asks the race's modules' bot policies
    # (BotPolicy.spinout_eliminates), never the championship's rules by name.
    from heatlog.bots import ELIMINATED, race_policies, spinout_ends
    from heatlog.engine.module import MODULES

    policy = MODULES["championship"].bot_policy()
    assert policy.spinout_eliminates is not None
    state = next(s for s, _ in _states("usa", 1))
    assert not spinout_ends(state) and race_policies(state) == ((), None)
    bot = HeuristicBot()
    assert bot._track_plan(state).spin == bot.w.spin
    ended = state.copy()
    ended.rules = replace(state.rules, modules=("eliminates",))
    fake = Module("eliminates", bot_policy=lambda: BotPolicy(spinout_eliminates=lambda s: True))
    MODULES["eliminates"] = fake
    try:
        assert spinout_ends(ended)
        assert HeuristicBot()._track_plan(ended).spin == bot.w.spin + ELIMINATED
    finally:
        del MODULES["eliminates"]
