""" "+" flips for Stress and Boost (# 14.x, 5.2, C3, C6, A8)."""

from __future__ import annotations

from heatlog.engine import MalformedInput, waiting_for

from .conftest import PARKED, board


def flipper(hand="S123412", deck="4123412341234", discard="", engine=6):
    race = board(
        {
            "A": {"at": 20, "hand": PARKED},
            "B": {"at": 3, "hand": hand, "deck": deck, "discard": discard, "engine": engine},
        }
    )
    return race


def test_14_1_basic_card_to_play_area_others_to_discard_keep_flipping():
    # 14.1
    race = flipper(hand="S123412", deck="H S 2")
    race.round(A=(1, "0"), B=(1, "S"))
    race.turns_until("B")
    w = waiting_for(race.state)
    assert w.kinds == ["card_flipped"] and w.cars == ["B"]
    race.flip("B", "H", "S")
    assert race.car("B").discard == ["H", "S"] and race.turn.flipping == "stress"
    race.flip("B", "2")
    assert race.car("B").play_area == ["S", "2"] and race.turn.flipping is None
    assert race.turn.flips == [("stress", "H"), ("stress", "S"), ("stress", "2")]


def test_14_2_C3_zero_and_five_are_never_found_by_a_flip():
    # 14.2, C3: the 5 and the 0 are Starting Upgrades without the Basic symbol: both are skipped.
    race = flipper(hand="1S23412", deck="5 0 1")
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    race.boost("B", "5", "0")
    assert race.turn.flipping == "boost" and race.car("B").discard == ["H", "5", "0"]
    race.flip("B", "1")
    assert race.turn.boost_card == "1" and race.turn.speed == 2


def test_14_3_flip_from_an_empty_deck_reshuffles_the_discard_only():
    # 14.3, 5.6, A8: the boost's Heat is already in the discard pile and goes into the new deck; the Play Area
    # (the played 1) stays out.
    race = flipper(hand="1S23412", deck="", discard="3")
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    race.ev("boost", car="B")
    b = race.car("B")
    assert b.discard == ["3", "H"] and b.deck_size == 0
    assert waiting_for(race.state).kinds == ["deck_shuffled"]
    race.reject("deck_shuffled", car="B", order=["3", "H", "1"], rule="5.6")
    race.ev("deck_shuffled", car="B", order=["H", "3"])
    race.flip("B", "H", "3")
    b = race.car("B")
    assert race.turn.boost_card == "3" and b.play_area == ["1", "3"] and b.discard == ["H"]


def test_5_2_open_mode_flip_must_be_the_known_top_card():
    # 5.2: with the shuffle order known, a flip naming another card is refused.
    race = flipper(hand="S123412", deck="H 2")
    race.round(A=(1, "0"), B=(1, "S"))
    race.turns_until("B")
    err = race.reject("card_flipped", car="B", card="2", rule="5.2")
    assert "top of B's deck is Heat" in str(err)
    race.reject("card_flipped", car="B", card="X", error=MalformedInput)


def test_14_1_no_flip_without_a_stress_or_boost_to_resolve():
    # 14.1
    race = flipper(hand="1123412")
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    race.reject("card_flipped", car="B", card="4", rule="14.1")


def test_C6_boost_costs_heat_and_keeps_flipping():
    # C6: not a free single flip: 1 Heat paid and flipping goes on past a non-Basic card.
    race = flipper(hand="1S23412", deck="S 2")
    race.round(A=(1, "0"), B=(1, "1"))
    race.turns_until("B")
    race.boost("B", "S", "2")
    assert race.car("B").engine == 5 and race.turn.boost_card == "2"


def test_A8_nothing_to_flip_at_all_finds_nothing():
    # A8 (left open by the seeds; our reading): deck and discard both empty: the Stress finds nothing (0).
    race = flipper(hand="S123412", deck="", discard="")
    race.round(A=(1, "0"), B=(1, "S"))
    race.turns_until("B")
    t = race.turn
    assert t.flipping is None and t.stress_found == ["-"] and t.speed == 0 and t.sub == 5


def test_A8_no_basic_card_left_in_deck_or_discard_finds_nothing():
    # A8 (our reading, extending "both empty"): when neither the deck nor the discard pile holds a Basic card,
    # flipping can never end; the flip finds nothing instead of reshuffling the same Heat forever.
    race = flipper(hand="S123412", deck="H", discard="S")
    race.round(A=(1, "0"), B=(1, "S"))
    race.turns_until("B")
    race.flip("B", "H")
    t = race.turn
    assert t.flipping is None and t.stress_found == ["-"] and t.speed == 0
    assert race.car("B").discard == ["S", "H"]
