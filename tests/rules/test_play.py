"""Step 2, play cards: how many, which, and what they are worth (# 4.x)."""

from __future__ import annotations

from heatlog.engine import MalformedInput, playable_sets

from .conftest import board


def two(hand_a="1234123", gear_a=1, at_a=2):
    return board({"A": {"at": at_a, "gear": gear_a, "hand": hand_a}, "B": {"at": 20}})


def test_4_1_play_exactly_as_many_cards_as_the_gear():
    # 4.1: gear 3 plays three cards, not two or four.
    race = two(gear_a=2)
    race.gears(A=3, B=1)
    race.reject("cards_played", car="A", cards=["1", "2"], rule="4.1")
    race.reject("cards_played", car="A", cards=["1", "2", "3", "4"], rule="4.1")
    race.play(A="123")
    assert race.car("A").committed == ["1", "2", "3"]


def test_4_1_the_count_is_the_gear_after_the_shift():
    # 4.1: in gear 1 shifting to 2, the car plays two cards.
    race = two(gear_a=1)
    race.gears(A=2, B=1)
    race.reject("cards_played", car="A", cards=["1"], rule="4.1")
    race.play(A="12", B="1")
    assert race.last_turn("B").speed == 1


def test_4_1_cards_must_be_in_the_hand():
    # 4.1
    race = two(hand_a="1112223")
    race.gears(A=2, B=1)
    err = race.reject("cards_played", car="A", cards=["4", "1"], rule="4.1")
    assert '"4"' in str(err)
    race.reject("cards_played", car="A", cards=["X", "1"], error=MalformedInput)


def test_4_1_play_once_a_round():
    # 4.1
    race = two()
    race.gears(A=1, B=1).play(A="1")
    race.reject("cards_played", car="A", cards=["2"], rule="4.1")


def test_4_2_basic_stress_0_and_5_are_playable():
    # 4.2
    race = two(hand_a="05S1H23", gear_a=3)
    race.gears(A=4, B=1)
    race.play(A="05S1", B="1")
    assert race.turn.car == "B"


def test_4_2_heat_is_not_playable_with_enough_playable_cards():
    # 4.2 (and 13.5): Heat, including the Heat upgrade, is not playable while the hand holds enough others.
    race = two(hand_a="H123412")
    race.gears(A=2, B=1)
    race.reject("cards_played", car="A", cards=["H", "1"], rule="4.2")
    assert all("H" not in s for s in playable_sets(race.car("A"), 2))


def test_4_3_starting_upgrades_move_0_and_5():
    # 4.3: the 0 and 5 upgrades are worth 0 and 5.
    race = two(hand_a="0512341", gear_a=1)
    race.gears(A=2, B=1).play(A="05", B="1")
    race.turns_until("A")
    assert race.turn.speed == 5 and race.at("A")[0] == 7


def test_4_3_zero_alone_does_not_move():
    # 4.3
    race = two(hand_a="0123412")
    race.gears(A=1, B=1).play(A="0", B="1")
    race.turns_until("A")
    assert race.turn.speed == 0 and race.turn.moved == 0 and race.at("A") == (2, 1)


def test_4_3_stress_is_worth_the_basic_card_found_for_it():
    # 4.3, 5.1: a Stress has no value of its own; the flipped Basic card gives it.
    race = board({"A": {"at": 2, "hand": "S123412", "deck": "4 1"}, "B": {"at": 20}})
    race.gears(A=1, B=1).play(A="S", B="1")
    race.turns_until("A")
    assert race.turn.speed == 0 and race.turn.flipping == "stress"
    race.flip("A", "4")
    assert race.turn.speed == 4 and race.at("A")[0] == 6
