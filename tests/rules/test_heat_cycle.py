"""Paying Heat and the Heat cycle (# 15.x, C1, C2)."""

from __future__ import annotations

from .conftest import PARKED, board


def test_15_1_C1_C2_every_payment_moves_engine_heat_to_discard():
    # 15.1, C1, C2: a two-gear shift, a boost and a corner each move Engine Heat to the discard pile; the Heat in
    # the hand is never used and never gains a card.
    race = board({"A": {"at": 25, "hand": PARKED}, "B": {"at": 5, "gear": 1, "hand": "32H1H12", "deck": "1 1"}})
    race.gears(A=1, B=3)
    b = race.car("B")
    assert b.engine == 5 and b.discard == ["H"] and b.hand["H"] == 2  # shift (# 3.2)
    race.play(A="0", B="321")
    race.turns_until("B")
    race.boost("B", "1")
    b = race.car("B")
    assert b.engine == 4 and b.discard == ["H", "H"] and b.hand["H"] == 2  # boost (# 7.5)
    race.go_on()  # Speed 7 over the corner after 10 (limit 4): 3 Heat
    assert b.engine == 1 and b.discard == ["H"] * 5 and b.hand["H"] == 2
    assert race.turn.corners[0].paid == 3


def test_15_2_engine_discard_deck_hand_engine():
    # 15.2: a Heat paid at a corner is discarded, reshuffled into the deck, drawn and cooled back to the Engine.
    race = board({"A": {"at": 25, "hand": PARKED}, "B": {"at": 8, "hand": "5123412", "deck": "", "engine": 6}})
    race.round(A=(1, "0"), B=(1, "5"))
    race.turns_until("B").go_on()
    b = race.car("B")
    assert b.engine == 5 and b.discard == ["H"]  # Engine -> discard
    race.go_on()
    assert b.discard == ["H", "5"]
    race.ev("deck_shuffled", car="B", order=["H", "5"])  # discard -> deck
    race.ev("cards_drawn", car="B", cards=["H"])  # deck -> hand
    b = race.car("B")
    assert b.hand["H"] == 1 and b.deck_size == 1
    race.round(A=(1, "1"), B=(1, "1"))
    race.turns_until("B").cooldown("B", 1)  # hand -> Engine
    assert race.car("B").engine == 6 and race.car("B").hand["H"] == 0


def test_15_3_heat_in_hand_is_never_discarded_or_played():
    # 15.3 (except the cluttered hand, # 13): neither step 8 nor step 2 takes a Heat from the hand.
    race = board({"A": {"at": 25, "hand": PARKED}, "B": {"at": 5, "gear": 2, "hand": "12HH341"}})
    race.gears(A=1, B=2)
    race.reject("cards_played", car="B", cards=["H", "1"], rule="4.2")
    race.play(A="0", B="12")
    race.turns_until("B")
    race.reject("cards_discarded", car="B", cards=["H"], rule="11.1")
    race.reject("cards_discarded", car="B", cards=["3", "H"], rule="11.1")
