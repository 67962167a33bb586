"""Cluttered (stalled) hand (# 13.x, C4, C12, A12, A13, 3.5)."""

from __future__ import annotations

from heatlog.engine import playable_sets, waiting_for

from .conftest import PARKED, board


def clutter(hand="1HHHHHH", gear=2, at=8, engine=6, deck="4123412341234"):
    """A leads; B (behind, the adrenaline holder) holds the given hand."""
    return board(
        {"A": {"at": 20, "hand": PARKED}, "B": {"at": at, "hand": hand, "gear": gear, "engine": engine, "deck": deck}}
    )


def test_13_1_play_all_playable_cards_and_fill_with_heat():
    # 13.1: one playable card for gear 3: play it and two Heat; playing Heat instead of the 1 is refused.
    race = clutter(hand="1HHHHHH", gear=3)
    race.gears(A=1, B=3)
    race.reject("cards_played", car="B", cards=["H", "H", "H"], rule="13.1")
    assert playable_sets(race.car("B"), 3) == [["1", "H", "H"]]
    race.play(A="0", B="1HH")


def test_13_2_no_movement_gear_1_play_area_discarded_straight_to_refill():
    # 13.2: B reveals 1 H H: does not move, drops to gear 1, the three cards go to discard, it draws 3.
    race = clutter(hand="1HHHHHH", gear=3, deck="2 3 4 1")
    race.round(A=(1, "0"), B=(3, "1HH"))
    race.turns_until("B")
    t = race.turn
    b = race.car("B")
    assert t.cluttered and t.sub == 9 and t.speed == 0 and t.moved == 0
    assert b.progress == 8 and b.gear == 1 and b.engine == 6
    assert b.play_area == [] and b.discard == ["1", "H", "H"]
    race.ev("cards_drawn", car="B", cards=["2", "3", "4"])
    assert b.hand_size == 7 and race.state.round == 2


def test_13_3_no_react_adrenaline_slipstream_discard_or_corner():
    # 13.3: B holds adrenaline and sits directly behind A, yet every optional step is closed.
    race = clutter(hand="1HHHHHH", gear=2, at=19)  # directly behind A: slipstream would otherwise be open
    race.round(A=(1, "0"), B=(2, "1H"))
    race.turns_until("B")
    race.reject("cooldown", car="B", count=1, rule="13.3")
    race.reject("boost", car="B", rule="13.3")
    race.reject("adrenaline", car="B", bonus="move", rule="13.3")
    race.reject("cards_discarded", car="B", cards=["1"], rule="13.3")
    race.reject("slipstream", car="B", taken=True, rule="13.3")
    assert waiting_for(race.state).optional == []
    race.refill()
    assert race.last_turn("B").corners == []


def test_13_4_played_cards_have_no_effect_stress_not_resolved():
    # 13.4: a played Stress is not flipped for.
    race = clutter(hand="SHHHHHH", gear=2)
    race.round(A=(1, "0"), B=(2, "SH"))
    race.turns_until("B")
    t = race.turn
    assert t.cluttered and t.flipping is None and t.flips == [] and t.speed == 0
    assert race.car("B").discard == ["S", "H"]


def test_13_5_C12_the_only_way_heat_is_played():
    # 13.5, C12, 4.2: with enough playable cards Heat is refused; and a cluttered hand must not hold back a
    # playable card to play more Heat.
    race = clutter(hand="12HHHHH", gear=2)
    race.gears(A=1, B=2)
    race.reject("cards_played", car="B", cards=["1", "H"], rule="4.2")
    race = clutter(hand="1HHHHHH", gear=2)
    race.gears(A=1, B=2)
    race.play(B="1H")


def test_C4_heat_counts_no_speed():
    # C4: Heat is not "0 speed" that moves the car normally: a cluttered play moves nothing and skips React.
    race = clutter(hand="5HHHHHH", gear=2)
    race.round(A=(1, "0"), B=(2, "5H"))
    race.turns_until("B")
    assert race.turn.cluttered and race.turn.speed == 0 and race.at("B")[0] == 8


def test_A12_stress_0_and_5_count_as_playable_gear_after_step_1():
    # A12: S and 0 are playable, so S 0 H H H H H is not cluttered in gear 2, but is in gear 3.
    race = clutter(hand="S0HHHHH", gear=2)
    assert playable_sets(race.car("B"), 2) == [["0", "S"]]
    assert playable_sets(race.car("B"), 3) == [["0", "S", "H"]]
    race.gears(A=1, B=2)
    race.reject("cards_played", car="B", cards=["S", "H"], rule="4.2")


def test_A12_3_5_shift_down_to_escape_the_clutter():
    # A12, 3.5: in gear 3 with two playable cards, shifting to gear 2 plays them normally.
    race = clutter(hand="05HHHHH", gear=3)
    race.round(A=(1, "0"), B=(2, "05"))
    race.turns_until("B")
    assert not race.turn.cluttered and race.turn.speed == 5 and race.at("B")[0] == 13


def test_A13_after_a_cluttered_turn_only_heat_is_left_in_hand():
    # A13: "use all playable" leaves only Heat in the hand, so no voluntary discard could exist anyway.
    race = clutter(hand="12HHHHH", gear=3, deck="3 3 3")
    race.round(A=(1, "0"), B=(3, "12H"))
    race.turns_until("B")
    assert race.hand("B") == ["H"] * 4
    race.reject("cards_discarded", car="B", cards=["H"], rule="13.3")
