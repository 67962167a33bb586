"""Step 8, discard, and step 9, replenish hand (# 11.1, 12.x)."""

from __future__ import annotations

from heatlog.engine import MalformedInput

from .conftest import PARKED, board


def one_turn(hand="1234HS0", deck="4123412341234", discard="", gear=1, play="1"):
    race = board({"A": {"at": 3, "hand": hand, "deck": deck, "discard": discard, "gear": gear}, "B": {"at": 1}})
    race.round(A=(gear, play), B=(1, "1"))
    assert race.turn.car == "A"
    return race


def test_11_1_discard_any_card_but_stress_and_heat():
    # 11.1
    race = one_turn(hand="1234HS0")
    race.reject("cards_discarded", car="A", cards=["S"], rule="11.1")
    race.reject("cards_discarded", car="A", cards=["H", "2"], rule="11.1")
    race.reject("cards_discarded", car="A", cards=["5"], rule="11.1")  # not in the hand
    race.reject("cards_discarded", car="A", cards=[], error=MalformedInput)
    race.discard("A", "2 4 0")
    a = race.car("A")
    assert a.discard == ["2", "4", "0"] + ["1"]  # then the Play Area (# 12.1)
    assert race.turn.sub == 9 and race.turn.discarded == ["2", "4", "0"]


def test_11_1_discard_once_then_draw_back_to_seven():
    # 11.1, 12.2: after discarding 2 of the 6 left, A draws 3.
    race = one_turn(hand="1234123", deck="4 4 1 2")
    race.discard("A", "23")
    race.reject("cards_discarded", car="A", cards=["1"], rule="11.1")
    race.ev("cards_drawn", car="A", cards=["4", "4", "1"])
    assert race.car("A").hand_size == 7 and race.turn.car == "B"


def test_12_1_play_area_goes_to_discard_before_drawing():
    # 12.1: played Stress, its replacement and the boost card all go to discard before the draw.
    race = one_turn(hand="S123412", deck="0 2 H 3 1 1 1", play="S")
    race.flip("A", "0", "2")
    race.boost("A", "H", "3")
    a = race.car("A")
    assert a.play_area == ["S", "2", "3"]
    race.go_on().go_on()
    assert a.play_area == [] and a.discard == ["0", "H", "H", "S", "2", "3"]
    race.ev("cards_drawn", car="A", cards=["1"])
    assert a.hand_size == 7


def test_12_2_draw_up_to_seven_not_more():
    # 12.2
    race = one_turn(hand="1234123", deck="4 4 1 2")
    race.reject("cards_drawn", car="A", cards=["4", "4"], rule="12.2")
    race.ev("cards_drawn", car="A", cards=["4"])
    assert race.last_turn("A").drawn == 1 and race.turn.car == "B"


def test_12_2_draw_may_be_split():
    # 12.2: three to draw, in two draws.
    race = one_turn(hand="1234123", deck="4 4 1 2", gear=2, play="12")
    race.go_on().go_on()  # no React, no discard
    race.ev("cards_drawn", car="A", cards=["4"])
    assert race.turn.car == "A"
    race.ev("cards_drawn", car="A", cards=["4"])
    assert race.turn.car == "B"


def test_12_3_reshuffle_mid_draw_includes_the_discarded_play_area():
    # 12.3, 5.6: 1 card in the deck, 2 to draw: draw 1, reshuffle the discard pile (which now holds this
    # turn's Play Area), draw 1.
    race = one_turn(hand="1234123", deck="4", discard="1 1", gear=2, play="12")
    race.go_on().go_on()
    race.reject("cards_drawn", car="A", cards=["4", "1"], rule="5.6")
    race.ev("cards_drawn", car="A", cards=["4"])
    a = race.car("A")
    assert a.deck_size == 0 and a.discard == ["1", "1", "1", "2"]
    race.reject("deck_shuffled", car="A", order=["1", "1"], rule="5.6")
    race.ev("deck_shuffled", car="A", order=["2", "1", "1", "1"])
    race.ev("cards_drawn", car="A", cards=["2"])
    a = race.car("A")
    assert a.hand_size == 7 and a.deck_size == 3 and a.discard == []
    assert race.last_turn("A").shuffles == 1


def test_12_4_next_car_in_the_round_order():
    # 12.4
    race = board({"A": {"at": 5, "hand": PARKED}, "B": {"at": 4}, "C": {"at": 3}})
    race.round(A=(1, "0"), B=(1, "1"), C=(1, "1"))
    seen = []
    while race.state.turn is not None:
        seen.append(race.turn.car)
        race.refill()
    assert seen == ["A", "B", "C"]
