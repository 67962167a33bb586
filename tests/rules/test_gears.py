"""Step 1, shift gears (# 3.x, C1)."""

from __future__ import annotations

from heatlog.engine import MalformedInput, legal_gears

from .conftest import board


def two(gear_a=1, engine_a=6, hand_a="1234123"):
    return board({"A": {"at": 5, "gear": gear_a, "engine": engine_a, "hand": hand_a}, "B": {"at": 2}})


def test_3_1_stay_or_shift_one_gear_for_free():
    # 3.1
    for start, target in ((1, 1), (1, 2), (3, 4), (3, 2), (4, 4)):
        race = two(gear_a=start)
        race.gears(A=target)
        assert race.car("A").gear == target
        assert race.car("A").engine == 6 and race.car("A").discard == []


def test_3_1_gears_are_1_to_4_and_chosen_once_a_round():
    # 3.1
    race = two()
    race.reject("gear_chosen", car="A", gear=5, error=MalformedInput)
    race.reject("gear_chosen", car="A", gear=0, error=MalformedInput)
    race.gears(A=2)
    race.reject("gear_chosen", car="A", gear=1, rule="3.1")


def test_3_2_two_gear_shift_pays_one_heat_immediately():
    # 3.2: paid at step 1 (Engine -> discard), before any card is played.
    race = two(gear_a=1)
    race.gears(A=3)
    a = race.car("A")
    assert a.gear == 3 and a.engine == 5 and a.discard == ["H"]
    assert race.state.step == 1  # B has not even shifted yet


def test_3_2_two_gears_down_costs_the_same():
    # 3.2
    race = two(gear_a=4)
    race.gears(A=2)
    assert race.car("A").engine == 5 and race.car("A").discard == ["H"]


def test_3_2_shift_heat_recorded_on_the_turn():
    # 3.2
    race = two(gear_a=2)
    race.round(A=(4, "1234"), B=(1, "1"))
    t = race.turn
    assert t.car == "A" and t.from_gear == 2 and t.gear == 4 and t.shift_heat == 1


def test_3_3_no_two_gear_shift_with_an_empty_engine_heat_in_hand_cannot_pay():
    # 3.3 (C1): Heat in the hand never pays; without Engine Heat the shift is illegal.
    race = two(gear_a=1, engine_a=0, hand_a="HHH1234")
    err = race.reject("gear_chosen", car="A", gear=3, rule="3.3")
    assert "Engine" in str(err)
    assert race.hand("A").count("H") == 3
    assert 3 not in legal_gears(race.state, race.car("A"))
    race.gears(A=2)  # one gear is still free


def test_3_3_last_engine_heat_can_pay_for_the_shift():
    # 3.3, 9.4: paying the Engine down to empty is legal.
    race = two(gear_a=3, engine_a=1)
    race.gears(A=1)
    assert race.car("A").engine == 0 and race.car("A").discard == ["H"]


def test_3_4_no_three_gear_jump():
    # 3.4
    race = two(gear_a=1)
    race.reject("gear_chosen", car="A", gear=4, rule="3.4")
    assert legal_gears(race.state, race.car("A")) == [1, 2, 3]
    race = two(gear_a=4)
    race.reject("gear_chosen", car="A", gear=1, rule="3.4")
    assert legal_gears(race.state, race.car("A")) == [2, 3, 4]


def test_3_5_cluttered_hand_may_still_shift_even_to_fourth():
    # 3.5 (A12): a hand of 1 playable card and 6 Heat may shift up to gear 4 (it stays cluttered).
    race = two(gear_a=3, hand_a="1HHHHHH")
    assert 4 in legal_gears(race.state, race.car("A"))
    race.gears(A=4, B=1)
    race.play(A="1HHH", B="1")
    assert race.last_turn("A").cluttered
